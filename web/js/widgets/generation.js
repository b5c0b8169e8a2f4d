// Generation in steps, so a page can stream it and stop it: each step asks for a few tokens (one request to
// the worker, which stays free between steps) with a seed derived from the reader's seed and the step's
// number, so the same seed and settings give the same text every time (not the same text as one
// generate() call of that seed: each step starts its own random stream). Pure: `generate(ids, opts)` is
// whatever runs the model (a widget's askModel, or the JS API in a test). Not the sampler (the core).

export const STEP_TOKENS = 4;

// The seed of step i for the reader's seed (a 32-bit integer).
export function stepSeed(seed, i) {
  return (seed + Math.imul(i, 0x9E3779B1)) >>> 0;
}

// Yields { ids, text, stop } per step; stop is null until the last step, then 'end' (the model ended the
// text), 'context' (the context is full) or 'max_tokens'.
export async function* generateInSteps(generate, promptIds, { maxTokens, temperature, topP, seed, step = STEP_TOKENS }) {
  const ids = [...promptIds];
  let made = 0;
  for (let i = 0; made < maxTokens; i++) {
    const r = await generate(ids, { maxTokens: Math.min(step, maxTokens - made), temperature, topP, seed: stepSeed(seed, i) });
    ids.push(...r.ids);
    made += r.ids.length;
    const stop = r.stop !== 'max_tokens' ? r.stop : made >= maxTokens ? 'max_tokens' : null;
    yield { ids: r.ids, text: r.text, stop };
    if (stop) return;
  }
}
