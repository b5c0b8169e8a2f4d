// node:test tests of a GGUF read in parts by the core (web/js/api/files.js openParts): a file on disk (lb.loadModel
// with its path) and a Blob (what a page's file picker gives) load into the model the file's bytes give, with
// progress up to the file's size; an abort while the parts are read stops the load with an AbortError; a Blob of
// a format read whole (a lookback bundle's weights) still loads; a GGUF at an http URL is read by range requests
// when its server answers them, else fetched whole. Not the reader's C++ side (tests/cpp/test_gguf.cpp).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadLookback } from 'lookback';
import { llamaGguf } from './gguf-writer.mjs';

const CONFIG = {
  arch: 'test', dim: 64, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 16, hidden_dim: 4096, vocab_size: 12000,
  max_seq_len: 64, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 1, eos_id: 2,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 12000, bos_id: 0, eos_id: 1,
  merges: Array.from({ length: 12000 - 258 }, (_, i) => [2 + (i % 256), 2 + Math.floor(i / 256)]) });
const IDS = [1, 40, 77, 11999, 5, 40, 77, 12, 260, 3, 150, 40];

const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-gguf-parts-'));
after(() => rm(dir, { recursive: true, force: true }));
const weights = lb.randomWeights(CONFIG, { seed: 5 });
const file = join(dir, 'x.gguf');
await writeFile(file, llamaGguf(CONFIG, weights, 'Q8_0'));
const bytes = new Uint8Array(await readFile(file));

async function logitsOf(source, opts) {
  const m = await lb.loadModel(source, opts);
  try {
    return m.forward(IDS).logits;
  } finally {
    m.dispose();
  }
}

test('a GGUF on disk and as a Blob load in parts into the model its bytes give, with progress up to its size', async () => {
  assert.ok(bytes.length > 3 * (1 << 20), `the file is ${bytes.length} bytes, larger than the first part read`);
  const want = await logitsOf(bytes);
  const reports = [];
  assert.deepEqual(await logitsOf(file, { onProgress: (p) => reports.push(p) }), want);
  assert.ok(reports.length > 2, 'reported as the parts were read');
  assert.deepEqual(reports.at(-1), { loaded: bytes.length, total: bytes.length });
  for (let i = 1; i < reports.length; ++i) assert.ok(reports[i].loaded >= reports[i - 1].loaded, 'progress never goes back');
  assert.deepEqual(await logitsOf(new Blob([bytes])), want);
  assert.deepEqual(await logitsOf({ weights: new Blob([bytes]) }), want);
  assert.deepEqual(await logitsOf(file, { weights: 'f16' }), await logitsOf(bytes, { weights: 'f16' }));
});

test('a GGUF given as bytes is read from them in parts, never copied whole into the module', async () => {
  // bytes whose parts the core asks for are counted: subarray is how a reader of bytes answers a read
  const parts = [];
  class Counted extends Uint8Array {
    subarray(begin, end) {
      parts.push(end - begin);
      return super.subarray(begin, end);
    }
  }
  const counted = new Counted(bytes);
  assert.deepEqual(await logitsOf(counted), await logitsOf(file));
  assert.ok(parts.length > 3, `${parts.length} parts`);
  assert.ok(Math.max(...parts) < bytes.length / 2, `the largest part is ${Math.max(...parts)} of ${bytes.length} bytes`);
  const read = parts.reduce((a, b) => a + b, 0);
  assert.ok(read >= bytes.length * 0.9 && read < bytes.length * 1.5, `${read} bytes read of ${bytes.length}: about once`);
  // the same with an abort between the parts: the load stops
  const control = new AbortController();
  class Aborting extends Uint8Array {
    subarray(begin, end) {
      if (begin > bytes.length / 2) control.abort();
      return super.subarray(begin, end);
    }
  }
  await assert.rejects(lb.loadModel(new Aborting(bytes), { signal: control.signal }), (e) => e.code === 'LOOKBACK_ABORTED');
});

