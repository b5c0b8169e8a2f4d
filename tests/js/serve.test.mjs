// The static server's answers: security headers on every response (pages, files and 404s), 405 for methods
// other than GET and HEAD, no escaping the served folder, gzip only where Accept-Encoding allows it, one byte range
// of a file when asked (206, or 416 outside the file), and no file left open by aborted downloads. Not the chapter itself (tests/browser).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptsGzip, byteRange, startServer } from '../../.scripts/serve.mjs';

let server, url;
before(async () => ({ server, url } = await startServer({ port: 0 })));
after(() => server?.close());

function ask(path, method = 'GET', headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end();
  });
}

function secure(res, what) {
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', what);
  assert.match(res.headers['content-security-policy'] ?? '', /frame-ancestors 'self'/, what);
  assert.match(res.headers['content-security-policy'] ?? '', /default-src 'self'/, what);
}

test('every answer carries nosniff, a referrer policy and the CSP with frame-ancestors', async () => {
  for (const path of ['/', '/index.html', '/no-such-file.js', '/%E0%A4%A', '/../package.json']) {
    const res = await ask(path);
    secure(res, path);
  }
  assert.equal((await ask('/no-such-file.js')).statusCode, 404);
  assert.equal((await ask('/index.html', 'HEAD')).statusCode, 200);
});

test('methods other than GET and HEAD get 405 with Allow', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
    const res = await ask('/index.html', method);
    assert.equal(res.statusCode, 405, method);
    assert.equal(res.headers.allow, 'GET, HEAD', method);
    secure(res, method);
  }
});

test('gzip only when Accept-Encoding accepts it: "gzip;q=0" and "*;q=0" refuse it', async () => {
  for (const [header, gzip] of [['gzip', true], ['gzip, deflate, br', true], ['gzip;q=0, identity', false], ['GZIP;q=0.5', true],
    ['*', true], ['*;q=0', false], ['gzip;q=0, *', false], ['identity', false], ['', false], ['x-gzip', true], ['gzip;q=0.000', false]]) {
    assert.equal(acceptsGzip(header), gzip, header);
  }
  assert.equal((await ask('/index.html', 'GET', { 'accept-encoding': 'gzip;q=0, identity' })).headers['content-encoding'], undefined);
  assert.equal((await ask('/index.html', 'GET', { 'accept-encoding': 'gzip' })).headers['content-encoding'], 'gzip');
});

test('a byte range of a file is answered 206 with its bytes, a range outside it 416, anything else the whole file', async () => {
  for (const [header, want] of [['bytes=0-0', [0, 0]], ['bytes=10-', [10, 99]], ['bytes=-5', [95, 99]], ['bytes=0-1000', [0, 99]],
    ['bytes=100-200', false], ['bytes=-0', false], ['bytes=5-2', undefined], ['bytes=1-2,4-5', undefined], ['items=1-2', undefined],
    ['bytes=-', undefined], [undefined, undefined]]) {
    assert.deepEqual(byteRange(header, 100), want, String(header));
  }
  const root = mkdtempSync(join(tmpdir(), 'lookback-serve-'));
  const data = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
  writeFileSync(join(root, 'x.gguf'), data);
  const own = await startServer({ port: 0, root });
  const get = (headers) => new Promise((resolve, reject) => {
    const req = request(new URL('x.gguf', own.url), { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ res, body: new Uint8Array(Buffer.concat(chunks)) }));
    });
    req.on('error', reject);
    req.end();
  });
  try {
    const part = await get({ range: 'bytes=100-199', 'accept-encoding': 'gzip' });
    assert.equal(part.res.statusCode, 206);
    assert.equal(part.res.headers['content-range'], 'bytes 100-199/1000');
    assert.equal(part.res.headers['content-encoding'], undefined, 'a part is sent as it is');
    assert.deepEqual(part.body, data.subarray(100, 200));
    secure(part.res, '206');
    const outside = await get({ range: 'bytes=1000-' });
    assert.equal(outside.res.statusCode, 416);
    assert.equal(outside.res.headers['content-range'], 'bytes */1000');
    const whole = await get({});
    assert.equal(whole.res.statusCode, 200);
    assert.equal(whole.res.headers['accept-ranges'], 'bytes');
    assert.deepEqual(whole.body, data);
  } finally {
    own.server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('aborted downloads leave no file open: 300 aborts of a large file, then the open descriptors are as before', async () => {
  const root = mkdtempSync(join(tmpdir(), 'lookback-serve-'));
  writeFileSync(join(root, 'big.bin'), new Uint8Array(16 << 20));
  const own = await startServer({ port: 0, root });
  const fds = () => readdirSync('/proc/self/fd').length;
  const abort = () => new Promise((resolve) => {
    const req = request(new URL('big.bin', own.url), (res) => res.once('data', () => {
      req.destroy();
      resolve();
    }));
    req.on('error', () => {});
    req.end();
  });
  try {
    await abort();
    await new Promise((r) => setTimeout(r, 200));
    const before = fds();
    for (let i = 0; i < 300; i += 30) await Promise.all(Array.from({ length: 30 }, abort));
    // the server sees each abort on its own schedule: wait (a bounded while) for it to close what it opened
    let now = fds();
    for (let i = 0; i < 50 && now > before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = fds();
    }
    assert.ok(now <= before + 2, `open descriptors: ${before} before, ${now} after 300 aborted downloads`);
  } finally {
    own.server.close();
    rmSync(root, { recursive: true, force: true });
  }
});
