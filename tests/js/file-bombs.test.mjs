// Regression tests of small files that ask for huge sizes: every size derived from a file is bounded before it is
// allocated. Merges that double a token's length each (a 347-byte tokenizer.json once made a token of 128 MB
// and aborted Node), a context of 65,536 over 1,024 layers (its key/value cache is now grown with use, not
// allocated at load) and a file over the 1 GiB limit (refused from its size, before any byte is read). Not the
// other hostile inputs (hardening.test.mjs) or the random campaigns (fuzz.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, ftruncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';

const lb = await loadLookback();
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 1, n_heads: 2, n_kv_heads: 1, head_dim: 8, hidden_dim: 24, vocab_size: 300,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
const tokenizer = (merges) => JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258 + merges.length, bos_id: 0, eos_id: 1, merges });

test('merges that double a token\'s length are refused at load, past 1,024 bytes, naming the merge', async () => {
  // merge i joins token 258+i-1 with itself: 2, 4, 8, ... bytes
  const doubling = [[99, 99], ...Array.from({ length: 26 }, (_, i) => [258 + i, 258 + i])];
  const text = tokenizer(doubling);
  assert.ok(text.length < 400, `the file is ${text.length} bytes`);
  const config = { ...CONFIG, vocab_size: 258 + doubling.length };
  const weights = lb.randomWeights(config);
  const before = lb.heapBytes();
  await assert.rejects(lb.loadModel(weights, { config, tokenizer: text }),
    (e) => e.code === 'LOOKBACK_BAD_MODEL' && /merges\[10\] makes a token of 2048 bytes; a token holds at most 1024/.test(e.message));
  assert.ok(lb.heapBytes() - before < 64 << 20, 'no gigabytes were allocated on the way');
  // up to the bound, such merges load and their tokens read back
  const ok = doubling.slice(0, 10), okConfig = { ...CONFIG, vocab_size: 268 };
  const m = await lb.loadModel(lb.randomWeights(okConfig), { config: okConfig, tokenizer: tokenizer(ok) });
  assert.equal(m.tokens([267])[0].text, 'a'.repeat(1024));
  assert.deepEqual(m.encode('a'.repeat(1024), { bos: false }), [267]);
  m.dispose();
});

test('a context of 65,536 over 1,024 layers: the key/value cache grows with the text, not allocated at load', async () => {
  const config = { ...CONFIG, dim: 2, n_layers: 1024, n_heads: 1, n_kv_heads: 1, head_dim: 2, hidden_dim: 2, vocab_size: 258, max_seq_len: 65536 };
  const weights = lb.randomWeights(config);
  assert.ok(weights.length < 2 << 20, `the file is ${weights.length} bytes`);
  const before = lb.heapBytes();
  const m = await lb.loadModel(weights, { config, tokenizer: tokenizer([]) });
  const loaded = lb.heapBytes() - before;
  assert.ok(loaded < 64 << 20, `loading took ${loaded} bytes of WebAssembly memory`);
  const r = m.next('a short text', { topK: 3 });
  assert.equal(r.length, 3);
  assert.ok(lb.heapBytes() - before < 64 << 20, 'a short text needs a short cache');
  m.dispose();
});

test('a file over 1 GiB is refused from its size before any of it is read (LOOKBACK_TOO_LARGE)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lookback-big-'));
  try {
    const big = join(dir, 'model.bin');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 1288490188);  // 1.2 GiB, sparse: no disk used
    closeSync(fd);
    writeFileSync(join(dir, 'tokenizer.bin'), new Uint8Array(16));
    let loaded = 0;
    await assert.rejects(lb.loadModel(big, { tokenizer: join(dir, 'tokenizer.bin'), onProgress: (p) => { loaded = p.loaded; } }),
      (e) => e.code === 'LOOKBACK_TOO_LARGE' && /is 1288490188 bytes; the most a model file may hold is 1073741824/.test(e.message));
    assert.equal(loaded, 0, 'no byte was read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
