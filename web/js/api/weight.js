// The resident-weight half of the lookback JS API: lb.weight(b, { K, N, transB }) copies a constant matrix
// into the module once (packed for the matrix product) and returns a Weight whose gemm(a, { M }) computes
// a·b without copying b again. A Float32Array `a` of exactly M·K floats (and `out`, when given, of M·N) is copied
// straight into the weight's staging buffer in the module and the product read straight out of it; any other
// argument takes the checked path, whose messages name it. Over the handle-based bindings of
// wasm/bindings/weight.cpp. Not here: the per-call gemm (index.js), models (model.js).
import { CODES, coded } from './errors.js';
import { checked } from './loaded-model.js';
import { f32, isPlain, options, outArray, REQUIRED } from './options.js';
import { stagingView } from './staging-view.js';

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ M, handle }) => M.weightDispose(handle))
  : null;

class Weight {
  #M;
  #handle;
  #view;  // (floats needed, M) -> the view of this weight's staging buffer

  constructor(M, info) {
    this.#M = M;
    this.#handle = info.handle;
    this.K = info.K;
    this.N = info.N;
    this.#view = stagingView((M) => checked(this.#M.weightStage(this.#handle, M)));
    Object.freeze(this);
    finalizer?.register(this, { M, handle: info.handle }, this);
  }

  /** a [M,K] times the resident matrix -> Float32Array [M,N] */
  gemm(a, opts) {
    const o = options('weight.gemm', opts, { M: REQUIRED, out: null });
    const fast = this.#staged(a, o.M, o.out);
    if (fast) return fast;
    const input = f32(a, 'weight.gemm', 'a'), out = outArray(o.out);
    return out.finish(checked(this.#M.weightGemm(this.#live(), input, o.M, out.value)));
  }

  // The fast path, or null when an argument needs the checked path's messages.
  #staged(a, M, out) {
    if (!isPlain(a, Float32Array) || !Number.isSafeInteger(M) || M < 1) return null;
    const na = M * this.K, nc = M * this.N;
    if (a.length !== na || (out != null && !(isPlain(out, Float32Array) && out.length === nc))) return null;
    this.#live();
    let s = this.#view(na + nc, M);
    s.set(a, 0);
    checked(this.#M.weightGemmStaged(this.#handle, M));
    s = this.#view(na + nc, M);  // the same view, unless the call grew the memory (an unshared buffer is then detached)
    const c = out ?? new Float32Array(nc);
    c.set(s.subarray(na, na + nc));
    return c;
  }

  #live() {
    if (this.#handle === null) throw coded(CODES.DISPOSED, 'weight.gemm: this weight matrix was disposed');
    return this.#handle;
  }

  /** frees the module's copy now (it is also freed when the object is garbage-collected) */
  dispose() {
    if (this.#handle === null) return;
    finalizer?.unregister(this);
    this.#M.weightDispose(this.#handle);
    this.#handle = null;
    this.#view = null;
  }
}

export function weightApi(M) {
  return {
    /** a constant matrix kept in the module: b [K,N] (or [N,K] with transB) */
    weight(b, opts) {
      const o = options('weight', opts, { K: REQUIRED, N: REQUIRED, transB: false });
      return new Weight(M, checked(M.weightCreate(f32(b, 'weight', 'b'), o.K, o.N, !!o.transB)));
    },
  };
}
