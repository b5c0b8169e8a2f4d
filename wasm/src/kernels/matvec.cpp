// Matrix-vector product on float32 weights, y[M,N] (+)= x[M,K] · W[N,K]ᵀ for few rows of x: four weight rows
// at a time, each with two vector accumulators, while every row of x passes over them (so each weight
// comes from memory once and from cache for the other rows). Not here: other weight formats (matvec_f16.cpp,
// matvec_q8.cpp), many rows (gemm.cpp). With `stream`, one weight row at a time (for weights from memory).
#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"
#include "lookback/matvec.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;

// y[0..R) (+)= W[r]·x for R consecutive weight rows (row stride K).
template <int R>
void rows_dot(const float* x, int K, const float* Wr, float* y, bool acc) {
  batch a[R][2];
  for (int r = 0; r < R; ++r) a[r][0] = a[r][1] = batch(0.0f);
  int k = 0;
  for (; k + 2 * W <= K; k += 2 * W) {
    const batch x0 = simd::load(x + k), x1 = simd::load(x + k + W);
    for (int r = 0; r < R; ++r) {
      a[r][0] = xsimd::fma(simd::load(Wr + std::size_t(r) * K + k), x0, a[r][0]);
      a[r][1] = xsimd::fma(simd::load(Wr + std::size_t(r) * K + k + W), x1, a[r][1]);
    }
  }
  for (; k + W <= K; k += W) {
    const batch x0 = simd::load(x + k);
    for (int r = 0; r < R; ++r) a[r][0] = xsimd::fma(simd::load(Wr + std::size_t(r) * K + k), x0, a[r][0]);
  }
  for (int r = 0; r < R; ++r) {
    float s = simd::sum(a[r][0] + a[r][1]);
    for (int i = k; i < K; ++i) s += Wr[std::size_t(r) * K + i] * x[i];
    y[r] = acc ? y[r] + s : s;
  }
}

// One weight row at a time (matvec with stream): each row's product is dot() (dot.cpp, four accumulators).
void matvec_rows(const float* x, int M, int K, const float* Wt, int N, float* y, bool acc, int ldx, int ldy) {
  for (int n = 0; n < N; ++n) {
    const float* Wn = Wt + std::size_t(n) * K;
    for (int m = 0; m < M; ++m) {
      const float s = dot(x + std::size_t(m) * ldx, Wn, K);
      float& out = y[std::size_t(m) * ldy + n];
      out = acc ? out + s : s;
    }
  }
}

}  // namespace

void matvec(const float* x, int M, int K, const float* Wt, int N, float* y, bool acc, int ldx, int ldy, bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  if (stream) return matvec_rows(x, M, K, Wt, N, y, acc, ldx, ldy);
  int n = 0;
  for (; n + 4 <= N; n += 4)
    for (int m = 0; m < M; ++m) rows_dot<4>(x + std::size_t(m) * ldx, K, Wt + std::size_t(n) * K, y + std::size_t(m) * ldy + n, acc);
  for (int m = 0; m < M; ++m) {
    const float* xm = x + std::size_t(m) * ldx;
    float* ym = y + std::size_t(m) * ldy + n;
    const float* Wn = Wt + std::size_t(n) * K;
    switch (N - n) {
      case 3: rows_dot<3>(xm, K, Wn, ym, acc); break;
      case 2: rows_dot<2>(xm, K, Wn, ym, acc); break;
      case 1: rows_dot<1>(xm, K, Wn, ym, acc); break;
      default: break;
    }
  }
}

}  // namespace lookback
