// Float64 references for the benchmark's checks, and the error measure: plain loops in double precision on
// the [H,T,D] layout. Not timed and not a backend.

// Causal attention, q/k/v [H,T,D] -> Float64Array [H,T,D], scale 1/sqrt(D).
export function attentionRef(q, k, v, H, T, D) {
  const out = new Float64Array(H * T * D);
  const s = new Float64Array(T);
  const scale = 1 / Math.sqrt(D);
  for (let h = 0; h < H; h++) {
    const base = h * T * D;
    for (let t = 0; t < T; t++) {
      let mx = -Infinity;
      for (let j = 0; j <= t; j++) {
        let acc = 0;
        for (let d = 0; d < D; d++) acc += q[base + t * D + d] * k[base + j * D + d];
        s[j] = acc * scale;
        if (s[j] > mx) mx = s[j];
      }
      let sum = 0;
      for (let j = 0; j <= t; j++) sum += s[j] = Math.exp(s[j] - mx);
      const o = base + t * D;
      for (let j = 0; j <= t; j++) {
        const w = s[j] / sum;
        for (let d = 0; d < D; d++) out[o + d] += w * v[base + j * D + d];
      }
    }
  }
  return out;
}

// C[M,N] = A[M,K] · B[K,N] -> Float64Array.
export function gemmRef(a, b, M, N, K) {
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let p = 0; p < K; p++) {
      const x = a[i * K + p];
      for (let j = 0; j < N; j++) c[i * N + j] += x * b[p * N + j];
    }
  }
  return c;
}

// max |x - ref| / max |ref| (NaN anywhere gives NaN, which no tolerance accepts).
export function maxRelError(x, ref) {
  if (!x || x.length !== ref.length) return NaN;
  let err = 0;
  let scale = 0;
  for (let i = 0; i < ref.length; i++) {
    const e = Math.abs(x[i] - ref[i]);
    if (Number.isNaN(e)) return NaN;
    if (e > err) err = e;
    scale = Math.max(scale, Math.abs(ref[i]));
  }
  return err / scale;
}
