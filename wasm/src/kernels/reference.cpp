// Scalar reference twins of every vectorised kernel: plain loops, float64 accumulation, no tricks.
// They define what the fast kernels must compute; tests compare the two. Not meant to be fast.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lookback/attention_row.hpp"
#include "lookback/kernels.hpp"

namespace lookback {

void gemm_nn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = accumulate ? C[std::size_t(i) * ldc + j] : 0.0;
      for (int k = 0; k < K; ++k) s += double(A[std::size_t(i) * lda + k]) * B[std::size_t(k) * ldb + j];
      C[std::size_t(i) * ldc + j] = float(s);
    }
}

void gemm_nt_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = accumulate ? C[std::size_t(i) * ldc + j] : 0.0;
      for (int k = 0; k < K; ++k) s += double(A[std::size_t(i) * lda + k]) * B[std::size_t(j) * ldb + k];
      C[std::size_t(i) * ldc + j] = float(s);
    }
}

void gemm_tn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = accumulate ? C[std::size_t(i) * ldc + j] : 0.0;
      for (int k = 0; k < K; ++k) s += double(A[std::size_t(k) * lda + i]) * B[std::size_t(k) * ldb + j];
      C[std::size_t(i) * ldc + j] = float(s);
    }
}

float dot_ref(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += double(a[i]) * b[i];
  return float(s);
}

void scores_ref(const float* q, const float* k, float* out, int T, int S, int H, int D, float scale) {
  // q: [T,H,D], k: [S,H,D] -> out: [H,T,S]
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < S; ++s) {
        double acc = 0;
        for (int d = 0; d < D; ++d) acc += double(q[(std::size_t(t) * H + h) * D + d]) * k[(std::size_t(s) * H + h) * D + d];
        out[(std::size_t(h) * T + t) * S + s] = float(acc * scale);
      }
}

int softmax_rows_ref(float* x, int R, int C, float temperature) {
  int empty = 0;
  for (int r = 0; r < R; ++r) {
    float* row = x + std::size_t(r) * C;
    double mx = -std::numeric_limits<double>::infinity();
    for (int c = 0; c < C; ++c) mx = std::max(mx, double(row[c]));
    if (std::isinf(mx) && mx < 0) {
      for (int c = 0; c < C; ++c) row[c] = 0.0f;
      ++empty;
      continue;
    }
    double sum = 0;
    std::vector<double> e(C);
    for (int c = 0; c < C; ++c) sum += e[c] = std::exp((double(row[c]) - mx) / temperature);
    for (int c = 0; c < C; ++c) row[c] = float(e[c] / sum);
  }
  return empty;
}

void blend_ref(const float* w, const float* v, float* out, int T, int S, int H, int D) {
  // w: [H,T,S], v: [S,H,D] -> out: [T,H,D]
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < D; ++d) {
        double acc = 0;
        for (int s = 0; s < S; ++s) acc += double(w[(std::size_t(h) * T + t) * S + s]) * v[(std::size_t(s) * H + h) * D + d];
        out[(std::size_t(t) * H + h) * D + d] = float(acc);
      }
}

// One row: the scores of the keys query t may see, softmax with the maximum subtracted, then the weighted sum.
bool attention_row_ref(const float* q, const float* k, const float* v, const AttentionShape& a,
                       const std::uint8_t* mask, int h, int t, AttentionRow& r) {
  const int ldq = a.ldq ? a.ldq : a.H * a.D, ldk = a.ldk ? a.ldk : a.Hkv * a.D, ldv = a.ldv ? a.ldv : a.Hkv * a.D;
  const int g = h / (a.H / a.Hkv), off = a.S - a.T;  // the key/value head this query head reads
  const double ninf = -std::numeric_limits<double>::infinity();
  r.score.assign(a.S, ninf);
  r.e.assign(a.S, 0.0);
  r.weight.assign(a.S, 0.0);
  r.out.assign(a.D, 0.0);
  r.max = ninf;
  r.sum = 0;
  for (int s = 0; s < a.S; ++s) {
    const bool visible = (!a.causal || s <= t + off) && (!mask || mask[std::size_t(t) * a.S + s]);
    if (!visible) continue;  // a hidden key keeps the score -inf
    double dot = 0;
    for (int d = 0; d < a.D; ++d) dot += double(q[std::size_t(t) * ldq + h * a.D + d]) * k[std::size_t(s) * ldk + g * a.D + d];
    r.score[s] = dot * a.scale / a.temperature;
    r.max = std::max(r.max, r.score[s]);
  }
  if (r.max == ninf) return false;  // nothing visible: weights and output stay 0
  for (int s = 0; s < a.S; ++s) r.sum += r.e[s] = std::exp(r.score[s] - r.max);
  for (int s = 0; s < a.S; ++s) r.weight[s] = r.e[s] / r.sum;
  for (int d = 0; d < a.D; ++d)
    for (int s = 0; s < a.S; ++s) r.out[d] += r.weight[s] * v[std::size_t(s) * ldv + g * a.D + d];
  return true;
}

