// Regression tests that a refused call leaves the module exactly as it was: on both thread counts, every public
// function is called well, then badly (wrong lengths, shapes, values, types: each refused with a coded Error), then
// well again, and every good result must equal, bit for bit, the same good calls on a fresh module. Once, a refused
// lb.attention resized the staging buffer a kept JS view pointed into, and the next call computed on freed memory.
// Not the other hostile inputs (hardening.test.mjs) or the random campaigns (fuzz.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { windowWeights } from './window-weights.mjs';

const WEB = new URL('../../web/', import.meta.url);
// A module of its own: loadLookback shares one per base URL and thread count, and the query makes the key
// distinct while build/ resolves to the same files.
const freshModule = (threads, tag) => loadLookback({ threads, baseUrl: new URL(`?${tag}`, WEB) });

let seed = 11;
const rand = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return lo + (hi - lo) * (seed / 2 ** 32);
});

const CONFIG = {
  arch: 'test', dim: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, hidden_dim: 64, vocab_size: 258,
  max_seq_len: 24, rope_layout: 'half', qk_norm: true, mlp: 'swiglu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const WINDOW_CONFIG = { arch: 'window', window: 3, embed_dim: 4, hidden_dim: 8, vocab_size: 258 };

const WINDOW_WEIGHTS = windowWeights(WINDOW_CONFIG, () => rand(1, -0.5, 0.5)[0]);

// The inputs of the good calls, made once so that every module sees the same values.
const T = 6, H = 2, D = 8;
const Q = rand(T * H * D), K = rand(T * H * D), V = rand(T * H * D);
const BIG = { q: rand(40 * 4 * 16), k: rand(40 * 4 * 16), v: rand(40 * 4 * 16) };
const A = rand(5 * 7), B = rand(7 * 3), X = rand(3 * 5);
const WB = rand(16 * 12), WA = rand(12 * 9), WEIGHTS = rand(H * T * T, 0, 1);
const PROMPT = 'a cat sat';

// Each case: the good call and the bad calls on one module's api `lb` and its models `m` (transformer) and `w`
// (window model). A good call returns what is compared; a bad call must throw.
const CASES = {
  scores: {
    good: (lb) => lb.scores(Q, K, { T, heads: H, d: D }),
    bad: [(lb) => lb.scores(Q, K.subarray(1), { T, heads: H, d: D }), (lb) => lb.scores(rand(100), K, { T: 256, d: 64 })],
  },
  causalMask: { good: (lb) => lb.causalMask(5, 7), bad: [(lb) => lb.causalMask(7, 5), (lb) => lb.causalMask(1e9)] },
  paddingMask: { good: (lb) => lb.paddingMask(3, 5, 2), bad: [(lb) => lb.paddingMask(3, 5, 9)] },
  softmax: {
    good: (lb) => lb.softmax(X, { rows: 3 }),
    bad: [(lb) => lb.softmax(X, { rows: 4 }), (lb) => lb.softmax(Float32Array.of(1, NaN), { rows: 1 })],
  },
  blend: {
    good: (lb) => lb.blend(WEIGHTS, V, { T, heads: H, d: D }),
    bad: [(lb) => lb.blend(rand(3), V, { T, heads: H, d: D })],
  },
  attention: {
    good: (lb) => [lb.attention(Q, K, V, { T, heads: H, d: D, causal: true }),
      lb.attention(BIG.q, BIG.k, BIG.v, { T: 40, heads: 4, d: 16, causal: true, weights: false })],
    bad: [
      (lb) => lb.attention(rand(100), K, V, { T: 256, d: 64 }),  // the checked path, a size bigger than any before
      (lb) => lb.attention(Q, K, rand(T * H * D + 1), { T, heads: H, d: D }),
      (lb) => lb.attention(Float32Array.of(...Q.subarray(1), NaN), K, V, { T, heads: H, d: D }),  // the fast path
      (lb) => lb.attention(Q, K, V, { T, heads: H, d: D, mask: new Uint8Array(3) }),
      (lb) => lb.attention(Q, K, V, { T, heads: H, d: D, out: new Float32Array(2) }),
      (lb) => lb.attention(rand(64 * 64), rand(64 * 64), rand(64 * 64), { T: 64, d: 64, scale: 1e37 }),
    ],
  },
  attentionRow: {
    good: (lb) => lb.attentionRow(Q, K, V, { T, heads: H, d: D, head: 1, query: 3 }),
    bad: [(lb) => lb.attentionRow(Q, K, V, { T, heads: H, d: D, head: 2, query: 3 }),
      (lb) => lb.attentionRow(rand(100), K, V, { T: 256, d: 64, query: 0 })],
  },
  gemm: {
    good: (lb) => lb.gemm(A, B, { M: 5, N: 3, K: 7 }),
    bad: [(lb) => lb.gemm(rand(1000), B, { M: 100, N: 3, K: 10 }), (lb) => lb.gemm(A, B, { M: 5, N: 3, K: 7, out: new Float32Array(1) })],
  },
  dot: { good: (lb) => lb.dot(A, A), bad: [(lb) => lb.dot(A, B), (lb) => lb.dot(Float32Array.of(Infinity), Float32Array.of(1))] },
  weight: {
    good: (lb, { weight }) => [weight.gemm(WA.subarray(0, 16 * 2).slice(), { M: 2 }), weight.gemm(Array.from(WA.subarray(0, 16 * 5)), { M: 5 })],
    bad: [(lb, { weight }) => weight.gemm(rand(12 * 300), { M: 301 }), (lb, { weight }) => weight.gemm(rand(12), { M: 1, out: new Float32Array(3) }),
      (lb) => lb.weight(rand(5), { K: 16, N: 12 })],
  },
  randomWeights: { good: (lb) => lb.randomWeights(CONFIG, { seed: 3 }), bad: [(lb) => lb.randomWeights({ ...CONFIG, dim: -1 })] },
  encode: { good: (lb, { m }) => m.encode(PROMPT), bad: [(lb, { m }) => m.encode(5)] },
  decode: { good: (lb, { m }) => m.decode([0, 99, 100]), bad: [(lb, { m }) => m.decode([0, 999]), (lb, { m }) => m.decode([0.5])] },
  tokens: { good: (lb, { m }) => m.tokens(PROMPT), bad: [(lb, { m }) => m.tokens([-1])] },
  window: { good: (lb, { m }) => m.window([0, 5, 6, 7], 2), bad: [(lb, { m }) => m.window([0, 5], 0)] },
  forward: {
    good: (lb, { m }) => m.forward(PROMPT, { attention: true }),
    bad: [(lb, { m }) => m.forward('x'.repeat(100)), (lb, { m }) => m.forward([0, 1e6]), (lb, { m }) => m.forward([])],
  },
  next: {
    good: (lb, { m }) => m.next(PROMPT, { topK: 5 }),
    bad: [(lb, { m }) => m.next(PROMPT, { topK: 0 }), (lb, { m }) => m.next(PROMPT, { temperature: -1 })],
  },
  generate: {
    good: (lb, { m }) => m.generate(PROMPT, { maxTokens: 5, seed: 2 }),
    bad: [(lb, { m }) => m.generate(PROMPT, { topP: 2 }), (lb, { m }) => m.generate(PROMPT, { maxTokens: -1 })],
  },
  stream: {
    good: async (lb, { m }) => {
      const out = [];
      for await (const t of m.stream(PROMPT, { maxTokens: 4, seed: 2 })) out.push(t);
      return out;
    },
    bad: [async (lb, { m }) => {
      for await (const t of m.stream(PROMPT, { seed: -3 })) void t;
    }],
  },
  headScores: {
    good: (lb, { m }) => m.headScores([PROMPT], { repeats: 1, repeatLength: 4 }),
    bad: [(lb, { m }) => m.headScores([[0, 1]]), (lb, { m }) => m.headScores([PROMPT], { repeatLength: 1000 })],
  },
  windowNext: { good: (lb, { w }) => w.next(PROMPT, { topK: 4 }), bad: [(lb, { w }) => w.next([0, 900])] },
  loadModel: {
    good: async (lb) => (await lb.loadModel(lb.randomWeights(CONFIG, { seed: 4 }), { config: CONFIG, tokenizer: TOKENIZER })).next('ab', { topK: 3 }),
    bad: [async (lb) => lb.loadModel(lb.randomWeights(CONFIG, { seed: 4 }), { config: { ...CONFIG, dim: 64 }, tokenizer: TOKENIZER }),
      async (lb) => lb.loadModel(new Uint8Array(100), { config: CONFIG, tokenizer: TOKENIZER })],
  },
};

async function context(lb) {
  const m = await lb.loadModel(lb.randomWeights(CONFIG, { seed: 9 }), { config: CONFIG, tokenizer: TOKENIZER });
  const w = await lb.loadModel(WINDOW_WEIGHTS, { config: WINDOW_CONFIG, tokenizer: TOKENIZER });
  return { m, w, weight: lb.weight(WB, { K: 16, N: 12 }) };
}

// Float32Arrays and the like compared bit for bit (NaN included), other values deeply.
function same(a, b, where) {
  if (ArrayBuffer.isView(a)) {
    assert.ok(ArrayBuffer.isView(b) && a.constructor === b.constructor && a.length === b.length, `${where}: a ${a.constructor.name} of ${a.length}`);
    assert.ok(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)), `${where}: not the same bits`);
  } else if (a !== null && typeof a === 'object') {
    assert.deepEqual(Object.keys(a), Object.keys(b), where);
    for (const key of Object.keys(a)) same(a[key], b[key], `${where}.${key}`);
  } else {
    assert.equal(a, b, where);
  }
}

for (const threads of [1, 2]) {
  test(`a refused call leaves the module as it was: a good call after each bad one equals a fresh module (${threads} thread${threads > 1 ? 's' : ''})`, async () => {
    const used = await freshModule(threads, `failed-calls-used-${threads}`);
    const fresh = await freshModule(threads, `failed-calls-fresh-${threads}`);
    assert.notEqual(used, fresh);
    assert.equal(used.threads(), threads);
    const [u, f] = [await context(used), await context(fresh)];
    // the fresh module makes the same good calls in the same order (a model's cache makes a repeated call differ
    // from a first one in the last bits, as documented), and none of the bad ones
    for (const [name, { good, bad }] of Object.entries(CASES)) {
      same(await good(used, u), await good(fresh, f), `${name} before`);
      for (const [i, call] of bad.entries()) {
        await assert.rejects(async () => call(used, u), (e) => e instanceof Error && typeof e.code === 'string', `${name}: bad call ${i} is a coded Error`);
        same(await good(used, u), await good(fresh, f), `${name} after bad call ${i}`);
      }
    }
    // and, after all of them, every good call once more in another order
    for (const [name, { good }] of Object.entries(CASES).reverse()) same(await good(used, u), await good(fresh, f), `${name} at the end`);
  });
}