test('an abort while a GGUF is read in parts stops the load with an AbortError', async () => {
  const control = new AbortController();
  let seen = 0;
  const onProgress = ({ loaded }) => {
    if (loaded > 0 && ++seen === 2) control.abort();
  };
  await assert.rejects(lb.loadModel(file, { signal: control.signal, onProgress }), (e) => e.name === 'AbortError' && e.code === 'LOOKBACK_ABORTED');
  // the module is left as it was: the same file loads after
  assert.equal((await logitsOf(file)).length, IDS.length * CONFIG.vocab_size);
});

test('a Blob of a format read whole (the weights of a lookback bundle) loads, with its config and tokenizer as Blobs', async () => {
  const config = JSON.stringify({ ...CONFIG, bos_id: 0, eos_id: 1 });  // byte-bpe's marks
  const want = await logitsOf({ weights, config, tokenizer: TOKENIZER });
  const blob = (x) => new Blob([x]);
  assert.deepEqual(await logitsOf({ weights: blob(weights), config: blob(config), tokenizer: blob(TOKENIZER) }), want);
});

// A server in another process (the load waits for each part synchronously, so it cannot be this thread's):
// ranges: the chapter's server (.scripts/serve.mjs, which answers them), else one that sends only whole files.
// Each request's Range header (or "whole") comes back in `asked`.
async function serverProcess(ranges) {
  const serve = new URL('../../.scripts/serve.mjs', import.meta.url).href;
  const code = ranges
    ? `import { startServer } from '${serve}';
       const { server, url } = await startServer({ port: 0, root: ${JSON.stringify(dir)} });
       server.on('request', (req) => console.log('asked ' + (req.headers.range ?? 'whole')));
       console.log('url ' + url);`
    : `import { createServer } from 'node:http';
       import { readFileSync } from 'node:fs';
       const bytes = readFileSync(${JSON.stringify(file)});
       const server = createServer((req, res) => {
         console.log('asked ' + (req.headers.range ?? 'whole'));
         res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
       });
       server.listen(0, '127.0.0.1', () => console.log('url http://127.0.0.1:' + server.address().port + '/'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  const asked = [];
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('url ')) resolve(line.slice(4));
      else if (line.startsWith('asked ')) asked.push(line.slice(6));
    });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.once('exit', (c) => reject(new Error(`the server exited (${c}): ${err}`)));
  });
  return { url, asked, stop: () => child.kill() };
}

test('a GGUF at an http URL is read in parts by range requests, or fetched whole from a server without ranges', async () => {
  const want = await logitsOf(bytes);
  // the chapter's server answers ranges: every request for the file asks for one, each a part, about once in all
  const own = await serverProcess(true);
  try {
    const reports = [];
    assert.deepEqual(await logitsOf(`${own.url}x.gguf`, { onProgress: (p) => reports.push(p) }), want);
    await new Promise((r) => setTimeout(r, 100));  // the last lines of the server's output
    assert.ok(own.asked.length > 3 && !own.asked.includes('whole'), `the requests: ${own.asked.slice(0, 5)}`);
    const sizes = own.asked.map((h) => h.split(/[=-]/).slice(1).map(Number)).map(([a, b]) => b - a + 1);
    assert.ok(Math.max(...sizes) < bytes.length / 2, `${sizes.length} parts, the largest ${Math.max(...sizes)}`);
    assert.ok(sizes.reduce((a, b) => a + b, 0) < bytes.length * 1.5, 'about once');
    assert.deepEqual(reports.at(-1), { loaded: bytes.length, total: bytes.length });
    await assert.rejects(lb.loadModel(`${own.url}missing.gguf`), (e) => e.code === 'LOOKBACK_NOT_FOUND');
  } finally {
    own.stop();
  }
  // a server that sends only whole files: asked for a range once, then the file is fetched whole
  const plain = await serverProcess(false);
  try {
    assert.deepEqual(await logitsOf(`${plain.url}x.gguf`), want);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(plain.asked, ['bytes=0-0', 'whole']);
  } finally {
    plain.stop();
  }
});
