// Plain-JS float64 reference implementations of the core's functions, for the API tests. Deliberately naive:
// the clearest loops, no shared code with the module. Not part of the shipped API.

export function scoresRef(q, k, { T, S, H, D, scale }) {
  const out = new Float64Array(H * T * S);
  for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) for (let s = 0; s < S; s++) {
    let acc = 0;
    for (let d = 0; d < D; d++) acc += q[(t * H + h) * D + d] * k[(s * H + h) * D + d];
    out[(h * T + t) * S + s] = acc * scale;
  }
  return out;
}

export function softmaxRef(x, rows, cols, temperature = 1) {
  const out = new Float64Array(rows * cols);
  let empty = 0;
  for (let r = 0; r < rows; r++) {
    let mx = -Infinity;
    for (let c = 0; c < cols; c++) mx = Math.max(mx, x[r * cols + c]);
    if (mx === -Infinity) { empty++; continue; }
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += out[r * cols + c] = Math.exp((x[r * cols + c] - mx) / temperature);
    for (let c = 0; c < cols; c++) out[r * cols + c] /= sum;
  }
  return { weights: out, emptyRows: empty };
}

export function attentionRef(q, k, v, { T, S, H, Hkv = H, D, scale, causal, mask, temperature = 1 }) {
  const out = new Float64Array(T * H * D), weights = new Float64Array(H * T * S);
  const group = H / Hkv, off = S - T;
  let empty = 0;
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / group);
    for (let t = 0; t < T; t++) {
      const row = new Float64Array(S);
      let mx = -Infinity;
      for (let s = 0; s < S; s++) {
        let acc = 0;
        for (let d = 0; d < D; d++) acc += q[(t * H + h) * D + d] * k[(s * Hkv + g) * D + d];
        const visible = (!causal || s <= t + off) && (!mask || mask[t * S + s]);
        row[s] = visible ? (acc * scale) / temperature : -Infinity;
        mx = Math.max(mx, row[s]);
      }
      if (mx === -Infinity) { empty++; continue; }
      let sum = 0;
      for (let s = 0; s < S; s++) sum += row[s] = Math.exp(row[s] - mx);
      for (let s = 0; s < S; s++) weights[(h * T + t) * S + s] = row[s] / sum;
      for (let d = 0; d < D; d++) {
        let acc = 0;
        for (let s = 0; s < S; s++) acc += weights[(h * T + t) * S + s] * v[(s * Hkv + g) * D + d];
        out[(t * H + h) * D + d] = acc;
      }
    }
  }
  return { output: out, weights, emptyRows: empty };
}

export function gemmRef(a, b, M, N, K, transB) {
  const c = new Float64Array(M * N);
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let acc = 0;
    for (let k = 0; k < K; k++) acc += a[i * K + k] * (transB ? b[j * K + k] : b[k * N + j]);
    c[i * N + j] = acc;
  }
  return c;
}

// mulberry32: a seeded stream of uniform floats in [0, 1), so failures reproduce.
export function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = Math.imul(s ^ (s >>> 15), s | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

// Seeded uniform floats in [lo, hi) (mulberry32).
export function randomArray(n, seed, lo = -1, hi = 1) {
  const next = mulberry32(seed);
  return Float32Array.from({ length: n }, () => lo + next() * (hi - lo));
}

export function maxError(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1e-6 + 1e-4 * Math.abs(b[i])));
  return worst;
}
