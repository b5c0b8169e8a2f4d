// node:test tests of the weight formats chosen at load (loadModel(src, { weights: 'f32' | 'f16' | 'q8' | 'q4' })) and
// of randomWeights' llama2.c output: compact formats stay near float32 on a random model, the few-row path
// (decoding, matvec kernels) and the many-row path (GEMM on converted rows) agree within each format, bad
// options say what is allowed, and stories260K (shared/models) keeps its greedy text in f16.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';

const lb = await loadLookback();

const CONFIG = {
  arch: 'test', dim: 48, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 12, hidden_dim: 72, vocab_size: 258,
  max_seq_len: 40, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: true, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const weights = lb.randomWeights(CONFIG, { seed: 5 });
const load = (w) => lb.loadModel(weights, { config: CONFIG, tokenizer: TOKENIZER, weights: w });
const models = { f32: await load('f32'), f16: await load('f16'), q8: await load('q8'), q4: await load('q4') };

const STORIES = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const range = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const text = 'The quick brown fox jumps over the lazy dog.';  // 45 bytes: cut to the context below
const ids = models.f32.encode(text).slice(0, 30);

test('info names the format; f32 is the default', async () => {
  for (const [f, m] of Object.entries(models)) assert.equal(m.info.weights, f);
  const plain = await lb.loadModel(weights, { config: CONFIG, tokenizer: TOKENIZER });
  assert.equal(plain.info.weights, 'f32');
  assert.deepEqual(plain.forward(ids).logits, models.f32.forward(ids).logits);
  plain.dispose();
});

test('f16 and q8 logits stay near f32 (f16 within 1%, q8 within 5% of the logit range)', () => {
  const ref = models.f32.forward(ids).logits;
  const r = range(ref);
  assert.ok(maxDiff(models.f16.forward(ids).logits, ref) <= 0.01 * r);
  assert.ok(maxDiff(models.q8.forward(ids).logits, ref) <= 0.05 * r);
  assert.ok(maxDiff(models.f16.forward(ids).logits, ref) > 0, 'f16 is not a copy of f32');
});

test('q4 logits stay near f32 (within 25% of the logit range: a weight moves by up to 1/30 of its block range)', () => {
  const ref = models.f32.forward(ids).logits;
  assert.ok(maxDiff(models.q4.forward(ids).logits, ref) <= 0.25 * range(ref));
});

test('within a format, decoding token by token (matvec) agrees with one pass over the text (GEMM)', () => {
  for (const [f, m] of Object.entries(models)) {
    const all = m.forward(ids).logits;
    const V = CONFIG.vocab_size;
    for (let t = 1; t <= ids.length; t++) {
      const step = m.forward(ids.slice(0, t)).logits;  // reuses t-1 positions: one row through matvec
      const got = step.subarray((t - 1) * V, t * V), want = all.subarray((t - 1) * V, t * V);
      // q4's matvec rounds x to 8 bits per block (q8's to 16): its steps sit further from the float GEMM's
      const tol = (f === 'q4' ? 2e-2 : f === 'q8' ? 2e-3 : 2e-5) * (1 + range(want));
      assert.ok(maxDiff(got, want) <= tol, `${f} position ${t - 1}: ${maxDiff(got, want)} > ${tol}`);
    }
  }
});

test('bad weights options and llama2.c outputs say what is allowed', async () => {
  await assert.rejects(load('int4'), /weights must be 'f32', 'f16', 'q8' or 'q4'/);
  await assert.rejects(load(16), /weights must be 'f32', 'f16', 'q8' or 'q4'/);
  assert.throws(() => lb.randomWeights(CONFIG, { format: 'onnx' }), /format must be 'safetensors' or 'llama2c'/);
  assert.throws(() => lb.randomWeights(CONFIG, { format: 'llama2c' }), /llama2.c runs only/);
  assert.throws(() => lb.randomWeights({ ...CONFIG, qk_norm: false, bos_id: 1, eos_id: 2 }, { format: 'llama2c', f16: true }), /float32 weights only/);
});

test('randomWeights writes a llama2.c checkpoint that loads in every format', async () => {
  const config = { ...CONFIG, arch: 'llama2c', qk_norm: false, n_kv_heads: 4, tied_embeddings: true, vocab_size: 300, bos_id: 1, eos_id: 2 };
  const bin = lb.randomWeights(config, { seed: 3, format: 'llama2c' });
  const head = new Int32Array(bin.buffer, bin.byteOffset, 7);
  assert.deepEqual(Array.from(head), [48, 72, 2, 4, 4, 300, 40]);
  // a llama2.c tokenizer of 300 pieces: <unk>, <s>, </s>, 256 byte pieces, then made-up ones
  const pieces = ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)];
  while (pieces.length < 300) pieces.push(`p${pieces.length}`);
  const parts = [new Uint8Array(new Uint32Array([16]).buffer)];
  for (const p of pieces) {
    const e = new TextEncoder().encode(p);
    const h = new DataView(new ArrayBuffer(8));
    h.setFloat32(0, 0, true);
    h.setInt32(4, e.length, true);
    parts.push(new Uint8Array(h.buffer), e);
  }
  const tokenizer = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (tokenizer.set(p, at), at + p.length), 0);
  const ref = await lb.loadModel(bin, { tokenizer });
  const q8 = await lb.loadModel(bin, { tokenizer, weights: 'q8' });
  const a = ref.forward([1, 50, 60, 70]).logits, b = q8.forward([1, 50, 60, 70]).logits;
  assert.ok(maxDiff(a, b) <= 0.05 * range(a));
  ref.dispose();
  q8.dispose();
});

test('stories260K in f16 and q8: logits near f32 and the same greedy start', async () => {
  const src = join(STORIES, 'stories260K.bin'), tokenizer = join(STORIES, 'tok512.bin');
  const f32 = await lb.loadModel(src, { tokenizer });
  const prompt = f32.encode('Once upon a time, there was a little girl named Lily.');
  const ref = f32.forward(prompt).logits;
  const greedy = (m) => Array.from(m.generate(prompt, { maxTokens: 16, temperature: 0 }).ids);
  for (const [weights, tol] of [['f16', 0.01], ['q8', 0.05]]) {
    const m = await lb.loadModel(src, { tokenizer, weights });
    assert.ok(maxDiff(m.forward(prompt).logits, ref) <= tol * range(ref), weights);
    if (weights === 'f16') assert.deepEqual(greedy(m), greedy(f32));
    m.dispose();
  }
  f32.dispose();
});
