// node:test tests of the JS model API (web/js/api/model.js) on the built module: a small random-weight bundle
// made in the test through the module itself, loaded from bytes, objects and files; shapes and invariants of
// forward/next/generate; every bad input giving an Error that says what (and the module staying usable); and
// the real llama2.c checkpoint stories260K (shared/models) against llama2.c's own logits (tests/fixtures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { CONFIG, TOKENIZER } from './tiny-model.mjs';

const lb = await loadLookback();

const weights = lb.randomWeights(CONFIG, { seed: 7 });
const model = await lb.loadModel(weights, { config: CONFIG, tokenizer: TOKENIZER });

const STORIES = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));
const REFERENCE = fileURLToPath(new URL('../fixtures/stories260K/', import.meta.url));
// the checkpoint (the project's copy) and llama2.c's own logits for it (tests/fixtures/stories260K/README.md)

// Results of the same model agree to float rounding (the cache may recompute a position through another path).
const near = (a, b, tol = 1e-5) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(b[i])), `[${i}]: ${a[i]} vs ${b[i]}`);
};

const softmax = (row, temperature = 1) => {
  const m = Math.max(...row);
  const e = row.map((x) => Math.exp((x - m) / temperature));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
};

test('a random bundle loads from bytes; info, encode, decode and token texts', () => {
  assert.equal(model.info.tokenizer, 'byte-bpe');
  assert.equal(model.info.config.n_kv_heads, 2);
  assert.equal(model.context, 32);
  assert.ok(model.info.parameters > 10000);
  const ids = model.encode('héllo');
  assert.deepEqual(ids.slice(0, 2), [0, 'h'.charCodeAt(0) + 2]);
  assert.equal(ids.length, 7);  // <s> + 6 bytes
  assert.equal(model.decode(ids), 'héllo');
  assert.deepEqual(model.encode('hi', { bos: false }), [106, 107]);
  const toks = model.tokens('hé');
  assert.deepEqual(toks.map((t) => t.text), ['◆', 'h', '<0xC3>', '<0xA9>']);
  assert.equal(model.decode([0xC3 + 2]), '\uFFFD');  // half a character decodes to the replacement mark
});

test('forward: shapes, causal attention rows that sum to 1, positions on and off', () => {
  const r = model.forward('abcdef', { attention: true, residuals: true });
  const { T, V, L, H, C } = r.shape;
  assert.deepEqual([T, V, L, H, C], [7, 258, 2, 4, 24]);
  assert.equal(r.logits.length, T * V);
  assert.equal(r.attention.length, L * H * T * T);
  assert.equal(r.residuals.length, (L + 1) * T * C);
  for (let lh = 0; lh < L * H; lh++) {
    for (let t = 0; t < T; t++) {
      const row = r.attention.subarray((lh * T + t) * T, (lh * T + t + 1) * T);
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
      for (let s = t + 1; s < T; s++) assert.equal(row[s], 0);
    }
  }
  assert.ok(r.logits.every(Number.isFinite));
  const plain = model.forward('abcdef');
  assert.equal(plain.attention, null);
  assert.equal(plain.residuals, null);
  near(plain.logits, r.logits);
  const off = model.forward('abcdef', { positions: false });
  assert.notDeepEqual(off.logits, r.logits);
});

test('editing the end of a text reuses the cached prefix and changes nothing before the edit', () => {
  const a = model.forward('the cat sat on', { attention: true });
  const b = model.forward('the cat sat in', { attention: true });
  assert.equal(b.reused, 13);
  const V = a.shape.V;
  assert.deepEqual(b.logits.subarray(0, 13 * V), a.logits.subarray(0, 13 * V));  // kept, not recomputed
});

