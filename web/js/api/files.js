// Reading the files the API needs (the .wasm, a model's weights, config and tokenizer) from a URL, with
// progress (bytes loaded / total) and an AbortSignal. Over http(s) it uses fetch; file: URLs in Node go
// through the host that web/js/api/node-host.js installs, so this module imports nothing from Node and
// bundles for the browser as it is. Not the parsing of any format (the WebAssembly core does that).
import { abortError, CODES, coded, throwIfAborted } from './errors.js';

export const IN_NODE = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined'
  && typeof WorkerGlobalScope === 'undefined';

// The most bytes of one file the core reads (wasm/bindings/model_args.hpp kMaxFileBytes). A larger file is
// refused from its size as the file system or the server gives it, before any of it is read; a response that
// gives no size is stopped as soon as it passes the limit.
export const MAX_FILE_BYTES = 2 ** 30;

export function tooLarge(what, where, size) {
  return coded(CODES.TOO_LARGE, `${what}: ${where} is ${size} bytes; the most a model file may hold is ${MAX_FILE_BYTES} (1 GiB)`);
}

// The Node file access: { read(url, {signal, onChunk}), exists(url), toUrl(path), cores() }, set by node-host.js.
let host = null;
export function useHost(h) {
  host = h;
}

// In Node, the host is loaded on first need when the package was imported through its browser entry. The
// specifier is computed from this file's address kept as a value, so that bundlers leave the file (and its node:
// imports) out of browser bundles.
const HERE = import.meta.url;
export async function nodeHost() {
  if (!IN_NODE) return null;
  if (!host) await import(/* webpackIgnore: true */ /* @vite-ignore */ new URL('./node-host.js', HERE).href);
  return host;
}

// A URL for a string or URL: absolute URLs as they are; in Node a plain string is a file path, in a page a
// path relative to the document. Only http(s) and file URLs are read (a folder's files are found beside it);
// any other scheme (data:, blob:, ftp:) is refused, saying what is accepted.
export async function locate(where, what = 'a location') {
  if (where instanceof URL) return readable(where, what);
  if (typeof where !== 'string' || where === '') {
    throw coded(CODES.BAD_ARGUMENT, `loadModel: ${what} must be a non-empty string or URL`, { type: TypeError });
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(where) && !/^[a-z]:[\\/]/i.test(where)) {
    let url;
    try {
      url = new URL(where);
    } catch (e) {
      throw coded(CODES.BAD_ARGUMENT, `loadModel: ${what} ${JSON.stringify(where.slice(0, 40))} is not a valid URL (${e.message})`, { type: TypeError, cause: e });
    }
    return readable(url, what);
  }
  const h = await nodeHost();
  if (h) return h.toUrl(where);
  return new URL(where, globalThis.document?.baseURI ?? globalThis.location?.href);
}

function readable(url, what) {
  if (['http:', 'https:', 'file:'].includes(url.protocol)) return url;
  throw coded(CODES.BAD_ARGUMENT, `loadModel: ${what} is a ${url.protocol} URL; give a bundled model's name, a path, an `
    + 'http(s) or file: URL (of a bundle folder, a .safetensors or a .bin file), or the bytes', { type: TypeError });
}

export async function exists(url) {
  const h = url.protocol === 'file:' ? await nodeHost() : null;
  return h ? h.exists(url) : true;  // over the network, the first fetch says
}

// The bytes at url. onChunk(n, total) is called as bytes arrive (total: null when unknown, e.g. compressed).
export async function readBytes(url, { signal, onChunk = () => {}, what = 'loadModel' } = {}) {
  throwIfAborted(signal, what);
  const h = url.protocol === 'file:' ? await nodeHost() : null;
  if (h) return h.read(url, { signal, onChunk, what });
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (e) {
    if (signal?.aborted) throw abortError(signal, what);
    throw coded(CODES.FETCH_FAILED, `${what}: cannot fetch ${url.href} (${e.message})`, { cause: e });
  }
  if (!response.ok) {
    const code = response.status === 404 ? CODES.NOT_FOUND : CODES.FETCH_FAILED;
    throw coded(code, `${what}: cannot fetch ${url.href} (HTTP ${response.status})`);
  }
  const length = Number(response.headers.get('content-length'));
  const total = !response.headers.get('content-encoding') && length > 0 ? length : null;
  if (total > MAX_FILE_BYTES) {
    response.body?.cancel?.().catch(() => {});
    throw tooLarge(what, url.href, total);
  }
  onChunk(0, total);
  if (!response.body?.getReader) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onChunk(bytes.length, total);
    return bytes;
  }
  return collect(response.body.getReader(), total, { signal, onChunk, what, url });
}

async function collect(reader, total, { signal, onChunk, what, url }) {
  const chunks = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      if (size > MAX_FILE_BYTES) throw tooLarge(what, url.href, `more than ${MAX_FILE_BYTES}`);
      onChunk(value.length, total);
    }
  } catch (e) {
    if (e.code === CODES.TOO_LARGE) {
      reader.cancel().catch(() => {});
      throw e;
    }
    if (signal?.aborted) throw abortError(signal, what);
    throw coded(CODES.FETCH_FAILED, `${what}: reading failed (${e.message})`, { cause: e });
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// One progress report for several files read at once: onProgress({ loaded, total }). total is null until every
// file has started; then the sum of the sizes known in advance plus the bytes so far of files whose size is
// not (a compressed response), so loaded never passes total and both end at the bytes read.
export function progressOver(files, onProgress) {
  if (typeof onProgress !== 'function') return () => () => {};
  const state = new Map();  // name -> { size (null: unknown), loaded }
  return (name) => (n, size) => {
    if (!state.has(name)) state.set(name, { size, loaded: 0 });
    state.get(name).loaded += n;
    let loaded = 0;
    let total = 0;
    for (const f of state.values()) {
      loaded += f.loaded;
      total += f.size ?? f.loaded;
    }
    onProgress({ loaded, total: state.size === files ? total : null });
  };
}
