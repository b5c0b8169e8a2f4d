// The fast path of lb.attention: q, k and v, when they are Float32Arrays of exactly the sizes the shape asks for,
// are copied straight into the core's staging buffer (the shape into one of eight doubles) and the output (and
// weights) read straight out of it, so the bindings make no JS objects per array. Anything else (a wrong length,
// a bad `out`, an array that is not a Float32Array) returns null and the caller takes the checked path, whose
// error messages name the argument. Values (NaN, Infinity, float32 range) and the shape are checked by the core
// either way.
import { isPlain } from './options.js';
import { stagingView } from './staging-view.js';

export function stagedAttention(M, checked) {
  const MAX_ELEMENTS = M.maxElements;  // the core's limit on one tensor argument
  if (!Number.isInteger(MAX_ELEMENTS)) throw new Error('lookback: the core module does not match this API (no maxElements); rebuild it');
  const view = stagingView((n) => checked(M.attentionStage(n)));
  const shapeView = stagingView(() => M.attentionShapeStage());  // 8 doubles the call reads its shape from
  // q, k, v: Float32Arrays; o: the options (shape, mask, weights, out) as attentionOptions made them.
  return (q, k, v, o) => {
    const sh = o.shape, T = sh[0], S = sh[1], H = sh[2], Hkv = sh[3], D = sh[4];  // indexed: no iterator
    const nq = T * H * D, nk = S * Hkv * D, nw = o.weights ? H * T * S : 0;
    const out = o.out;
    if (!(isPlain(q, Float32Array) && isPlain(k, Float32Array) && isPlain(v, Float32Array))) return null;
    if (q.length !== nq || k.length !== nk || v.length !== nk || nq === 0 || nk === 0) return null;
    if (nq > MAX_ELEMENTS || nk > MAX_ELEMENTS || !(nw <= MAX_ELEMENTS) || !Number.isInteger(nw)) return null;
    if (out != null && !(isPlain(out, Float32Array) && out.length === nq)) return null;
    const need = 2 * nq + 2 * nk + nw;
    let s = view(need, need);
    s.set(q, 0);
    s.set(k, nq);
    s.set(v, nq + nk);
    shapeView(8).set(sh);  // after the floats' view: making that one can grow the memory
    const emptyRows = checked(M.attentionStaged(o.mask, !!o.weights));
    s = view(need, need);  // the same view, unless the call grew the memory (an unshared buffer is then detached)
    const at = nq + 2 * nk;
    const output = out ? out : new Float32Array(nq);
    output.set(s.subarray(at, at + nq));
    return { output, weights: o.weights ? s.slice(at + nq, at + nq + nw) : null, emptyRows };
  };
}
