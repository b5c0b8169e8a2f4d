// Every refusal of the JS API carries a `code` (README: "every Error the API throws on purpose"): this test walks
// every public function of the API, a model, a window model, a resident weight and a training run, with
// arguments each refuses, and checks the code of each Error; every public name must be in the walk, so a new
// function without coded refusals fails here. Not what the messages say (each feature's own tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';

const lb = await loadLookback();
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 1, n_heads: 2, n_kv_heads: 1, head_dim: 8, hidden_dim: 24, vocab_size: 258,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const WEIGHTS = lb.randomWeights(CONFIG);
const load = () => lb.loadModel(WEIGHTS, { config: CONFIG, tokenizer: TOKENIZER });
const f = (n) => new Float32Array(n);
const BAD = 'LOOKBACK_BAD_ARGUMENT';

// name -> [[call, code], ...]; each call must throw (or reject) an Error with that code.
const API = {
  simdWidth: [], threads: [], heapBytes: [], modelFormats: [],  // take no arguments: nothing to refuse
  scores: [[() => lb.scores(f(3), f(4), { T: 2, d: 2 }), BAD], [() => lb.scores(f(4), f(4), { T: 2, d: 2, x: 1 }), BAD], [() => lb.scores(f(4), f(4)), BAD]],
  causalMask: [[() => lb.causalMask(0), BAD], [() => lb.causalMask('3'), BAD], [() => lb.causalMask(3, 2), BAD]],
  paddingMask: [[() => lb.paddingMask(2, 2, 3), BAD], [() => lb.paddingMask(2), BAD]],
  softmax: [[() => lb.softmax(f(4), { rows: 3 }), BAD], [() => lb.softmax(['a']), BAD], [() => lb.softmax(f(2), { temperature: 0 }), BAD]],
  blend: [[() => lb.blend(f(3), f(4), { T: 2, d: 2 }), BAD]],
  attention: [[() => lb.attention(f(3), f(4), f(4), { T: 2, d: 2 }), BAD], [() => lb.attention(f(4), f(4), f(4), { T: 2, d: 2, mask: f(4) }), BAD],
    [() => lb.attention(f(4), f(4), f(4), { T: 2, d: 2, out: [] }), BAD], [() => lb.attention(f(4), f(4), f(4), { T: 2, d: 2, scale: 'x' }), BAD]],
  attentionRow: [[() => lb.attentionRow(f(4), f(4), f(4), { T: 2, d: 2, query: 5 }), BAD], [() => lb.attentionRow(f(4), f(4), f(4), { T: 2, d: 2 }), BAD]],
  gemm: [[() => lb.gemm(f(4), f(4), { M: 2, N: 2, K: 3 }), BAD], [() => lb.gemm(f(4), f(4), { M: 2, N: 2, K: 2, out: f(1) }), BAD]],
  dot: [[() => lb.dot(f(2), f(3)), BAD], [() => lb.dot(null, f(3)), BAD], [() => lb.dot(Float32Array.of(NaN), f(1)), BAD]],
  weight: [[() => lb.weight(f(3), { K: 2, N: 2 }), BAD], [() => lb.weight(f(4), { K: 2 }), BAD], [() => lb.weight(f(4), { K: 2, N: 2, transB: 1 }), BAD]],
  randomWeights: [[() => lb.randomWeights({ ...CONFIG, dim: 0 }), BAD], [() => lb.randomWeights(CONFIG, { format: 'onnx' }), BAD], [() => lb.randomWeights(5), BAD]],
  loadModel: [
    [() => lb.loadModel('data:application/octet-stream;base64,AAAA'), BAD],
    [() => lb.loadModel('blob:nothing'), BAD],
    [() => lb.loadModel('no-such-model'), 'LOOKBACK_NOT_FOUND'],
    [() => lb.loadModel('/no/such/dir/model.bin', { tokenizer: '/no/such/tok.bin' }), 'LOOKBACK_NOT_FOUND'],
    [() => lb.loadModel(WEIGHTS, { config: { ...CONFIG, dim: 32 }, tokenizer: TOKENIZER }), 'LOOKBACK_BAD_MODEL'],
    [() => lb.loadModel(WEIGHTS, { config: CONFIG, tokenizer: JSON.stringify({ model: { type: 'BPE' } }) }), 'LOOKBACK_UNSUPPORTED_FORMAT'],
    [() => lb.loadModel(WEIGHTS, { config: CONFIG, tokenizer: TOKENIZER, weights: 'q3' }), BAD],
    [() => lb.loadModel(WEIGHTS, { config: CONFIG, tokenizer: TOKENIZER, signal: AbortSignal.abort() }), 'LOOKBACK_ABORTED'],
    [() => lb.loadModel(WEIGHTS), BAD], [() => lb.loadModel({}), BAD], [() => lb.loadModel(7), BAD],
  ],
  train: [[() => lb.train({ layers: 0 }), BAD], [() => lb.train({}, { task: 'constructor' }), BAD], [() => lb.train({}, { onStep: 5 }), BAD],
    [() => lb.train({}, { chunk: 0 }), BAD], [() => lb.train({ dim: 'x' }), BAD], [() => lb.train({}, { lr: -1 }), BAD], [() => lb.train({}, { steps: 1.5 }), BAD]],
};

