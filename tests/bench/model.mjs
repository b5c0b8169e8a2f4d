// The model rows of `npm run bench`: one forward pass of 256 tokens with every head's attention returned, one
// decoding step at position 255 with the KV cache, a next() loop on a growing array against generate, tokens()
// (each token's place in the decoded text) of 2,000 ids, and what returning every layer's attention costs a forward
// pass of 128 tokens, through the public JS API in WebAssembly on one thread, for the shipped Sprout (whatever its
// config.json says) and the llama2.c checkpoint stories260K
// (shared/models). Medians over rounds, wall and CPU time.
// Not a test: the timings are reported against the targets, never asserted.
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../../web/js/api/index.js';
import { pairedSpeedup } from './paired.mjs';
import { cpuMs, median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STORIES = `${root}shared/models/stories260K/`;

// Two token sequences of length T that differ at position 1 (so a forward pass can never reuse the cache)
// and two that differ only in the last token (so a call reuses T-1 positions: one decoding step).
function sequences(model, T) {
  const V = model.info.config.vocab_size, bos = model.info.config.bos_id;
  let s = 12345;
  const pick = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return 3 + (s >>> 8) % (V - 3);
  };
  const base = [bos, ...Array.from({ length: T - 1 }, pick)];
  const other = [...base];
  other[1] = base[1] === 3 ? 4 : 3;
  const lastA = [...base], lastB = [...base];
  lastB[T - 1] = base[T - 1] === 3 ? 4 : 3;
  return { full: [base, other], last: [lastA, lastB] };
}

async function timeRounds(rounds, calls, fn) {
  const wall = [], cpu = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = cpuMs(), t0 = performance.now();
    for (let i = 0; i < calls; i++) fn(i);
    wall.push((performance.now() - t0) / calls);
    cpu.push((cpuMs() - c0) / calls);
  }
  return { ms: median(wall), cpu: median(cpu), samples_ms: wall };
}

async function benchOne(lb, name, source, opts, rounds) {
  const model = await lb.loadModel(source, opts);
  const T = Math.min(256, model.context);
  const { full, last } = sequences(model, T);
  // check the cache does what the rows claim before timing
  model.forward(full[0]);
  const fresh = model.forward(full[1], { attention: true });
  model.forward(last[0]);
  const step = model.forward(last[1]);
  if (fresh.reused > 1 || step.reused !== T - 1) throw new Error(`bench: ${name}: cache reuse ${fresh.reused}/${step.reused}, expected <= 1 and ${T - 1}`);
  for (let i = 0; i < 3; i++) model.forward(full[i % 2], { attention: true });
  const forward = await timeRounds(rounds, 2, (i) => model.forward(full[i % 2], { attention: true }));
  model.next(last[0], { topK: 1 });
  const decode = await timeRounds(rounds, 20, (i) => model.next(last[(i + 1) % 2], { topK: 1 }));
  const nextLoop = growingNext(model, rounds);
  // 2,000 ids of a text, each part with its start mark (a sentencepiece tokenizer's start mark drops a space)
  const text = 'Once upon a time, a little girl named Lily found a shiny red ball in the park. ';
  const many = [];
  while (many.length < 2000) many.push(...model.encode(text));
  many.length = 2000;
  const tokens = await timeRounds(rounds, 2, () => model.tokens(many));
  const c = model.info.config;
  model.dispose();
  return {
    name, T, config: `${c.n_layers} layers x ${c.n_heads} heads (kv ${c.n_kv_heads}), width ${c.dim}, hidden ${c.hidden_dim}, vocab ${c.vocab_size}`,
    parameters: model.info.parameters, forward, decode, next_loop: nextLoop, tokens_2000: tokens,
  };
}

// What a script's own decoding loop costs against generate: per token, generate's greedy steps from a 2-token
// prompt, and then the same tokens through next() on an array that grows by one id per call (each call finds the
// cached prefix and computes one position). Round by round, the two one right after the other (which goes first
// alternates); the ratio is the median of the rounds' ratios. Throws if next()'s top token is not generate's.
function growingNext(model, rounds) {
  const c = model.info.config;
  const prompt = [c.bos_id, Math.min(c.vocab_size - 1, 300)];
  const steps = Math.min(128, model.context - prompt.length);
  const per = (t0, c0, n) => ({ ms: (performance.now() - t0) / Math.max(1, n), cpu: (cpuMs() - c0) / Math.max(1, n) });
  const generate = () => {
    const c0 = cpuMs(), t0 = performance.now();
    const g = model.generate(prompt, { maxTokens: steps, temperature: 0 });
    return { ...per(t0, c0, g.ids.length), ids: g.ids };
  };
  const loop = (want) => {
    const ids = [...prompt];
    const c0 = cpuMs(), t0 = performance.now();
    for (const id of want) {
      const top = model.next(ids, { topK: 1 })[0].id;
      if (top !== id) throw new Error(`bench: next() chose ${top} where generate chose ${id}`);
      ids.push(id);
    }
    return per(t0, c0, want.length);
  };
  const want = generate().ids;
  loop(want);  // warm-up
  const gen = [], next = [], ratio = [], cpuRatio = [];
  for (let r = 0; r < rounds; r++) {
    let g, n;
    if (r % 2) n = loop(want), g = generate();
    else g = generate(), n = loop(want);
    gen.push(g.ms), next.push(n.ms), ratio.push(n.ms / g.ms), cpuRatio.push(n.cpu / g.cpu);
  }
  return { tokens: want.length, generate_ms: median(gen), next_ms: median(next), ratio: median(ratio), cpu_ratio: median(cpuRatio) };
}

