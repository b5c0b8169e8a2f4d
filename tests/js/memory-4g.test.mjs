// node:test tests of WebAssembly memory past 2 GiB: the modules grow to 4 GiB (wasm32's whole address space), a model
// whose weights lie above the 2 GiB mark gives the results of the same model loaded low (logits, next tokens, token
// places, every layer's attention), in the one-thread and the threaded module, and a model that no longer fits in
// what is left of the 4 GiB is refused naming its size and a storage that fits. Not the refusal's wording in C++
// (tests/cpp/test_gguf.cpp) nor the browser (the same modules; tests/browser/file-parts.test.mjs).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { llamaGguf } from './gguf-writer.mjs';

const GiB = 2 ** 30;
// about 87M parameters: 0.35 GB of float32 weights in the file, about 0.6 GB in memory held as f32 (packed panels too)
const CONFIG = {
  arch: 'test', dim: 512, n_layers: 4, n_heads: 8, n_kv_heads: 8, head_dim: 64, hidden_dim: 8192, vocab_size: 32000,
  max_seq_len: 256, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 1, eos_id: 2,
};
const IDS = [1, 5, 9, 100, 31999, 7, 5, 9];
const TEXT = 'Lily had a red ball. She gave the ball to';

const dir = await mkdtemp(join(tmpdir(), 'lookback-memory-'));
after(() => rm(dir, { recursive: true, force: true }));
const file = join(dir, 'big.gguf');
await writeFile(file, llamaGguf(CONFIG, (await loadLookback({ threads: 1 })).randomWeights(CONFIG, { seed: 3 }), 'F32'));

// What Sprout gives for TEXT: the next tokens, the tokens' places, and a forward pass with every layer's attention.
function sproutView(m) {
  const f = m.forward(m.encode(TEXT), { attention: true });
  return { next: m.next(TEXT, { topK: 5 }), tokens: m.tokens(TEXT), logits: Array.from(f.logits), attention: Array.from(f.attention) };
}

// Fills a module past `above` bytes with copies of the big model, then loads Sprout until the memory grows again
// (so the last Sprout lies above everything before it); both last copies must equal their first.
async function checkAbove(lb, above) {
  const sprout = await lb.loadModel('sprout');
  const want = sproutView(sprout);
  const big = [await lb.loadModel(file, { weights: 'f32' })];
  const bigLogits = Array.from(big[0].forward(IDS).logits);
  while (lb.heapBytes() < above) big.push(await lb.loadModel(file, { weights: 'f32' }));
  assert.deepEqual(Array.from(big.at(-1).forward(IDS).logits), bigLogits, 'the copy loaded past the mark');
  let last;
  for (const before = lb.heapBytes(); lb.heapBytes() === before;) last = await lb.loadModel('sprout');
  assert.ok(lb.heapBytes() > above, `memory ${lb.heapBytes()} bytes`);
  assert.deepEqual(sproutView(last), want, 'Sprout loaded at the top of the memory');
  return big;
}

test('one thread: models above 2 GiB give what they give low; the memory grows to 4 GiB, then a model is refused by size', async () => {
  const lb = await loadLookback({ threads: 1 });
  const big = await checkAbove(lb, 2.2 * GiB);
  let refused = null;
  try {
    for (let i = 0; i < 10; i++) big.push(await lb.loadModel(file, { weights: 'f32' }));
  } catch (e) {
    refused = e;
  }
  assert.ok(refused, 'ten more copies cannot fit');
  assert.ok(lb.heapBytes() > 3.5 * GiB, `the memory reached ${(lb.heapBytes() / GiB).toFixed(2)} GiB before the refusal`);
  assert.equal(refused.code, 'LOOKBACK_BAD_MODEL');
  assert.match(refused.message, /the model needs 0\.\d\d GB with its weights held as 'f32', more than the 0\.\d\d GB WebAssembly's memory can still take; held as '(f16|q8|q4)' it would take 0\.\d\d GB/);
  const fits = await lb.loadModel(file, { weights: /held as '(\w+)' it would take/.exec(refused.message)[1] });
  assert.equal(fits.forward(IDS).logits.length, IDS.length * CONFIG.vocab_size, 'the storage the refusal names loads');
});

test('threaded module: models above 2 GiB give what they give low', async () => {
  const lb = await loadLookback({ threads: 2 });
  assert.equal(lb.threads(), 2);
  await checkAbove(lb, 2.2 * GiB);
});
