// node:test tests of the threaded module (loadLookback({ threads })): in Node the default runs on every core,
// `threads: 1` loads the one-thread module, bad counts are refused, and the two modules give the same results
// bit for bit: attention (grouped heads, masks, weights), GEMM, a resident weight at M = 1, 8, 64, and Sprout's
// forward pass (logits, attention), greedy generation and head scores in every weight format, and random models
// with the other row-wise steps (QK-norm, GELU) over prompts long enough that those steps are split too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';

const one = await loadLookback({ threads: 1 });
const many = await loadLookback({ threads: 3 });

let seed = 7;
const rand = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return lo + (hi - lo) * (seed / 2 ** 32);
});
const sameBits = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength),
  Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

test('threads: the default uses every core in Node; 1 is the one-thread module; bad counts are refused', async () => {
  const auto = await loadLookback();
  assert.ok(auto.threads() >= 1);
  assert.equal(one.threads(), 1);
  assert.equal(many.threads(), 3);
  for (const bad of [0, 1.5, 65, '2', -1, null]) {
    await assert.rejects(async () => loadLookback({ threads: bad }), (e) => e instanceof TypeError && /threads/.test(e.message), String(bad));
  }
  assert.equal(await loadLookback({ threads: 3 }), many, 'the same count shares one module');
});

test('threads: attention is the same bit for bit (heads, grouped heads, causal, masks, weights)', () => {
  for (const [T, S, heads, kvHeads, d, causal, masked] of [[64, 64, 6, 6, 64, true, false], [512, 512, 6, 6, 32, true, false],
    [40, 48, 8, 2, 16, true, true], [17, 17, 4, 1, 8, false, false], [100, 100, 3, 3, 24, false, true]]) {
    const q = rand(T * heads * d, -3, 3), k = rand(S * kvHeads * d, -3, 3), v = rand(S * kvHeads * d);
    const mask = masked ? Uint8Array.from({ length: T * S }, (_, i) => (i * 7) % 5 !== 0) : null;
    const o = { T, S, heads, kvHeads, d, causal, mask };
    const a = one.attention(q, k, v, o), b = many.attention(q, k, v, o);
    assert.ok(sameBits(a.output, b.output), `output T=${T} heads=${heads}/${kvHeads}`);
    assert.ok(sameBits(a.weights, b.weights), `weights T=${T} heads=${heads}/${kvHeads}`);
    assert.equal(a.emptyRows, b.emptyRows);
  }
});

test('threads: gemm and a resident weight are the same bit for bit', () => {
  for (const [M, N, K, transB] of [[512, 1152, 384, false], [64, 1152, 384, true], [7, 300, 65, false], [130, 37, 384, true]]) {
    const a = rand(M * K), b = rand(K * N);
    assert.ok(sameBits(one.gemm(a, b, { M, N, K, transB }), many.gemm(a, b, { M, N, K, transB })), `gemm ${M}x${N}x${K}`);
  }
  const K = 384, N = 1152, b = rand(K * N);
  const w1 = one.weight(b, { K, N }), w2 = many.weight(b, { K, N });
  for (const M of [1, 8, 64]) {
    const a = rand(M * K);
    assert.ok(sameBits(w1.gemm(a, { M }), w2.gemm(a, { M })), `resident M=${M}`);
  }
  w1.dispose();
  w2.dispose();
});

test('threads: Sprout gives the same logits, attention, text and head scores in every weight format', async () => {
  const text = 'Once upon a time, Mia found a red ball in the garden. She gave the ball to her brother Tom, and he';
  for (const weights of ['f32', 'f16', 'q8', 'q4']) {
    const m1 = await one.loadModel('sprout', { weights }), m2 = await many.loadModel('sprout', { weights });
    const f1 = m1.forward(text, { attention: true }), f2 = m2.forward(text, { attention: true });
    assert.ok(sameBits(f1.logits, f2.logits), `${weights} logits`);
    assert.ok(sameBits(f1.attention, f2.attention), `${weights} attention`);
    const g1 = m1.generate('Once upon a time', { maxTokens: 60, temperature: 0 });
    const g2 = m2.generate('Once upon a time', { maxTokens: 60, temperature: 0 });
    assert.deepEqual(g2.ids, g1.ids, `${weights} greedy ids`);
    if (weights === 'f32') {
      assert.deepEqual(m2.headScores([text], { repeats: 2 }), m1.headScores([text], { repeats: 2 }));
      assert.deepEqual(m2.next(text), m1.next(text));
    }
    m1.dispose?.();
    m2.dispose?.();
  }
});

test('threads: models with QK-norm and GELU or SwiGLU give the same logits and attention', async () => {
  const tokenizer = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
  // wide enough rows that the norms, positions and activations of a 200-token prompt are worth two parts or more
  const ids = Array.from({ length: 200 }, (_, i) => 2 + ((i * 37 + 11) % 256));
  for (const mlp of ['gelu', 'swiglu']) {
    const config = { arch: 'test', dim: 192, n_layers: 2, n_heads: 6, n_kv_heads: 2, head_dim: 32, hidden_dim: 200,
      vocab_size: 258, max_seq_len: 256, rope_layout: 'half', qk_norm: true, mlp, tied_embeddings: true };
    const weights = one.randomWeights(config, { seed: 11 });
    const m1 = await one.loadModel(weights, { config, tokenizer }), m2 = await many.loadModel(weights, { config, tokenizer });
    for (const positions of [true, false]) {
      const f1 = m1.forward(ids, { attention: true, positions }), f2 = m2.forward(ids, { attention: true, positions });
      assert.ok(sameBits(f1.logits, f2.logits), `${mlp} logits (positions ${positions})`);
      assert.ok(sameBits(f1.attention, f2.attention), `${mlp} attention (positions ${positions})`);
    }
    const p1 = m1.next(ids.slice(0, 150)), p2 = m2.next(ids.slice(0, 150));  // then 50 more on the cache
    assert.deepEqual(m2.next(ids), m1.next(ids));
    assert.deepEqual(p2, p1);
    m1.dispose();
    m2.dispose();
  }
});
