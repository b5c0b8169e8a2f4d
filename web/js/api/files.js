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

export const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

// A source's parts as { size, read(at, n), close(), name } (name: bytes' is `name`, a Blob's its own).
async function partsOf(source, what, name) {
  if (isBlob(source)) {
    const blobName = source.name ?? 'the file';
    if (typeof FileReaderSync !== 'function') {  // no synchronous reads here: the Blob is read once, in JS
      let bytes;
      try {
        bytes = new Uint8Array(await source.arrayBuffer());
      } catch (e) {
        throw coded(CODES.FETCH_FAILED, `${what}: the file could not be read (${e.message})`, { cause: e });
      }
      return partsOf(bytes, what, blobName);
    }
    const files = new FileReaderSync();
    return { size: source.size, read: (at, n) => new Uint8Array(files.readAsArrayBuffer(source.slice(at, at + n))), name: blobName };
  }
  if (source instanceof Uint8Array) return { size: source.length, read: (at, n) => source.subarray(at, at + n), name };
  if (typeof source?.read === 'function') return source;  // parts from elsewhere: { size, read(at, n), close(), name }
  const file = (await nodeHost())?.openParts?.(source, what);
  if (!file) throw coded(CODES.BAD_ARGUMENT, `${what}: only a Blob or, in Node, a file is read in parts`, { type: TypeError });
  return { ...file, name: source instanceof URL && source.protocol === 'file:' ? decodeURIComponent(source.pathname) : String(source) };
}

// A weights file for the core to read in parts (the formats that stream: wasm/bindings/load.cpp JsSource):
// { size, name, read(offset, length) -> Uint8Array, failure, close() }, from a Blob (a page's File), bytes already
// in JS (read where they are: the module never holds the file as well), parts from elsewhere ({ size, read,
// close, name }) or, in Node, a file: URL. A worker reads a Blob's parts as they are asked for (FileReaderSync);
// where there are no synchronous reads (a page's main thread, Node) the Blob is read once, in JS. onChunk(n, size)
// reports the bytes up to the furthest part read. An error (or an abort) while reading is kept in `failure` and
// the read answers null, which the core reports as a failed read; the caller throws `failure`.
export async function openParts(source, { signal, onChunk = () => {}, what = 'loadModel', name = 'the weights file' } = {}) {
  throwIfAborted(signal, what);
  const { size, read: readRange, close = () => {}, name: partsName } = await partsOf(source, what, name);
  let reached = 0;
  onChunk(0, size);
  const reader = {
    size,
    name: partsName,
    failure: null,
    read(at, n) {
      if (reader.failure) return null;
      try {
        throwIfAborted(signal, what);
        const bytes = readRange(at, n);
        if (bytes.length !== n) {  // a part of a File moved or changed since it was picked reads short
          throw coded(CODES.FETCH_FAILED, `${what}: ${reader.name} gave ${bytes.length} bytes where ${n} were asked (at byte ${at}); was it moved or changed while it was read?`);
        }
        if (at + n > reached) {
          onChunk(at + n - reached, size);
          reached = at + n;
        }
        return bytes;
      } catch (e) {
        reader.failure = e.code ? e : coded(CODES.FETCH_FAILED, `${what}: reading the weights failed (${e.message})`, { cause: e });
        return null;
      }
    },
    close() {
      if (reached < 0) return;  // closed
      if (reached < size && !reader.failure) onChunk(size - reached, size);  // parts not needed (rows past the context)
      reached = -1;
      close();
    },
  };
  return reader;
}

// Where a URL's parts can be read as the core asks for them, from an http(s) server that answers byte ranges: in a
// worker (synchronous requests are allowed there) and in Node (node-host.js rangeReader). On a page's main thread
// it is fetched whole.
const inWorker = () => typeof XMLHttpRequest === 'function' && typeof FileReaderSync === 'function';
export const canReadUrlParts = (url) => /^https?:$/.test(url.protocol) && (inWorker() || IN_NODE);

// Bytes [at, at + n) of url by one synchronous request (a worker's XMLHttpRequest).
function xhrRange(url, what) {
  return (at, n) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', url.href, false);
    xhr.responseType = 'arraybuffer';
    xhr.setRequestHeader('Range', `bytes=${at}-${at + n - 1}`);
    xhr.send();
    if (xhr.status !== 206) throw coded(CODES.FETCH_FAILED, `${what}: ${url.href} answered HTTP ${xhr.status} for bytes ${at}-${at + n - 1}`);
    return new Uint8Array(xhr.response ?? new ArrayBuffer(0));
  };
}

// A weights file at an http(s) URL read in parts (openParts' reader), each part a byte-range request; null when
// the server does not answer ranges (asked once, without waiting for a whole file: the caller then fetches it whole).
export async function openUrlParts(url, opts = {}) {
  const what = opts.what ?? 'loadModel';
  throwIfAborted(opts.signal, what);
  let first;
  try {
    first = await fetch(url, { headers: { Range: 'bytes=0-0' }, signal: opts.signal });
  } catch (e) {
    if (opts.signal?.aborted) throw abortError(opts.signal, what);
    return null;  // the whole fetch says what went wrong
  }
  const total = /^bytes 0-0\/(\d+)$/.exec(first.headers.get('content-range') ?? '');
  first.body?.cancel?.().catch(() => {});
  if (first.status !== 206 || !total) return null;
  const ranges = inWorker() ? { read: xhrRange(url, what), close: () => {} } : (await nodeHost()).rangeReader(url, what);
  return openParts({ size: Number(total[1]), read: (at, n) => (n === 0 ? new Uint8Array(0) : ranges.read(at, n)),
    close: ranges.close, name: url.href }, opts);
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