test('next: probabilities from the last logits, sorted, at a temperature', () => {
  const r = model.forward('abc');
  const last = Array.from(r.logits.subarray(3 * 258));
  for (const temperature of [1, 0.5]) {
    const p = softmax(last, temperature);
    const top = model.next('abc', { topK: 5, temperature });
    assert.equal(top.length, 5);
    for (let i = 0; i < 5; i++) {
      assert.ok(Math.abs(top[i].p - p[top[i].id]) < 1e-5);
      if (i) assert.ok(top[i].p <= top[i - 1].p);
      assert.equal(typeof top[i].token, 'string');
    }
    assert.equal(top[0].id, p.indexOf(Math.max(...p)));
  }
});

test('headScores: the habits read straight off forward attention; induction on random repeats', () => {
  const texts = ['the cat sat on the mat', 'once upon a time'];
  const r = model.headScores(texts, { repeats: 2, repeatLength: 6, seed: 3 });
  assert.equal(r.layers, 2);
  assert.equal(r.heads, 4);
  const sums = { previousToken: Array(8).fill(0), startMark: Array(8).fill(0), fourOrMoreBack: Array(8).fill(0) };
  let rows = 0, farRows = 0, even = 0;
  for (const text of texts) {
    const f = model.forward(text, { attention: true });
    const { T } = f.shape;
    for (let t = 2; t < T; t++, rows++) {
      even += 1 / (t + 1);
      if (t >= 5) farRows++;  // far back: keys 1..t-4, the start mark (key 0) left out
      for (let lh = 0; lh < 8; lh++) {
        const row = f.attention.subarray((lh * T + t) * T, (lh * T + t + 1) * T);
        sums.previousToken[lh] += row[t - 1];
        sums.startMark[lh] += row[0];
        if (t >= 5) sums.fourOrMoreBack[lh] += row.subarray(1, t - 3).reduce((a, b) => a + b, 0);
      }
    }
  }
  for (const [key, n] of [['previousToken', rows], ['startMark', rows], ['fourOrMoreBack', farRows]]) {
    near(r[key].byLayer.flat(), sums[key].map((x) => x / n), 1e-5);
    assert.equal(r[key].best.length, 3);
    const top = r[key].best[0];
    assert.equal(top.score, Math.max(...r[key].byLayer.flat()));
    assert.equal(r[key].byLayer[top.layer][top.head], top.score);
  }
  assert.equal(r.previousToken.count, rows);
  assert.ok(Math.abs(r.previousToken.even - even / rows) < 1e-12);
  assert.equal(r.induction.count, 2 * 6);
  assert.ok(r.induction.byLayer.flat().every((x) => x >= 0 && x <= 1));
  assert.equal(r.startMarkOnRandomTokens.count, 2 * (6 - 1));  // the first copy's queries t = 2..6
  assert.ok(r.startMarkOnRandomTokens.byLayer.flat().every((x) => x >= 0 && x <= 1));
  assert.equal(r.previousTokenOnRandomTokens.count, 2 * (6 - 1));
  assert.ok(r.previousTokenOnRandomTokens.byLayer.flat().every((x) => x >= 0 && x <= 1));
  // on the first copy of a repeat, every head's weight on the start mark and on the token before sum to at most 1
  const both = r.startMarkOnRandomTokens.byLayer.flat().map((x, i) => x + r.previousTokenOnRandomTokens.byLayer.flat()[i]);
  assert.ok(both.every((x) => x <= 1 + 1e-6));
  assert.deepEqual(model.headScores(texts, { repeats: 2, repeatLength: 6, seed: 3 }), r);  // seeded
  assert.equal(model.headScores(texts, { repeats: 0 }).induction.count, 0);
  assert.throws(() => model.headScores('the cat'), /headScores: texts must be an array/);
  assert.throws(() => model.headScores(['a'.repeat(40)]), /texts\[0\] is 41 tokens but the model's context holds 32/);
  assert.throws(() => model.headScores(['a']), /texts\[0\] has 2 tokens; a head score needs at least 3/);
  assert.throws(() => model.headScores([], { repeats: 1, repeatLength: 16 }), /repeatLength/);
  assert.throws(() => model.headScores([], { repeats: 0 }), /at least one text or repeats >= 1/);
  assert.throws(() => model.headScores(texts, { repeat: 2 }), /unknown option "repeat"/);
  assert.equal(model.next('abc', { topK: 1 }).length, 1);  // still usable
});

test('generate: the same seed repeats; temperature 0 follows the most probable token', () => {
  const a = model.generate('ab', { maxTokens: 10, seed: 5, temperature: 1 });
  const b = model.generate('ab', { maxTokens: 10, seed: 5, temperature: 1 });
  assert.deepEqual(a, b);
  assert.ok(['end', 'max_tokens'].includes(a.stop));
  const g = model.generate('ab', { maxTokens: 6, temperature: 0 });
  let ids = model.encode('ab');
  for (const id of g.ids) {
    assert.equal(model.next(ids, { topK: 1 })[0].id, id);
    ids = [...ids, id];
  }
  const long = model.generate('ab', { maxTokens: 100, temperature: 1, seed: 2 });
  if (long.stop === 'context') assert.equal(long.ids.length, 32 - 3 + 1);
  const slid = model.generate('ab', { maxTokens: 50, temperature: 1, seed: 2, window: true });
  assert.ok(slid.stop === 'end' || slid.ids.length === 50);
});

test('texts longer than the context: an Error naming the window option; the window is explicit', () => {
  const text = 'x'.repeat(40);
  assert.throws(() => model.forward(text), /41 tokens but the model's context holds 32; pass \{ window: true \}/);
  assert.throws(() => model.next(text), /pass \{ window: true \}/);
  const r = model.forward(text, { window: true });
  assert.equal(r.shape.T, 32);
  assert.equal(r.ids[0], 0);
  assert.deepEqual(model.window(model.encode(text)), r.ids);
  assert.deepEqual(model.window([0, 5, 6, 7], 3), [0, 6, 7]);
});

test('bad input: ids out of range, wrong types, unknown options; the model stays usable', () => {
  assert.throws(() => model.forward([0, 258]), /ids\[1\] is 258; token ids are integers in \[0, 258\)/);
  assert.throws(() => model.forward([0, 1.5]), /ids\[1\] is 1.5/);
  assert.throws(() => model.forward([0, NaN]), /ids\[1\] is NaN/);
  assert.throws(() => model.forward([]), /at least one token/);
  assert.throws(() => model.decode([-1]), /ids\[0\] is -1/);
  assert.throws(() => model.forward({}), /ids must be an array/);
  assert.throws(() => model.next('a', { topk: 3 }), /unknown option "topk"/);
  assert.throws(() => model.next('a', { temperature: 0 }), /temperature must be a finite positive number/);
  assert.throws(() => model.generate('a', { topP: 1.5 }), /topP must be in \(0, 1\]/);
  assert.throws(() => model.generate('a', { maxTokens: -1 }), /maxTokens must be an integer/);
  assert.equal(model.next('abc', { topK: 1 }).length, 1);
});

test('bad files: corrupt, truncated or mismatched bundles and non-finite weights say what and where', async () => {
  const load = (w, c = CONFIG, t = TOKENIZER) => lb.loadModel(w, { config: c, tokenizer: t });
  await assert.rejects(load(weights.subarray(0, weights.length - 10)), /safetensors: .*run past the end of the data/);
  const bad = weights.slice();
  bad[9] = 0x5b;  // the header's JSON breaks
  await assert.rejects(load(bad), /not well-formed JSON|must be a JSON object/);
  await assert.rejects(load(weights, { ...CONFIG, hidden_dim: 48 }), /tensor 'layers.0.feed_forward.w1.weight' has shape \[40, 24\] but config.json implies \[48, 24\]/);
  await assert.rejects(load(weights, { ...CONFIG, tied_embeddings: true }), /unexpected tensor 'output.weight'/);
  await assert.rejects(load(weights, { ...CONFIG, n_kv_heads: 3 }), /n_kv_heads \(3\) must divide n_heads \(4\)/);
  const bigger = lb.randomWeights({ ...CONFIG, vocab_size: 300 });
  await assert.rejects(load(bigger, { ...CONFIG, vocab_size: 300 }), /the tokenizer has 258 tokens but the model's vocabulary has 300/);
  await assert.rejects(load(weights, CONFIG, '{"type": "byte-bpe"'), /tokenizer/);
  const nan = weights.slice();
  const headerLength = Number(new DataView(nan.buffer).getBigUint64(0, true));
  new DataView(nan.buffer).setFloat32(8 + headerLength, NaN, true);  // first value of the first tensor
  await assert.rejects(load(nan), /tensor '[a-z_.0-9]+' holds NaN at \[0, 0\]; weights must be finite/);
  await assert.rejects(lb.loadModel(new Uint8Array(12), { tokenizer: new Uint8Array(3) }), /llama2.c checkpoint: the file is 12 bytes/);
  await assert.rejects(lb.loadModel(weights), /pass \{ tokenizer \}/);
  assert.throws(() => lb.randomWeights({ ...CONFIG, head_dim: 5 }), /head_dim must be even/);
  assert.equal(model.next('ok', { topK: 2 }).length, 2);  // still usable
});

test('loading from files and objects; dispose frees the model, later calls say so', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lookback-model-'));
  try {
    await writeFile(join(dir, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 7, f16: true }));
    await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG));
    await writeFile(join(dir, 'tokenizer.json'), TOKENIZER);
    const fromDir = await lb.loadModel(dir);
    const fromFile = await lb.loadModel(join(dir, 'model.safetensors'));
    const a = fromDir.forward('abc').logits, b = fromFile.forward('abc').logits, c = model.forward('abc').logits;
    assert.deepEqual(a, b);
    near(a, c, 2e-2);  // fp16 weights stay close to fp32
    const fromObject = await lb.loadModel({ weights, config: CONFIG, tokenizer: JSON.parse(TOKENIZER) });
    near(fromObject.forward('abc').logits, c);
    fromDir.dispose();
    fromDir.dispose();
    assert.throws(() => fromDir.next('a'), /next: this model was disposed/);
    fromFile.dispose();
    fromObject.dispose();
    await assert.rejects(lb.loadModel(join(dir, 'missing')), /cannot read .*missing\/model.safetensors \(ENOENT\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('repeated calls do not grow the heap', () => {
  model.forward('warm up the buffers', { attention: true });
  const before = lb.heapBytes();
  for (let i = 0; i < 50; i++) {
    model.forward(`text number ${i}`, { attention: true, residuals: true });
    model.generate('a', { maxTokens: 5, seed: i });
    assert.throws(() => model.forward([999]));
  }
  assert.equal(lb.heapBytes(), before);
});

test('stories260K: tokens and logits at every position agree with llama2.c', async () => {
  const m = await lb.loadModel(join(STORIES, 'stories260K.bin'), { tokenizer: join(STORIES, 'tok512.bin') });
  const ids = m.encode('Once upon a time, there was a little girl named Lily');
  assert.deepEqual(ids, [1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317]);
  const want = new Float32Array((await readFile(join(REFERENCE, 'lily_logits_all.f32'))).buffer.slice(0));
  const got = m.forward(ids).logits;
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  assert.ok(worst <= 1e-4, `largest difference ${worst}`);
  assert.equal(m.next(ids, { topK: 1 })[0].token, '.');
  assert.equal(m.decode(ids), 'Once upon a time, there was a little girl named Lily');
  m.dispose();
});

test('the bundled model loads by name', async () => {
  const m = await lb.loadModel('sprout');
  assert.equal(m.info.tokenizer, 'byte-bpe');
  assert.equal(m.tokens('Mia')[0].text, '◆');
  assert.equal(m.next('Once upon a time', { topK: 3 }).length, 3);
  m.dispose();
});