async function code(call) {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof Error, `${call}: threw ${e}`);
    return e.code;
  }
  assert.fail(`${call}: did not throw`);
}

test('every public function of the API refuses with a coded Error, and the walk covers every one', async () => {
  assert.deepEqual(Object.keys(lb).sort(), Object.keys(API).sort(), 'a public function is missing from the walk');
  for (const [name, cases] of Object.entries(API)) {
    for (const [call, want] of cases) assert.equal(await code(call), want, `${name}: ${call}`);
  }
});

// The public methods of an object's classes (as the worker lists them).
function methodsOf(o) {
  const names = new Set();
  for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      if (typeof Object.getOwnPropertyDescriptor(p, name).value === 'function' && name !== 'constructor' && !name.startsWith('_')) names.add(name);
    }
  }
  return [...names].sort();
}

const MODEL = {
  encode: [(m) => m.encode(5), (m) => m.encode('a', { bos: 1 })],
  decode: [(m) => m.decode([1e6]), (m) => m.decode({}), (m) => m.decode([Symbol('s')])],
  tokens: [(m) => m.tokens([-1]), (m) => m.tokens(null)],
  decodeTokens: [(m) => m.decodeTokens([-1]), (m) => m.decodeTokens('a', { bos: 1 })],
  window: [(m) => m.window([0], 0), (m) => m.window('x', '2')],
  forward: [(m) => m.forward([]), (m) => m.forward('x'.repeat(40)), (m) => m.forward('a', { attention: 'yes' })],
  next: [(m) => m.next('a', { topK: 0 }), (m) => m.next('a', { temperature: Infinity })],
  generate: [(m) => m.generate('a', { topP: 0 }), (m) => m.generate('a', { seed: -1 })],
  stream: [async (m) => m.stream('a', { maxTokens: -1 }).next(), async (m) => m.stream('a', { what: 1 }).next()],
  headScores: [(m) => m.headScores('abc'), (m) => m.headScores([[0, 1]]), (m) => m.headScores(['abcdef'], { best: -1 })],
  dispose: [],
};

test('every method of a model refuses with a coded Error; after dispose() every one is LOOKBACK_DISPOSED', async () => {
  const m = await load();
  assert.deepEqual(methodsOf(m), Object.keys(MODEL).sort());
  for (const [name, calls] of Object.entries(MODEL)) {
    for (const call of calls) assert.equal(await code(() => call(m)), BAD, `${name}: ${call}`);
  }
  m.dispose();
  const good = { encode: ['a'], decode: [[0]], tokens: ['a'], decodeTokens: ['a'], window: [[0], 1], forward: ['a'], next: ['a'], generate: ['a'], headScores: [['abc']] };
  for (const [name, args] of Object.entries(good)) assert.equal(await code(() => m[name](...args)), 'LOOKBACK_DISPOSED', name);
  assert.equal(await code(() => m.stream('a').next()), 'LOOKBACK_DISPOSED');
  m.dispose();  // twice is fine
});

test('a window model, a resident weight and a training run: coded refusals, LOOKBACK_DISPOSED after dispose()', async () => {
  const win = await lb.loadModel('window');
  assert.deepEqual(methodsOf(win), ['decode', 'decodeTokens', 'dispose', 'encode', 'next', 'tokens']);
  for (const name of ['encode', 'decode', 'tokens', 'decodeTokens', 'next']) {
    for (const call of MODEL[name] ?? []) assert.equal(await code(() => call(win)), BAD, `window ${name}: ${call}`);
  }
  win.dispose();
  for (const [name, args] of [['encode', ['a']], ['decode', [[0]]], ['tokens', ['a']], ['decodeTokens', ['a']], ['next', ['a']]]) {
    assert.equal(await code(() => win[name](...args)), 'LOOKBACK_DISPOSED', `window ${name}`);
  }

  const w = lb.weight(f(4), { K: 2, N: 2 });
  assert.deepEqual(methodsOf(w), ['dispose', 'gemm']);
  for (const call of [() => w.gemm(f(3), { M: 2 }), () => w.gemm(f(4)), () => w.gemm(f(4), { M: 2, out: f(3) })]) assert.equal(await code(call), BAD);
  w.dispose();
  assert.equal(await code(() => w.gemm(f(4), { M: 2 })), 'LOOKBACK_DISPOSED');
  assert.equal(await code(() => w.gemm([1, 2, 3, 4], { M: 2 })), 'LOOKBACK_DISPOSED');

  const t = await lb.train({ layers: 1, dim: 16, heads: 2, seqLen: 16 }, { steps: 2, batch: 2, heldOut: 2 });
  assert.deepEqual(methodsOf(t), ['bundle', 'dispose', 'evaluate', 'model', 'pause', 'run', 'step']);
  for (const call of [() => t.step(0), () => t.step(1.5), () => t.run({ until: 'x' })]) assert.equal(await code(call), BAD, String(call));
  t.dispose();
  for (const call of [() => t.step(), () => t.evaluate(), () => t.bundle(), () => t.model(), () => t.run()]) {
    assert.equal(await code(call), 'LOOKBACK_DISPOSED', String(call));
  }
});
