// Regression tests of hostile inputs to the JS API and the model loaders: deeply nested JSON, floats that float32
// cannot carry, lone surrogates, safetensors sizes of 2^32 and more, loose types, texts far beyond the context,
// undisposed models, and the cached path against a fresh model. Each case once failed (a RangeError, a leak, NaN,
// a wrapped size, a silent coercion). Not the random campaigns (fuzz.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { windowWeights as windowWeightsOf } from './window-weights.mjs';

const lb = await loadLookback();

const SPROUT = fileURLToPath(new URL('../../shared/models/sprout/', import.meta.url));

// a model big enough (2.7 MB of weights) that a leak of its copy shows in the heap
const CONFIG = {
  arch: 'test', dim: 128, n_layers: 4, n_heads: 4, n_kv_heads: 2, head_dim: 32, hidden_dim: 256, vocab_size: 258,
  max_seq_len: 64, rope_layout: 'half', qk_norm: true, mlp: 'swiglu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const WEIGHTS = lb.randomWeights(CONFIG, { seed: 5 });
const load = (weights = WEIGHTS, config = CONFIG, tokenizer = TOKENIZER) => lb.loadModel(weights, { config, tokenizer });
const model = await load();

const deep = (n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArray = (n) => `${'['.repeat(n)}${']'.repeat(n)}`;

// A safetensors file with its header replaced (padded to 8 bytes) and the same data.
function withHeader(bytes, edit) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  let text = typeof edit === 'function' ? JSON.stringify(edit(header)) : edit;
  text += ' '.repeat((8 - (new TextEncoder().encode(text).length % 8)) % 8);
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + head.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  out.set(bytes.subarray(8 + n), 8 + head.length);
  return out;
}

// Raw JSON text with one tensor's numbers replaced (numbers past 2^53 cannot go through JSON.parse).
function rawEdit(bytes, name, field, values) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const text = new TextDecoder().decode(bytes.subarray(8, 8 + n)).trimEnd();
  const at = text.indexOf(`"${name}"`);
  const start = text.indexOf(`"${field}":[`, at) + field.length + 4;
  const end = text.indexOf(']', start);
  return withHeader(bytes, text.slice(0, start) + values + text.slice(end));
}

// A window model's safetensors file (float32) for a config, every weight `value`.
const windowWeights = (config, value) => windowWeightsOf(config, () => value);

