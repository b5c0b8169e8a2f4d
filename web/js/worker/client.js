// The page's side of the worker: request(op, args, {key, onProgress, signal}) returns a promise of the result.
// A newer request with the same key makes an older queued one settle with an AbortError (stale work is
// dropped, not run); an aborted `signal` cancels the request in the worker (AbortError); `onProgress` receives
// what the operation reports on the way (a model's bytes loaded, a generation's tokens). Requests made in the
// same task travel as one message and their answers come back as one (an update that needs several
// computations pays one round trip). The worker starts on start() or the first request (start-worker.js, also
// from another origin); if it cannot, every request rejects with code LOOKBACK_WORKER_FAILED. Not the worker (worker.js); widgets never import this: a controller does (web/js/chapter).
import { startWorker, workerAdvice } from './start-worker.js';

const HERE = import.meta.url;   // kept as a value: bundlers rewrite only new URL('literal', import.meta.url)
import { PROTOCOL_VERSION } from '../protocol.js';

export class ComputeClient {
  constructor(workerUrl = new URL('./worker.js', HERE)) {
    this.workerUrl = workerUrl;
    this.worker = null;
    this.failure = null;
    this.nextId = 1;
    this.pending = new Map();
    this.outbox = [];
  }

  start() {
    if (this.worker || this.failure) return;
    const fail = (reason) => {
      this.failure = Object.assign(new Error(`lookback could not start its worker (${reason}): ${workerAdvice(this.workerUrl)}`),
        { code: 'LOOKBACK_WORKER_FAILED' });
      this.failAll(this.failure);
    };
    try {
      this.worker = startWorker(this.workerUrl);
    } catch (e) {
      fail(e.message);
      return;
    }
    this.worker.onmessage = ({ data }) => {
      if (data.progress) this.pending.get(data.progress.id)?.onProgress?.(data.progress.value);
      else data.results.forEach((r) => this.settle(r));
    };
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      fail(event.message || 'the worker script did not load');
    };
  }

  request(op, args = [], { key, onProgress, signal } = {}) {
    this.start();
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(aborted(signal));
      this.pending.set(id, { resolve, reject, onProgress });
      signal?.addEventListener('abort', () => {
        if (!this.pending.has(id)) return;
        this.worker.postMessage({ cancel: id });
        this.pending.delete(id);
        reject(aborted(signal));
      }, { once: true });
      this.outbox.push({ id, op, args, key, progress: typeof onProgress === 'function' });
      if (this.outbox.length === 1) queueMicrotask(() => this.worker.postMessage({ version: PROTOCOL_VERSION, batch: this.outbox.splice(0) }));
    });
  }

  settle({ id, ok, result, error, code, dropped }) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (dropped) p.reject(Object.assign(new Error('superseded by a newer request'), { name: 'AbortError' }));
    else if (ok) p.resolve(result);
    else p.reject(Object.assign(new Error(error), code ? { code } : {}, code === 'LOOKBACK_ABORTED' ? { name: 'AbortError' } : {}));
  }

  failAll(err) {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  terminate() {
    this.worker?.terminate();
    this.failAll(new Error('lookback worker stopped'));
  }
}

function aborted(signal) {
  return Object.assign(new Error('the request was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'LOOKBACK_ABORTED' });
}
