// node:test tests of generation in steps (web/js/widgets/generation.js), the loop the next-token widget streams
// with, run here on the JS API: the same seed gives the same text, steps add up to the budget, the stop reasons
// come through, and each step's seed is its own. Not the sampler's tests (tests/cpp/test_generate.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { generateInSteps, STEP_TOKENS, stepSeed } from '../../web/js/widgets/generation.js';

const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');
const prompt = sprout.encode('Once upon a time');

async function run(opts, model = sprout, ids = prompt) {
  const steps = [];
  const asked = [];
  const call = (x, o) => {
    asked.push(o);
    return model.generate(x, o);
  };
  for await (const s of generateInSteps(call, ids, opts)) steps.push(s);
  return { steps, asked, ids: steps.flatMap((s) => s.ids), text: steps.map((s) => s.text).join('') };
}

test('the same seed gives the same text; another seed another', async () => {
  const a = await run({ maxTokens: 30, temperature: 0.9, topP: 0.95, seed: 5 });
  const b = await run({ maxTokens: 30, temperature: 0.9, topP: 0.95, seed: 5 });
  const c = await run({ maxTokens: 30, temperature: 0.9, topP: 0.95, seed: 6 });
  assert.deepEqual(a.ids, b.ids);
  assert.notDeepEqual(a.ids, c.ids);
  assert.equal(sprout.decode(a.ids), a.text);
});

test('steps of a few tokens add up to the budget, each with its own seed', async () => {
  const r = await run({ maxTokens: 10, temperature: 1, topP: 1, seed: 3 });
  if (r.steps.at(-1).stop === 'max_tokens') assert.equal(r.ids.length, 10);
  assert.deepEqual(r.asked.map((o) => o.maxTokens), [STEP_TOKENS, STEP_TOKENS, 10 - 2 * STEP_TOKENS].slice(0, r.asked.length));
  assert.deepEqual(r.asked.map((o) => o.seed), r.asked.map((_, i) => stepSeed(3, i)));
  assert.ok(r.steps.slice(0, -1).every((s) => s.stop === null));
});

test('a full context stops generation with "context"', async () => {
  const long = sprout.encode('Mia ran. '.repeat(200)).slice(0, sprout.context - 2);
  const r = await run({ maxTokens: 20, temperature: 0.8, topP: 0.95, seed: 1 }, sprout, long);
  assert.equal(r.steps.at(-1).stop, 'context');
  assert.ok(r.ids.length <= sprout.context - long.length + 1, `${r.ids.length} tokens after a prompt of ${long.length}`);
});

test('seeds stay 32-bit unsigned integers', () => {
  for (const s of [0, 1, 4294967295]) for (const i of [0, 1, 1000]) {
    const v = stepSeed(s, i);
    assert.ok(Number.isInteger(v) && v >= 0 && v <= 4294967295);
  }
});
