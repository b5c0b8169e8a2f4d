// Browser test of a model file read in parts: a llama GGUF larger than the first part read, picked in a model widget's
// box, is read by the page's worker through FileReaderSync a part at a time (never whole, each part at most a chunk of
// rows, about once front to back), and the widget's next tokens are the Node API's for the same file. Not every
// widget on the model (own-model.test.mjs), nor the reader's Node side (tests/js/gguf-parts.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { open } from './harness.mjs';
import { ready, until } from './widget-helpers.mjs';
import { llamaGguf } from '../js/gguf-writer.mjs';

const CONFIG = {
  arch: 'test', dim: 64, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 16, hidden_dim: 4096, vocab_size: 12000,
  max_seq_len: 512, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 1, eos_id: 2,
};

const lb = await loadLookback();
const dir = mkdtempSync(join(tmpdir(), 'lookback-parts-'));
const file = join(dir, 'x.gguf');
const bytes = llamaGguf(CONFIG, lb.randomWeights(CONFIG, { seed: 9 }), 'Q8_0');
writeFileSync(file, bytes);
let b;
before(async () => {
  b = await open();
  await b.page.goto(`${b.url}embed.html`);
});
after(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a GGUF the reader picks is read by the page\'s worker through FileReaderSync in parts, never whole', { timeout: 120000 }, async () => {
  const picker = await ready(b.page, 'lookback-next-token');
  // the lookback worker of the page, its FileReaderSync counting the parts it reads
  const worker = await until(async () => b.page.workers().find((w) => w.url().includes('worker')), Boolean, 'the worker', 30000);
  await worker.evaluate(() => {
    self.parts = [];
    const Real = self.FileReaderSync;
    self.FileReaderSync = class extends Real {
      readAsArrayBuffer(blob) {
        self.parts.push(blob.size);
        return super.readAsArrayBuffer(blob);
      }
    };
  });
  if (!(await picker.locator('details.own').evaluate((d) => d.open))) await picker.locator('details.own summary').click();
  await picker.locator('input[type=file]').setInputFiles(file);
  await until(() => picker.locator('.model-name').textContent(), (v) => v === 'x.gguf', 'the model loaded', 60000);
  const parts = await worker.evaluate(() => self.parts);
  assert.ok(parts.length > 3, `read in ${parts.length} parts`);
  const most = Math.max(...parts), total = parts.reduce((a, x) => a + x, 0);
  assert.ok(most <= 4 << 20, `the largest part is ${most} bytes`);
  assert.ok(most < bytes.length / 2, `the largest part (${most} bytes) is far from the whole file (${bytes.length})`);
  assert.ok(total <= bytes.length + (1 << 20) + (1 << 16), `${total} bytes read in all for a file of ${bytes.length}`);
  // the widget computes on it: the next tokens of the API in Node for the same file and text
  const m = await lb.loadModel(bytes);
  const shown = await until(() => picker.evaluate((w) => (w.topFor?.model === 'x.gguf' ? { text: w.topFor.text, ids: w.top.map((t) => t.id) } : null)),
    Boolean, 'the widget\'s next tokens on the model', 30000);
  const want = m.next(shown.text, { topK: shown.ids.length }).map((r) => r.id);
  m.dispose();
  assert.deepEqual(shown.ids, want);
  assert.deepEqual(b.record.consoleErrors, []);
});
