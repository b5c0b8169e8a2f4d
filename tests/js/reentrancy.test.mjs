// Regression tests of JS inputs that run code of the caller's while they are read (getters, valueOf, Proxy traps,
// typed-array subclasses) and of ids of other kinds (BigInt64Array, BigInts, Symbols): every input is converted
// into a plain array before the core is entered, so such code runs before the call, a model it disposes is a
// coded Error and never a freed model, a call it makes re-entrantly cannot disturb the outer one, and refused ids
// leak nothing. Not the other hostile inputs (hardening.test.mjs, failed-calls.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { windowWeights } from './window-weights.mjs';

const lb = await loadLookback();

const CONFIG = {
  arch: 'test', dim: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, hidden_dim: 64, vocab_size: 258,
  max_seq_len: 32, rope_layout: 'half', qk_norm: true, mlp: 'swiglu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const WEIGHTS = lb.randomWeights(CONFIG, { seed: 5 });
const load = () => lb.loadModel(WEIGHTS, { config: CONFIG, tokenizer: TOKENIZER });
const IDS = [0, 72, 105, 33, 40, 41];

// Every way of reading ids that runs code: a getter on an element, a length getter, a Proxy, an array-like
// object; each calls `act` while the ids are read.
function hostileIds(ids, act) {
  const withGetter = [...ids];
  Object.defineProperty(withGetter, 2, { get: () => (act(), ids[2]), enumerable: true });
  const withLength = { 0: ids[0], get length() { act(); return ids.length; } };
  for (let i = 1; i < ids.length; i++) withLength[i] = ids[i];
  const proxy = new Proxy([...ids], { get: (t, key) => (key === '3' && act(), t[key]) });
  return { withGetter, withLength, proxy };
}

// Each model method that takes ids, and how it is called.
const METHODS = {
  forward: (m, ids) => m.forward(ids),
  next: (m, ids) => m.next(ids),
  generate: (m, ids) => m.generate(ids, { maxTokens: 2 }),
  stream: async (m, ids) => {
    for await (const t of m.stream(ids, { maxTokens: 2 })) void t;
  },
  decode: (m, ids) => m.decode(ids),
  tokens: (m, ids) => m.tokens(ids),
  window: (m, ids) => m.window(ids, 4),
  headScores: (m, ids) => m.headScores([ids], { repeats: 0 }),
};

test('ids whose reading disposes the model: a coded Error after the conversion, never a freed model', async () => {
  const other = await load();
  const fresh = (await load()).forward(IDS).logits;
  other.forward(IDS);
  const expected = other.forward(IDS).logits;  // the cached path (a repeated text), as the check below takes
  for (const [name, call] of Object.entries(METHODS)) {
    for (const kind of ['withGetter', 'withLength', 'proxy']) {
      const m = await load();
      const ids = hostileIds(IDS, () => m.dispose())[kind];
      await assert.rejects(async () => call(m, ids), (e) => e.code === 'LOOKBACK_DISPOSED' && /disposed/.test(e.message), `${name} ${kind}`);
      await assert.rejects(async () => call(m, IDS), (e) => e.code === 'LOOKBACK_DISPOSED', `${name} ${kind} again`);
    }
  }
  // the module goes on: another model, loaded before and after, computes what it did
  assert.deepEqual(other.forward(IDS).logits, expected);
  assert.deepEqual((await load()).forward(IDS).logits, fresh);
});

test('ids whose reading runs another call on the same model: each call sees its own ids', async () => {
  const m = await load();
  const plain = m.forward(IDS);
  for (const [kind, ids] of Object.entries(hostileIds(IDS, () => m.forward([5, 6, 7, 8, 9])))) {
    assert.deepEqual(m.forward(ids).logits, plain.logits, kind);
  }
  const window = await lb.loadModel(windowWeights(WINDOW_CONFIG, (i) => Math.sin(i) / 4), { config: WINDOW_CONFIG, tokenizer: TOKENIZER });
  const want = window.next(IDS);
  const doomed = hostileIds(IDS, () => window.dispose()).proxy;
  assert.deepEqual(window.next(hostileIds(IDS, () => window.next([0, 9, 9])).withGetter), want);
  assert.throws(() => window.next(doomed), (e) => e.code === 'LOOKBACK_DISPOSED');
});

const WINDOW_CONFIG = { arch: 'window', window: 3, embed_dim: 4, hidden_dim: 8, vocab_size: 258 };
test('arrays whose reading calls the core again (a Proxy, a subclass whose set runs code) get the result of a plain call', () => {
  const T = 5, d = 4, n = T * d;
  const q = Float32Array.from({ length: n }, (_, i) => Math.sin(i)), k = q.map((x) => x / 2), v = q.map((x) => -x);
  const plain = lb.attention(q, k, v, { T, d, causal: true });
  const again = () => lb.attention(new Float32Array(64 * 64).fill(1), new Float32Array(64 * 64), new Float32Array(64 * 64), { T: 64, d: 64 });
  const proxy = (a) => new Proxy(a, { get: (t, key) => (key === '0' && again(), typeof t[key] === 'function' ? t[key].bind(t) : t[key]) });
  assert.deepEqual(lb.attention(proxy(q), proxy(k), proxy(v), { T, d, causal: true }).output, plain.output);
  class Loud extends Float32Array {
    set(...args) {
      again();
      return super.set(...args);
    }
  }
  const out = new Loud(n);
  const r = lb.attention(Loud.from(q), Loud.from(k), Loud.from(v), { T, d, causal: true, out });
  assert.equal(r.output, out, 'the result is written into the caller\'s out');
  assert.deepEqual(Float32Array.from(out), plain.output);
  const a = Float32Array.from({ length: 12 }, (_, i) => i / 7), b = a.map((x) => 1 - x);
  const product = lb.gemm(a, b, { M: 3, N: 3, K: 4 });
  const into = new Loud(9);
  assert.equal(lb.gemm(proxy(a), Loud.from(b), { M: 3, N: 3, K: 4, out: into }), into);
  assert.deepEqual(Float32Array.from(into), product);
  const w = lb.weight(b, { K: 4, N: 3 });
  assert.deepEqual(Float32Array.from(w.gemm(proxy(a), { M: 3, out: new Loud(9) })), w.gemm(a, { M: 3 }));
  const mask = new Proxy(lb.causalMask(T), { get: (t, key) => (key === '0' && again(), typeof t[key] === 'function' ? t[key].bind(t) : t[key]) });
  assert.deepEqual(lb.attention(q, k, v, { T, d, mask }).output, plain.output);
});

test('ids as a BigInt64Array, BigUint64Array or BigInts are token ids; Symbols, strings and objects are coded TypeErrors', async () => {
  const m = await load();
  m.forward(IDS);
  const want = m.forward(IDS).logits;  // the cached path (a repeated text), as the calls below take
  const bigs = IDS.map(BigInt);
  for (const ids of [BigInt64Array.from(bigs), BigUint64Array.from(bigs), bigs]) {
    assert.deepEqual(m.forward(ids).logits, want, ids.constructor.name);
    assert.equal(m.decode(ids), m.decode(IDS));
    assert.deepEqual(m.tokens(ids).map((t) => t.id), IDS);
  }
  assert.throws(() => m.forward([0n, 2n ** 64n]), (e) => e instanceof TypeError && e.code === 'LOOKBACK_BAD_ARGUMENT' && /ids\[1\]/.test(e.message));
  assert.throws(() => m.forward(BigInt64Array.of(0n, -1n)), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT' && /ids\[1\] is -1/.test(e.message));
  for (const bad of [Symbol('x'), '5', { valueOf: () => 5 }, null, [5]]) {
    for (const call of Object.values(METHODS)) {
      await assert.rejects(async () => call(m, [0, bad]), (e) => e instanceof TypeError && e.code === 'LOOKBACK_BAD_ARGUMENT'
        && /ids\[1\] must be a number or a BigInt/.test(e.message), String(typeof bad));
    }
  }
});

test('refused ids leak no memory: 2,000 calls with BigInt64Array, Symbol and string ids', async () => {
  const m = await load();
  const run = () => {
    for (let i = 0; i < 500; i++) {
      m.forward(BigInt64Array.from([0n, 5n, BigInt(i % 200)]));
      for (const bad of [[0, Symbol('s')], [0, 'x'], [0, 2n ** 70n]]) assert.throws(() => m.next(bad), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT');
    }
  };
  run();
  const before = lb.heapBytes();
  run();
  assert.equal(lb.heapBytes(), before);
});
