// The JS API's error codes: every Error the API throws on purpose carries a `code` (and a `cause` where one
// exists), so callers can branch on what went wrong rather than on message text. Not the messages' wording
// (each thrower writes its own) and not the bindings' checks (they return Errors that loadModel codes).

export const CODES = Object.freeze({
  BAD_ARGUMENT: 'LOOKBACK_BAD_ARGUMENT',       // an argument or option of the wrong kind
  NOT_FOUND: 'LOOKBACK_NOT_FOUND',             // a file or URL that does not exist (ENOENT, HTTP 404)
  FETCH_FAILED: 'LOOKBACK_FETCH_FAILED',       // a read or request that failed otherwise
  CORE_MISSING: 'LOOKBACK_CORE_MISSING',       // the WebAssembly loader or .wasm could not be loaded
  BAD_MODEL: 'LOOKBACK_BAD_MODEL',             // files that were read but are not a valid model
  UNSUPPORTED_FORMAT: 'LOOKBACK_UNSUPPORTED_FORMAT',  // a known format lookback does not read
  ABORTED: 'LOOKBACK_ABORTED',                 // stopped through an AbortSignal (name "AbortError")
  WORKER_FAILED: 'LOOKBACK_WORKER_FAILED',     // a page's worker could not start (web/js/worker/client.js)
  DISPOSED: 'LOOKBACK_DISPOSED',               // a model, weight matrix or training run used after dispose()
  TOO_LARGE: 'LOOKBACK_TOO_LARGE',             // a file over the 1 GiB the core reads (refused before reading)
});

export function coded(code, message, { cause, type = Error } = {}) {
  const e = new type(message, cause === undefined ? undefined : { cause });
  e.code = code;
  return e;
}

// The error an aborted operation rejects with: name AbortError (as fetch's), code LOOKBACK_ABORTED, and the
// signal's reason as its cause.
export function abortError(signal, what = 'the operation') {
  const e = coded(CODES.ABORTED, `${what} was aborted`, { cause: signal?.reason });
  e.name = 'AbortError';
  return e;
}

export function throwIfAborted(signal, what) {
  if (signal?.aborted) throw abortError(signal, what);
}
