// The resident-weight half of the lookback JS API: lb.weight(b, { K, N, transB }) copies a constant matrix
// into the module once (packed for the matrix product) and returns a Weight whose gemm(a, { M }) computes
// a·b without copying b again. Over the handle-based bindings of wasm/bindings/weight.cpp. Not here: the
// per-call gemm (index.js), models (model.js).
import { f32, options, REQUIRED } from './options.js';

function checked(result) {
  if (result instanceof Error) throw result;
  return result;
}

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ M, handle }) => M.weightDispose(handle))
  : null;

class Weight {
  #M;
  #handle;

  constructor(M, info) {
    this.#M = M;
    this.#handle = info.handle;
    this.K = info.K;
    this.N = info.N;
    Object.freeze(this);
    finalizer?.register(this, { M, handle: info.handle }, this);
  }

  /** a [M,K] times the resident matrix -> Float32Array [M,N] */
  gemm(a, opts) {
    if (this.#handle === null) throw new Error('weight.gemm: this weight matrix was disposed');
    const o = options('weight.gemm', opts, { M: REQUIRED, out: null });
    return checked(this.#M.weightGemm(this.#handle, f32(a), o.M, o.out));
  }

  /** frees the module's copy now (it is also freed when the object is garbage-collected) */
  dispose() {
    if (this.#handle === null) return;
    finalizer?.unregister(this);
    this.#M.weightDispose(this.#handle);
    this.#handle = null;
  }
}

export function weightApi(M) {
  return {
    /** a constant matrix kept in the module: b [K,N] (or [N,K] with transB) */
    weight(b, opts) {
      const o = options('weight', opts, { K: REQUIRED, N: REQUIRED, transB: false });
      return new Weight(M, checked(M.weightCreate(f32(b), o.K, o.N, !!o.transB)));
    },
  };
}
