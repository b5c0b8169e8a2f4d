// The Node side of web/js/api/files.js: reads file: URLs from disk in chunks (progress, AbortSignal) or in the
// parts the core asks for (openParts), and turns paths into URLs. Imported by the Node entry (web/js/api/node.js), or loaded on first need in Node; never
// part of a browser bundle. Not the reading of URLs over the network (files.js uses fetch).
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
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

function toUrl(path) {
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch { /* missing: reported when read */ }
  return pathToFileURL(resolve(path) + (dir ? '/' : ''));
}

useHost({ read, openParts, exists: (url) => existsSync(fileURLToPath(url)), toUrl, cores: availableParallelism });
