// A dependency-free static server for the chapter (web/) on 127.0.0.1, sending a strict Content-Security-Policy
// (no 'unsafe-eval'; framed only by its own origin), nosniff and no-referrer on every answer (404 and 405
// too), answering only GET and HEAD, gzip-compressing text and WebAssembly as any ordinary static host would, and
// sending one byte range of a file when asked (a model read in parts).
// It also makes the pages cross-origin isolated (COOP/COEP), so that the core runs on every core with
// WebAssembly threads; without those headers (any plain static host) the one-thread module runs instead.
// Used by `npm start` and by the browser tests. Not needed to read the chapter: web/ is a static folder any
// server can host.
import { createServer } from 'node:http';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

// Sent with every answer, whatever its status. isolate: cross-origin isolation (the page may then share memory
// with its workers); cors: the files may be loaded by pages on other origins, isolated ones too.
function securityHeaders(csp, { isolate, cors }) {
  const h = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
  if (csp) h['content-security-policy'] = csp;
  if (isolate) Object.assign(h, { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
  h['cross-origin-resource-policy'] = cors ? 'cross-origin' : 'same-origin';
  return h;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream', '.bin': 'application/octet-stream', '.cpp': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.py': 'text/plain; charset=utf-8',
};

// Text and WebAssembly shrink well; fonts, images and weights are sent as they are.
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt', '.cpp', '.md', '.csv', '.py']);
const gzipCache = new Map();  // file -> {mtimeMs, size, data}

function gzipped(file, stat) {
  const hit = gzipCache.get(file);
  if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.data;
  const data = gzipSync(readFileSync(file), { level: 9 });
  gzipCache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, data });
  return data;
}

// Whether an Accept-Encoding header accepts gzip: named with a q above 0, or not named and "*" with a q above 0
// ("gzip;q=0" refuses it).
export function acceptsGzip(header = '') {
  let gzip, star;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, weight || 0);
    else if (name === '*') star = weight || 0;
  }
  return (gzip ?? star ?? 0) > 0;
}

// A Range header of one part ("bytes=a-b", "bytes=a-", "bytes=-n") -> [first, last] byte, inclusive; undefined
// when there is none or it is not one such part (the whole file is sent); false when it lies outside the file.
export function byteRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let first = m[1] === '' ? size - Number(m[2]) : Number(m[1]);
  const last = m[1] === '' || m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[1] !== '' && m[2] !== '' && Number(m[1]) > Number(m[2])) return undefined;  // not a valid range: ignored
  first = Math.max(first, 0);
  return first > last || first >= size ? false : [first, last];
}

const WEB = fileURLToPath(new URL('../web', import.meta.url));

function resolvePath(urlPath, root) {
  let clean;
  try {
    clean = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  const file = normalize(join(root, clean));
  return file === root || file.startsWith(root + sep) ? file : null;  // no escaping the folder
}

// root: the folder served (default web/); cors: send Access-Control-Allow-Origin: * (an asset host that lets
// pages on other origins load the widgets); isolate: send COOP/COEP (false: serve as a plain static host).
export function startServer({ port = 0, host = '127.0.0.1', csp = CSP, root = WEB, cors = false, isolate = true } = {}) {
  const server = createServer((req, res) => {
    const secure = securityHeaders(csp, { isolate, cors });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...secure, allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    let file = resolvePath(req.url || '/', root);
    let stat;
    try {
      if (file && statSync(file).isDirectory()) file = join(file, 'index.html');
      stat = file && statSync(file);
      if (!stat || !stat.isFile()) throw new Error('not found');
    } catch {
      res.writeHead(404, { ...secure, 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const headers = { ...secure, 'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'cache-control': 'no-cache', vary: 'accept-encoding' };
    if (cors) headers['access-control-allow-origin'] = '*';
    const range = byteRange(req.headers.range, stat.size);
    if (range === false) {
      res.writeHead(416, { ...headers, 'content-range': `bytes */${stat.size}` }).end();
      return;
    }
    if (range) {  // a part of the file, as it is (a model read in parts)
      const [start, end] = range;
      res.writeHead(206, { ...headers, 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${stat.size}`, 'content-length': end - start + 1 });
      if (req.method === 'HEAD') res.end();
      else pipeline(createReadStream(file, { start, end }), res, () => {});
      return;
    }
    if (COMPRESSIBLE.has(extname(file)) && acceptsGzip(req.headers['accept-encoding'])) {
      const body = gzipped(file, stat);
      res.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': body.length }).end(body);
      return;
    }
    res.writeHead(200, { ...headers, 'accept-ranges': 'bytes', 'content-length': stat.size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // pipeline, not pipe: a reader who goes away (an aborted download) closes the file too, and a read error
    // (EMFILE under a low ulimit) ends this answer instead of the server
    pipeline(createReadStream(file), res, () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}/` }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = Number(process.env.PORT || 8080);
  let started;
  try {
    started = await startServer({ port: wanted });
  } catch (e) {
    if (e.code !== 'EADDRINUSE') throw e;
    started = await startServer({ port: 0 });
    console.log(`port ${wanted} is busy; using another`);
  }
  console.log(`lookback chapter: ${started.url}  (Ctrl-C to stop)`);
}
