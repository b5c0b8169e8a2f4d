// Browser test of WebAssembly memory past 2 GiB in chromium: the page's one-thread module grows past the 2 GiB mark
// holding copies of one random model, and the copy whose weights lie above it gives the first copy's logits. Not
// Node's modules nor the refusal when the 4 GiB are full (tests/js/memory-4g.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from './harness.mjs';

let b;
before(async () => {
  b = await open();
  await b.page.goto(new URL('embed.html', b.url).href);
});
after(async () => { await b?.close(); });

test('a model above 2 GiB of WebAssembly memory gives what the same model gives low', { timeout: 180000 }, async () => {
  const r = await b.page.evaluate(async () => {
    const { loadLookback } = await import('./js/api/index.js');
    const lb = await loadLookback({ threads: 1 });
    // about 87M parameters: 0.35 GB of float32 bytes, about 0.6 GB in memory held as f32
    const config = {
      arch: 'test', dim: 512, n_layers: 4, n_heads: 8, n_kv_heads: 8, head_dim: 64, hidden_dim: 8192, vocab_size: 32000,
      max_seq_len: 256, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
      tied_embeddings: false, bos_id: 0, eos_id: 1,
    };
    const tokenizer = { type: 'byte-bpe', version: 1, vocab_size: 32000, bos_id: 0, eos_id: 1,
      merges: Array.from({ length: 32000 - 258 }, (_, i) => [2 + (i % 256), 2 + Math.floor(i / 256)]) };
    const weights = lb.randomWeights(config, { seed: 3 });
    const ids = [1, 5, 9, 100, 31999, 7, 5, 9];
    const models = [await lb.loadModel({ config, weights, tokenizer }, { weights: 'f32' })];
    while (lb.heapBytes() < 2.2 * 2 ** 30) models.push(await lb.loadModel({ config, weights, tokenizer }, { weights: 'f32' }));
    const low = models[0].forward(ids).logits, high = models.at(-1).forward(ids).logits;
    let diff = 0;
    for (let i = 0; i < low.length; i++) diff = Math.max(diff, Math.abs(low[i] - high[i]));
    return { heap: lb.heapBytes(), copies: models.length, diff, n: high.length };
  });
  assert.ok(r.heap > 2.2 * 2 ** 30, `memory ${r.heap} bytes`);
  assert.ok(r.copies >= 3, `${r.copies} copies`);
  assert.equal(r.n, 8 * 32000);
  assert.equal(r.diff, 0, 'the copy above 2 GiB gives the first copy\'s logits');
});
