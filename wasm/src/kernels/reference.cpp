// Scalar reference twins of every vectorised kernel: plain loops, float64 accumulation, no tricks.
// They define what the fast kernels must compute; tests compare the two. Not meant to be fast.
#include <cmath>
#include <limits>
#include <vector>

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

int attention_ref(const float* q, const float* k, const float* v, float* out, float* weights,
                  const AttentionShape& a, const std::uint8_t* mask) {
  const int ldq = a.ldq ? a.ldq : a.H * a.D, ldk = a.ldk ? a.ldk : a.Hkv * a.D;
  const int ldv = a.ldv ? a.ldv : a.Hkv * a.D, ldo = a.ldo ? a.ldo : a.H * a.D;
  const int group = a.H / a.Hkv, off = a.S - a.T;
  const double ninf = -std::numeric_limits<double>::infinity();
  int empty = 0;
  std::vector<double> row(a.S);
  for (int h = 0; h < a.H; ++h) {
    const int g = h / group;
    for (int t = 0; t < a.T; ++t) {
      double mx = ninf;
      for (int s = 0; s < a.S; ++s) {
        const bool visible = (!a.causal || s <= t + off) && (!mask || mask[std::size_t(t) * a.S + s]);
        double acc = 0;
        for (int d = 0; d < a.D; ++d) acc += double(q[std::size_t(t) * ldq + h * a.D + d]) * k[std::size_t(s) * ldk + g * a.D + d];
        row[s] = visible ? acc * a.scale / a.temperature : ninf;
        mx = std::max(mx, row[s]);
      }
      double sum = 0;
      for (int s = 0; s < a.S; ++s) sum += row[s] = (mx == ninf) ? 0.0 : std::exp(row[s] - mx);
      if (mx == ninf) ++empty;
      for (int s = 0; s < a.S; ++s) {
        row[s] = sum > 0 ? row[s] / sum : 0.0;
        if (weights) weights[(std::size_t(h) * a.T + t) * a.S + s] = float(row[s]);
      }
      for (int d = 0; d < a.D; ++d) {
        double acc = 0;
        for (int s = 0; s < a.S; ++s) acc += row[s] * v[std::size_t(s) * ldv + g * a.D + d];
        out[std::size_t(t) * ldo + h * a.D + d] = float(acc);
      }
    }
  }
  return empty;
}

}  // namespace lookback
