// The page's side of the worker: request(op, args, {key}) returns a promise of the result. A newer request
// with the same key makes an older queued one settle with an AbortError (stale work is dropped, not run).
// Requests made in the same task travel as one message and their answers come back as one (an update that
// needs several computations pays one round trip). Not the worker (worker.js); widgets never import this: a
// controller does (web/js/chapter).

export class ComputeClient {
  constructor(workerUrl = new URL('./worker.js', import.meta.url)) {
    this.worker = new Worker(workerUrl, { type: 'module' });
    this.nextId = 1;
    this.pending = new Map();
    this.outbox = [];
    this.worker.onmessage = ({ data }) => data.results.forEach((r) => this.settle(r));
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.failAll(new Error(`lookback worker failed: ${event.message || 'could not start'}`));
    };
  }

  request(op, args = [], { key } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.outbox.push({ id, op, args, key });
      if (this.outbox.length === 1) queueMicrotask(() => this.worker.postMessage({ batch: this.outbox.splice(0) }));
    });
  }

  settle({ id, ok, result, error, dropped }) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (dropped) p.reject(Object.assign(new Error('superseded by a newer request'), { name: 'AbortError' }));
    else if (ok) p.resolve(result);
    else p.reject(new Error(error));
  }

  failAll(err) {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  terminate() {
    this.worker.terminate();
    this.failAll(new Error('lookback worker stopped'));
  }
}