async function rejects(p, re) {
  let error;
  try {
    await p;
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected an error matching ${re}`);
  assert.equal(error.constructor, Error, `a library Error, not ${error.constructor.name}: ${error.message}`);
  assert.match(error.message, re);
}

test('JSON nested 10,000 deep in config.json, tokenizer.json or the safetensors header: an Error, and no leak', async () => {
  const cases = [
    () => load(WEIGHTS, deep(10000)),
    () => load(WEIGHTS, CONFIG, deep(10000)),
    () => load(WEIGHTS, CONFIG, `{"merges":${deepArray(20000)}}`),
    () => load(withHeader(WEIGHTS, deep(10000))),
    () => load(withHeader(WEIGHTS, `{"x":${deepArray(100000)}}`)),
  ];
  for (const c of cases) await rejects(c(), /nested more than 64 levels deep/);
  assert.throws(() => lb.randomWeights(deep(10000)), /nested more than 64 levels deep/);
  const before = lb.heapBytes();
  for (let i = 0; i < 10; i++) for (const c of cases) await rejects(c(), /nested more than 64 levels deep/);
  assert.equal(lb.heapBytes(), before, 'failed loads freed everything they copied');
  assert.equal((await load()).next('ok', { topK: 1 }).length, 1);
});

test('temperatures and scales that float32 cannot carry are errors, never NaN', () => {
  const q = new Float32Array(8).fill(1e20);
  const cases = [
    [() => lb.softmax([1, 2, 3], { temperature: 1e-39 }), /temperature must be .* in \[1e-30, 1e\+?30\]/],
    [() => lb.attention(q, q, q, { T: 2, d: 4, scale: false }), /score .* beyond float32/],
    [() => lb.attention([1, 2], [3, 4], [5, 6], { T: 1, d: 2, temperature: 1e-39 }), /temperature/],
    [() => lb.attention([1, 2], [3, 4], [5, 6], { T: 1, d: 2, scale: 1e39 }), /scale/],
    [() => lb.scores([1, 2], [3, 4], { T: 1, d: 2, scale: 1e39 }), /scale/],
    [() => lb.scores(q, q, { T: 2, d: 4, scale: false }), /beyond float32/],
    [() => lb.gemm([3e38], [2], { M: 1, N: 1, K: 1 }), /beyond float32/],
    [() => lb.dot([3e38, 3e38], [1, 1]), /beyond float32/],
    [() => lb.blend([1, 1], [3e38, 3e38], { T: 1, S: 2, d: 1 }), /beyond float32/],
    [() => model.next('Hi', { temperature: 1e-50 }), /temperature/],
    [() => model.generate('Hi', { temperature: 1e-50 }), /temperature/],
  ];
  for (const [f, re] of cases) assert.throws(f, re);
  assert.equal(model.generate('Hi', { temperature: 0, maxTokens: 2 }).ids.length, 2, 'temperature 0 still means greedy');
  const tiny = lb.softmax([1, 2, 3], { temperature: 1e-30 }).weights;
  assert.deepEqual(Array.from(tiny), [0, 0, 1]);
});

test('attentionRow and a resident weight matrix share the float32 bounds of attention and gemm', () => {
  const q = new Float32Array(8).fill(1e20);
  assert.throws(() => lb.attentionRow(q, q, q, { T: 2, d: 4, scale: false, query: 0 }), /score .* beyond float32/);
  assert.throws(() => lb.attentionRow([1, 2], [3, 4], [5, 6], { T: 1, d: 2, temperature: 1e-39, query: 0 }), /temperature/);
  assert.throws(() => lb.attentionRow([1, 2], [3, 4], [5, 6], { T: 1, d: 2, scale: 1e39, query: 0 }), /scale/);
  assert.throws(() => lb.attentionRow([1, 2], [3, 4], [5, 6], { T: '1', d: 2, query: 0 }), TypeError);
  const w = lb.weight([2], { K: 1, N: 1 });
  try {
    assert.throws(() => w.gemm([3e38], { M: 1 }), /beyond float32/);
    assert.deepEqual(Array.from(w.gemm([3], { M: 1 })), [6], 'the matrix stays usable');
  } finally {
    w.dispose();
  }
});

test('weights so large that the computation overflows: an Error, never NaN probabilities', async () => {
  const bytes = WEIGHTS.slice();
  const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
  const data = new Float32Array(bytes.buffer.slice(8 + n));
  for (let i = 0; i < data.length; i++) data[i] = i % 3 ? 1e15 : -1e15;  // 3e38 overflows the norms to zeros; 1e15 overflows later, to NaN
  const huge = new Uint8Array(bytes.length);
  huge.set(bytes.subarray(0, 8 + n));
  huge.set(new Uint8Array(data.buffer), 8 + n);
  const m = await load(huge);
  assert.throws(() => m.next('Hi'), /overflowed float32/);
  assert.throws(() => m.forward('Hi'), /overflowed float32/);
  assert.throws(() => m.generate('Hi', { maxTokens: 3 }), /overflowed float32/);
  m.dispose();
});

test('lone surrogates encode as U+FFFD, as TextEncoder does, and never swallow the next character', () => {
  for (const s of ['a\uD800b', 'a\uDC00b', '\uD800', 'x\uDBFF', '\uDFFF\uD800z', 'ok \uD83D\uDE00 ok']) {
    const expected = s.toWellFormed();
    assert.equal(model.decode(model.encode(s)), expected, JSON.stringify(s));
    assert.deepEqual(model.encode(s), model.encode(expected));
  }
  assert.deepEqual(model.tokens('a\uD800b').map((t) => t.text), ['◆', 'a', '<0xEF>', '<0xBF>', '<0xBD>', 'b']);
});

test('safetensors sizes of 2^32 and more are refused with their real values, before any narrowing', async () => {
  const name = 'layers.0.attention_norm.weight';
  await rejects(load(rawEdit(WEIGHTS, name, 'shape', String(2 ** 32 + 128))), /shape size 4294967424 is larger than 2147483647/);
  await rejects(load(rawEdit(WEIGHTS, name, 'shape', `${2 ** 32},${2 ** 32}`)), /shape size 4294967296/);
  const off = JSON.parse(new TextDecoder().decode(WEIGHTS.subarray(8, 8 + Number(new DataView(WEIGHTS.buffer).getBigUint64(0, true)))))[name].data_offsets;
  await rejects(load(rawEdit(WEIGHTS, name, 'data_offsets', `${off[0] + 2 ** 32},${off[1] + 2 ** 32}`)), /data_offsets \[429\d{7}, 429\d{7}\] run past the end/);
  await rejects(load(rawEdit(WEIGHTS, name, 'data_offsets', `${off[0]},${off[1] + 2 ** 32}`)), /run past the end/);
  await rejects(load(rawEdit(WEIGHTS, name, 'shape', `${2 ** 31},0`)), /larger than 2147483647/);
  await rejects(load(rawEdit(WEIGHTS, name, 'shape', `65536,65536`)), /more than \d+ bytes/);
});

test('loose types: integers must be numbers, ids must be arrays; any array-like of numbers is converted', () => {
  const q = [1, 2, 3, 4];
  const bad = [
    () => lb.scores(q, q, { T: '2', d: 2 }),
    () => lb.scores(q, q, { T: 2, d: 2, heads: true }),
    () => lb.attention(q, q, q, { T: 2, d: 2, S: '2' }),
    () => lb.softmax(q, { rows: '2' }),
    () => lb.softmax(q, { temperature: '1' }),
    () => lb.causalMask('3'),
    () => lb.paddingMask(2, '3', 1),
    () => lb.gemm(q, q, { M: 2, N: 2, K: 2, transB: 'yes' }),
    () => lb.dot(['1', 2], [3, 4]),
    () => model.next('Hi', { topK: '3' }),
    () => model.generate('Hi', { maxTokens: '3' }),
    () => model.tokens({}),
    () => model.forward({ length: 'x' }),
    () => model.decode({}),
    () => model.window([0, 5], '2'),
    () => model.headScores(['abcdef'], { best: -1 }),
    () => model.headScores(['abcdef'], { best: 1.5 }),
    () => model.encode('a', { bos: 1 }),
  ];
  for (const f of bad) assert.throws(f, (e) => e instanceof TypeError || e instanceof RangeError, f.toString());
  const want = lb.scores(Float32Array.from(q), Float32Array.from(q), { T: 2, d: 2 });
  for (const T of [Float64Array, Int8Array, Int32Array, Uint16Array, Array]) {
    assert.deepEqual(lb.scores(T.from(q), T.from(q), { T: 2, d: 2 }), want, T.name);
  }
  assert.deepEqual(lb.dot({ length: 2, 0: 1, 1: 2 }, new Float64Array([3, 4])), 11);
  assert.deepEqual(model.tokens(Int32Array.from([0, 99])).map((t) => t.id), [0, 99]);
  assert.deepEqual(model.tokens({ length: 2, 0: 0, 1: 99 }).map((t) => t.id), [0, 99]);
  assert.deepEqual(lb.softmax([0, 0], { mask: [true, false] }).weights, Float32Array.from([1, 0]));
});

test('a text far beyond the context with { window: true }: only its end is encoded, the same ids as the full encoding', () => {
  const words = ['the', 'cat', 'sat', '\n', 'on', '  ', 'a', 'mat.', '42', '\t', 'é', 'x\ry'];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 20; n++) {
    const text = Array.from({ length: 5 + Math.floor(rand() * 200) }, () => words[Math.floor(rand() * words.length)]).join(rand() < 0.5 ? ' ' : '');
    const full = model.window(model.encode(text));
    assert.deepEqual(model.forward(text, { window: true }).ids, full, JSON.stringify(text));
    assert.deepEqual(model.next(text, { window: true, topK: 3 }), model.next(full, { topK: 3 }));
  }
  const huge = 'Mia took her doll to the park. '.repeat(350000);  // 10.9 MB, more than 2^22 ids
  const r = model.next(huge, { window: true, topK: 2 });
  assert.equal(r.length, 2);
  assert.deepEqual(model.forward(huge, { window: true }).ids, model.window(model.encode(huge.slice(-2000))));
});

test('the window model gets the same checks: deep JSON, 64-bit sizes, surrogates, loose types, float32, long texts', async () => {
  const dir = new URL('../../shared/models/window/', import.meta.url);
  const [WW, WC, WT] = ['model.safetensors', 'config.json', 'tokenizer.json'].map((f) => readFileSync(new URL(f, dir)));
  const config = WC.toString(), tokenizer = WT.toString();
  const loadWindow = (weights = WW, c = config, t = tokenizer) => lb.loadModel(weights, { config: c, tokenizer: t });
  const win = await loadWindow();
  assert.equal(win.info.config.arch, 'window');
  // deeply nested JSON in the tokenizer or the safetensors header (a config must say "arch": "window" to come here)
  const deepCases = [
    () => loadWindow(WW, config, deep(10000)),
    () => loadWindow(WW, config, `{"merges":${deepArray(20000)}}`),
    () => loadWindow(withHeader(WW, deep(10000))),
    () => loadWindow(withHeader(WW, `{"x":${deepArray(100000)}}`)),
  ];
  for (const c of deepCases) await rejects(c(), /nested more than 64 levels deep/);
  const before = lb.heapBytes();
  for (let i = 0; i < 5; i++) for (const c of deepCases) await rejects(c(), /nested more than 64 levels deep/);
  assert.equal(lb.heapBytes(), before, 'failed loads freed everything they copied');
  // a config field of the wrong type: the loader's own message, not the JSON library's
  await rejects(loadWindow(WW, config.replace('"gelu"', '5')), /"activation" must be a string/);
  // safetensors sizes of 2^32 and more
  await rejects(loadWindow(rawEdit(WW, 'hidden.bias', 'shape', String(2 ** 32 + 384))), /shape size 4294967680 is larger than 2147483647/);
  const off = JSON.parse(new TextDecoder().decode(WW.subarray(8, 8 + Number(new DataView(WW.buffer, WW.byteOffset).getBigUint64(0, true)))))['hidden.bias'].data_offsets;
  await rejects(loadWindow(rawEdit(WW, 'hidden.bias', 'data_offsets', `${off[0] + 2 ** 32},${off[1] + 2 ** 32}`)), /run past the end/);
  // lone surrogates as U+FFFD
  for (const s of ['a\uD800b', '\uDFFF\uD800z', 'x\uDBFF']) {
    assert.equal(win.decode(win.encode(s)), s.toWellFormed(), JSON.stringify(s));
    assert.deepEqual(win.next(s, { topK: 3 }), win.next(s.toWellFormed(), { topK: 3 }));
  }
  // loose types
  const bad = [
    () => win.next('Hi', { topK: '3' }),
    () => win.next('Hi', { temperature: '1' }),
    () => win.tokens({}),
    () => win.next({ length: 'x' }),
    () => win.decode({}),
    () => win.encode('a', { bos: 1 }),
    () => win.encode(5),
  ];
  for (const f of bad) assert.throws(f, (e) => e instanceof TypeError && e.code === 'LOOKBACK_BAD_ARGUMENT', f.toString());
  assert.deepEqual(win.next({ length: 2, 0: 0, 1: 99 }, { topK: 2 }), win.next([0, 99], { topK: 2 }));
  assert.deepEqual(win.next(Int8Array.from([0, 99]), { topK: 2 }), win.next([0, 99], { topK: 2 }));
  // temperatures float32 cannot carry
  assert.throws(() => win.next('Hi', { temperature: 1e-50 }), /temperature must be .* in \[1e-30, 1e\+?30\]/);
  assert.throws(() => win.next('Hi', { temperature: 1e39 }), /temperature/);
  assert.ok(win.next('Hi', { topK: 3, temperature: 1e-30 }).every((t) => Number.isFinite(t.p)));
  // a text far beyond 2^22 ids: only its end is encoded
  const huge = 'Mia took her doll to the park. '.repeat(350000);
  assert.deepEqual(win.next(huge, { topK: 3 }), win.next(huge.slice(-2000), { topK: 3 }));
  // weights large enough to overflow float32 on the way (float32 weights of 1e20: 1e20 times 1e20 passes float32
  // in the hidden layer): an Error, never NaN probabilities
  const small = { arch: 'window', window: 2, embed_dim: 2, hidden_dim: 3, vocab_size: 258, bos_id: 0, eos_id: 1 };
  const over = await lb.loadModel(windowWeights(small, 1e20), { config: small, tokenizer: TOKENIZER });
  assert.throws(() => over.next('Hi'), /overflowed float32/);
  const fine = await lb.loadModel(windowWeights(small, 0.5), { config: small, tokenizer: TOKENIZER });
  assert.equal(fine.next('Hi', { topK: 2 }).length, 2, 'the same model with small weights predicts');
  fine.dispose();
  over.dispose();
  // the window model's loading errors are coded as the transformer's
  await assert.rejects(loadWindow(WW.subarray(0, 100)), (e) => e.code === 'LOOKBACK_BAD_MODEL');
  assert.equal(win.next('ok', { topK: 1 }).length, 1, 'the module stays usable');
  win.dispose();
});

test('messages print big numbers in full', () => {
  assert.throws(() => model.generate('Hi', { maxTokens: 1e7 }), /\[0, 1048576\] \(got 10000000\)/);
  assert.throws(() => lb.softmax([1], { rows: 2 ** 27 }), /67108864/);
});

test('undisposed models are freed by the registry once collected: their memory is reused by the next models', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const settle = async () => {
    for (let k = 0; k < 3; k++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 0));  // the registry's callbacks run in a task
    }
  };
  const round = async () => {
    let kept = [];
    for (let i = 0; i < 8; i++) kept.push(await load());
    kept.forEach((m) => m.next('Hi', { topK: 1 }));
    kept = null;
    await settle();
  };
  await round();
  const peak = lb.heapBytes();
  for (let r = 0; r < 4; r++) await round();
  assert.equal(lb.heapBytes(), peak, 'four more rounds of 8 undisposed models fit in the memory the first round freed');
});

test('after a cached prefix, forward and next agree with a fresh model to the documented 1e-4', async () => {
  const cached = await lb.loadModel(SPROUT), fresh = await lb.loadModel(SPROUT);
  const ids = cached.encode('Mia took her doll to the park. She sat on the bench and sang a song. Then Tom came');
  const bos = cached.info.config.bos_id;
  for (const cut of [1, 2, 3, 5, 9, ids.length - 3, ids.length - 1]) {
    cached.forward(ids.slice(0, cut));
    const got = cached.forward(ids);
    assert.equal(got.reused, cut);
    fresh.forward([bos]);
    const want = fresh.forward(ids).logits;
    for (let i = 0; i < want.length; i++) {
      if (Math.abs(got.logits[i] - want[i]) > 1e-4 * (1 + Math.abs(want[i]))) assert.fail(`prefix ${cut}, logit ${i}: ${got.logits[i]} vs ${want[i]}`);
    }
  }
  const texts = ['Once upon a time', 'Once upon a time there', 'At night, Mia put the', 'At night, Mia', 'Tom said he'];
  for (let i = 0; i < 40; i++) {
    const text = texts[(i * 7) % texts.length];
    fresh.forward([bos]);
    const want = new Map(fresh.next(text, { topK: 50 }).map((t) => [t.id, t.p]));
    for (const t of cached.next(text, { topK: 5 })) assert.ok(Math.abs(t.p - want.get(t.id)) <= 1e-4, `${text}: ${t.id}`);
  }
  cached.dispose();
  fresh.dispose();
});
