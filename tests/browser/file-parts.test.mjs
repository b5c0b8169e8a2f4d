// Browser tests of a model file read in parts: a llama GGUF larger than the first part read, picked in a model widget's
// box, is read by the page's worker through FileReaderSync a part at a time (never whole, each part at most a chunk of
// rows, about once front to back), and the widget's next tokens are the Node API's for the same file; the same GGUF
// served by the chapter's server (which answers byte ranges) and loaded in a worker by its URL is read through range
// requests a part at a time, with progress up to its size, and a server that does not answer ranges gets it fetched
// whole. Not every widget on the model (own-model.test.mjs), the reader's Node side (tests/js/gguf-parts.test.mjs),
// nor the server's ranges alone (tests/js/serve.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
// the same file served from the chapter's own folder (the page's CSP lets its worker fetch its own origin only);
// web/build is generated and not committed
const SERVED = fileURLToPath(new URL('../../web/build/file-parts-test/', import.meta.url));
mkdirSync(SERVED, { recursive: true });
writeFileSync(join(SERVED, 'x.gguf'), bytes);
let b;
before(async () => {
  b = await open();
  await b.page.goto(`${b.url}embed.html`);
});
after(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(SERVED, { recursive: true, force: true });
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

const URL_TEXT = 'the cat sat on the mat';

// Loads url in a worker of the page (the widgets' ComputeClient) -> { next, reports }.
const loadInWorker = (url) => b.page.evaluate(async ({ url, text }) => {
  const { ComputeClient } = await import('./js/worker/client.js');
  const { loadRemoteModel } = await import('./js/worker/remote-model.js');
  const client = new ComputeClient();
  const reports = [];
  const m = await loadRemoteModel(client, url, { onProgress: (p) => reports.push(p) });
  const next = await m.next(text, { topK: 5 });
  await m.dispose();
  client.terminate();
  return { next, reports };
}, { url, text: URL_TEXT });

test('a GGUF at an http URL is read in the worker through range requests, in parts, never whole', { timeout: 120000 }, async () => {
  const url = `${b.url}build/file-parts-test/x.gguf`;
  const ranges = [];
  const onRequest = (r) => {
    if (r.url() === url) ranges.push(r.headers().range ?? 'whole');
  };
  b.page.on('request', onRequest);
  const r = await loadInWorker(url);
  b.page.off('request', onRequest);
  const model = await lb.loadModel(file);
  assert.deepEqual(r.next.map((x) => x.id), model.next(URL_TEXT, { topK: 5 }).map((x) => x.id), 'the Node API\'s next tokens');
  model.dispose();
  assert.ok(!ranges.includes('whole'), `every request for the file asks for a range (${ranges.slice(0, 5)})`);
  const sizes = ranges.map((h) => {
    const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(h);
    return Number(last) - Number(first) + 1;
  });
  assert.ok(sizes.length > 3, `${sizes.length} range requests`);
  assert.ok(Math.max(...sizes) < bytes.length / 2, `the largest part is ${Math.max(...sizes)} of ${bytes.length} bytes`);
  const read = sizes.reduce((a, c) => a + c, 0);
  assert.ok(read < bytes.length * 1.5, `${read} bytes asked for of ${bytes.length}: about once`);
  assert.deepEqual(r.reports.at(-1), { loaded: bytes.length, total: bytes.length }, 'progress ends at the file\'s size');
});

test('a server that does not answer ranges gets the file fetched whole', { timeout: 120000 }, async () => {
  const url = `${b.url}build/file-parts-test/x.gguf`;
  // the same server, its range answers turned into whole-file answers
  await b.page.context().route(url, async (route) => {
    const headers = { ...route.request().headers() };
    delete headers.range;
    route.fulfill({ response: await route.fetch({ headers }) });
  });
  const asked = [];
  const onRequest = (r) => {
    if (r.url() === url) asked.push(r.headers().range ?? 'whole');
  };
  b.page.on('request', onRequest);
  try {
    const r = await loadInWorker(url);
    assert.equal(asked.at(-1), 'whole', `the requests: ${asked.join(', ')}`);
    const model = await lb.loadModel(file);
    assert.deepEqual(r.next.map((x) => x.id), model.next(URL_TEXT, { topK: 5 }).map((x) => x.id));
    model.dispose();
  } finally {
    b.page.off('request', onRequest);
    await b.page.context().unroute(url);
  }
});