int attention_ref(const float* q, const float* k, const float* v, float* out, float* weights,
                  const AttentionShape& a, const std::uint8_t* mask) {
  const int ldo = a.ldo ? a.ldo : a.H * a.D;
  int empty = 0;
  AttentionRow r;
  for (int h = 0; h < a.H; ++h)
    for (int t = 0; t < a.T; ++t) {
      if (!attention_row_ref(q, k, v, a, mask, h, t, r)) ++empty;
      if (weights)
        for (int s = 0; s < a.S; ++s) weights[(std::size_t(h) * a.T + t) * a.S + s] = float(r.weight[s]);
      for (int d = 0; d < a.D; ++d) out[std::size_t(t) * ldo + h * a.D + d] = float(r.out[d]);
    }
  return empty;
}

void causal_attention_forward_ref(const float* q, const float* k, const float* v, float* p, float* o, int T,
                                  int H, int D, int ld) {
  std::vector<double> e(T);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) {
      const float* qt = q + std::size_t(t) * ld + h * D;
      float* pt = p + (std::size_t(h) * T + t) * T;
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int s = 0; s <= t; ++s) {
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += double(qt[d]) * k[std::size_t(s) * ld + h * D + d];
        mx = std::max(mx, e[s] = dot / std::sqrt(double(D)));
      }
      for (int s = 0; s <= t; ++s) sum += e[s] = std::exp(e[s] - mx);
      for (int s = 0; s < T; ++s) pt[s] = s <= t ? float(e[s] / sum) : 0.0f;
      for (int d = 0; d < D; ++d) {
        double acc = 0;
        for (int s = 0; s <= t; ++s) acc += e[s] / sum * v[std::size_t(s) * ld + h * D + d];
        o[std::size_t(t) * ld + h * D + d] = float(acc);
      }
    }
}

// dS[t,s] = P[t,s] · (dP[t,s] - Σ_s' P[t,s'] dP[t,s']) / sqrt(D) with dP = dO·Vᵀ; dQ = dS·K, dK = dSᵀ·Q, dV = Pᵀ·dO.
void causal_attention_backward_ref(const float* q, const float* k, const float* v, const float* p,
                                   const float* dout, float* dq, float* dk, float* dv, int T, int H, int D, int ld) {
  std::vector<double> ds(std::size_t(T) * T, 0.0), dp(T);
  for (int h = 0; h < H; ++h) {
    const float* ph = p + std::size_t(h) * T * T;
    for (int t = 0; t < T; ++t) {
      double rowsum = 0;
      for (int s = 0; s <= t; ++s) {
        double acc = 0;
        for (int d = 0; d < D; ++d) acc += double(dout[std::size_t(t) * ld + h * D + d]) * v[std::size_t(s) * ld + h * D + d];
        dp[s] = acc;
        rowsum += double(ph[std::size_t(t) * T + s]) * acc;
      }
      for (int s = 0; s <= t; ++s) ds[std::size_t(t) * T + s] = ph[std::size_t(t) * T + s] * (dp[s] - rowsum) / std::sqrt(double(D));
    }
    for (int t = 0; t < T; ++t)
      for (int d = 0; d < D; ++d) {
        double gq = 0, gk = 0, gv = 0;
        for (int s = 0; s <= t; ++s) gq += ds[std::size_t(t) * T + s] * k[std::size_t(s) * ld + h * D + d];
        for (int i = t; i < T; ++i) {  // t as a key: the queries i >= t that see it
          gk += ds[std::size_t(i) * T + t] * q[std::size_t(i) * ld + h * D + d];
          gv += double(ph[std::size_t(i) * T + t]) * dout[std::size_t(i) * ld + h * D + d];
        }
        dq[std::size_t(t) * ld + h * D + d] = float(gq);
        dk[std::size_t(t) * ld + h * D + d] = float(gk);
        dv[std::size_t(t) * ld + h * D + d] = float(gv);
      }
  }
}

}  // namespace lookback