// What returning every layer's attention costs: a forward pass of T tokens with { attention: true } against the
// same pass without, in back-to-back pairs (paired.mjs). Consecutive calls alternate two texts that differ at
// position 1, so no call reuses the cache (checked).
async function attentionCost(lb, name, source, pairs, T = 128) {
  const model = await lb.loadModel(source);
  const { full } = sequences(model, T);
  let k = 0;
  const pass = (attention) => () => {
    const r = model.forward(full[k++ % 2], { attention });
    if (r.reused > 1 || (attention && r.attention.length !== model.info.config.n_layers * model.info.config.n_heads * T * T))
      throw new Error(`bench: ${name}: forward reused ${r.reused} positions, attention ${r.attention?.length}`);
  };
  const r = await pairedSpeedup({ run: pass(true), reps: 3 }, { run: pass(false), reps: 3 }, { pairs });
  model.dispose();
  return { name, T, ...r };
}

// Rows for the shipped Sprout and stories260K; targets for the Sprout-shaped model.
export async function benchModels({ rounds = 15 } = {}) {
  const lb = await loadLookback({ threads: 1 });  // one thread, as the targets were set (the decode rows time threads)
  const rows = [await benchOne(lb, 'sprout', 'sprout', undefined, rounds)];
  rows.push(await benchOne(lb, 'stories260K', `${STORIES}stories260K.bin`, { tokenizer: `${STORIES}tok512.bin` }, rounds));
  const s = rows[0];
  const attention = await attentionCost(lb, 'sprout', 'sprout', rounds);
  const targets = [
    { name: 'model forward, 256 tokens with attention (Sprout shape)', value: s.forward.ms, cpu_value: s.forward.cpu, target: 120, unit: ' ms', below: true },
    { name: 'model decoding step at position 255 with the KV cache (Sprout shape)', value: s.decode.ms, cpu_value: s.decode.cpu, target: 3, unit: ' ms', below: true },
    ...rows.map((r) => ({ name: `next() on a growing array against generate's step, per token (${r.name}; ${r.next_loop.tokens} tokens; median of ${rounds} rounds' ratios)`,
      value: r.next_loop.ratio, cpu_value: r.next_loop.cpu_ratio, target: 1.2, unit: 'x', below: true })),
    { name: `forward ${attention.T} tokens with every layer's attention returned against without (${attention.name}; median of ${attention.pairs} back-to-back pairs)`,
      value: attention.speedup, cpu_value: attention.cpu_speedup, target: 1.1, unit: 'x', below: true },
  ].map((t) => ({ ...t, met: t.value <= t.target }));
  return { rows, targets, attention };
}

export function printModels({ rows, attention }) {
  console.log('\nmodel (public JS API, WebAssembly, one thread; median ms per call over rounds, wall and CPU time)');
  console.log('  model          forward 256 tokens + attention      decoding step at 255');
  for (const r of rows) {
    const cell = (x) => `${x.ms.toFixed(2).padStart(8)} ms (cpu ${x.cpu.toFixed(2)})`;
    console.log(`  ${r.name.padEnd(14)} ${cell(r.forward).padEnd(35)} ${cell(r.decode)}   [T=${r.T}; ${r.config}]`);
  }
  for (const r of rows) {
    const n = r.next_loop;
    console.log(`  ${r.name}: ${n.tokens} greedy tokens, generate ${(1000 * n.generate_ms).toFixed(1)} us per token, next() on a growing array ${(1000 * n.next_ms).toFixed(1)} us per token (${n.ratio.toFixed(2)}x, median of the rounds' ratios)`);
    console.log(`  ${r.name}: tokens() of 2,000 ids with their places ${r.tokens_2000.ms.toFixed(2)} ms (cpu ${r.tokens_2000.cpu.toFixed(2)})`);
  }
  if (attention) {
    const a = attention;
    console.log(`  ${a.name}: forward ${a.T} tokens with every layer's attention returned ${a.base_ms.toFixed(2)} ms, without ${a.fast_ms.toFixed(2)} ms `
      + `(${a.speedup.toFixed(3)}x, median of ${a.pairs} back-to-back pairs; CPU ${a.cpu_speedup.toFixed(3)}x)`);
  }
}
