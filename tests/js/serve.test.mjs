// The static server's answers: security headers on every response (pages, files and 404s), 405 for methods
// other than GET and HEAD, no escaping the served folder. Not the chapter itself (tests/browser).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from '../../.scripts/serve.mjs';

let server, url;
before(async () => ({ server, url } = await startServer({ port: 0 })));
after(() => server?.close());

function ask(path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method }, (res) => {
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
