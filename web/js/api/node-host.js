// The Node side of web/js/api/files.js: reads file: URLs from disk in chunks (progress, AbortSignal) or in the
// parts the core asks for (openParts), and turns paths into URLs. Imported by the Node entry (web/js/api/node.js), or loaded on first need in Node; never
// part of a browser bundle. Not the reading of whole URLs over the network (files.js uses fetch); it does read an
// http(s) URL's parts synchronously (rangeReader) for the core.
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { abortError, CODES, coded } from './errors.js';
import { MAX_FILE_BYTES, tooLarge, useHost } from './files.js';

const CHUNK = 1 << 20;

async function read(url, { signal, onChunk, what }) {
  const path = fileURLToPath(url);
  let file;
  try {
    file = await open(path, 'r');
  } catch (e) {
    const code = e.code === 'ENOENT' ? CODES.NOT_FOUND : CODES.FETCH_FAILED;
    throw coded(code, `${what}: cannot read ${path} (${e.code || e.message})`, { cause: e });
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_FILE_BYTES) throw tooLarge(what, path, size);
    const out = new Uint8Array(size);
    onChunk(0, size);
    for (let at = 0; at < size;) {
      if (signal?.aborted) throw abortError(signal, what);
      const { bytesRead } = await file.read(out, at, Math.min(CHUNK, size - at), at);
      if (bytesRead === 0) break;
      at += bytesRead;
      onChunk(bytesRead, size);
    }
    return out;
  } finally {
    await file.close();
  }
}

// A file read in parts as the core asks (files.js openParts): { size, read(at, n), close() }.
function openParts(url, what) {
  const path = fileURLToPath(url);
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = e.code === 'ENOENT' ? CODES.NOT_FOUND : CODES.FETCH_FAILED;
    throw coded(code, `${what}: cannot read ${path} (${e.code || e.message})`, { cause: e });
  }
  const { size } = fstatSync(fd);
  const read = (at, n) => {
    const out = new Uint8Array(n);
    for (let got = 0; got < n;) {
      const k = readSync(fd, out, got, n - got, at + got);
      if (k === 0) throw coded(CODES.FETCH_FAILED, `${what}: ${path} ended at byte ${at + got} (was it changed while it was read?)`);
      got += k;
    }
    return out;
  };
  return { size, read, close: () => closeSync(fd) };
}

// Parts of an http(s) URL read synchronously, as the core asks (files.js openUrlParts): { read(at, n), close() }.
// Node has no synchronous request, so a worker thread fetches each byte range while this thread waits on a
// shared flag (Atomics.wait) for the bytes it writes into shared memory.
const RANGE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', async ({ at, n, shared }) => {
  const head = new Int32Array(shared, 0, 2), out = new Uint8Array(shared, 8);
  try {
    const r = await fetch(workerData.url, { headers: { Range: 'bytes=' + at + '-' + (at + n - 1) } });
    const bytes = new Uint8Array(await r.arrayBuffer());
    if (r.status === 206) out.set(bytes.subarray(0, n));
    head[1] = r.status === 206 ? bytes.length : -r.status;
  } catch {
    head[1] = -1;
  }
  Atomics.store(head, 0, 1);
  Atomics.notify(head, 0);
});`;
const RANGE_WAIT_MS = 120000;

function rangeReader(url, what) {
  const worker = new Worker(RANGE_WORKER, { eval: true, workerData: { url: url.href } });
  worker.unref();
  let shared = null;
  const read = (at, n) => {
    if (!shared || shared.byteLength < 8 + n) shared = new SharedArrayBuffer(8 + n);
    const head = new Int32Array(shared, 0, 2);
    Atomics.store(head, 0, 0);
    worker.postMessage({ at, n, shared });
    if (Atomics.wait(head, 0, 0, RANGE_WAIT_MS) === 'timed-out') {
      throw coded(CODES.FETCH_FAILED, `${what}: ${url.href} did not answer a request for bytes ${at}-${at + n - 1} in ${RANGE_WAIT_MS / 1000} s`);
    }
    const got = head[1];
    if (got < 0) {
      throw coded(CODES.FETCH_FAILED, `${what}: ${url.href} ${got === -1 ? 'could not be fetched' : `answered HTTP ${-got}`} for bytes ${at}-${at + n - 1}`);
    }
    return new Uint8Array(shared, 8, got).slice();
  };
  return { read, close: () => worker.terminate() };
}

function toUrl(path) {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch { /* missing: reported when read */ }
  return pathToFileURL(resolve(path) + (dir ? '/' : ''));
}

useHost({ read, openParts, rangeReader, exists: (url) => existsSync(fileURLToPath(url)), toUrl, cores: availableParallelism });
