// A linear layer with weights stored [out, in] (y = x·Wᵀ). Many rows go to gemm_nt (packed, tiled);
// a few rows (decoding one token) use dot products down four weight rows at a time, which reads each
// weight once and packs nothing. Not here: biases (add_bias, layernorm.cpp) or activation functions.
#include <algorithm>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;
constexpr int kGemmRows = 4;  // from this many rows on, gemm_nt's packing pays off

// y[0..4) (+)= dot(W[j], x) for four consecutive weight rows.
void dot4(const float* x, int K, const float* Wr, int ldw, float* y, bool acc) {
  batch a0(0.0f), a1(0.0f), a2(0.0f), a3(0.0f);
  const float *w0 = Wr, *w1 = Wr + ldw, *w2 = Wr + 2 * ldw, *w3 = Wr + 3 * ldw;
  int k = 0;
  for (; k + W <= K; k += W) {
    const batch xv = simd::load(x + k);
    a0 = xsimd::fma(simd::load(w0 + k), xv, a0);
    a1 = xsimd::fma(simd::load(w1 + k), xv, a1);
    a2 = xsimd::fma(simd::load(w2 + k), xv, a2);
    a3 = xsimd::fma(simd::load(w3 + k), xv, a3);
  }
  float s[4] = {simd::sum(a0), simd::sum(a1), simd::sum(a2), simd::sum(a3)};
  for (; k < K; ++k) {
    s[0] += w0[k] * x[k], s[1] += w1[k] * x[k], s[2] += w2[k] * x[k], s[3] += w3[k] * x[k];
  }
  for (int j = 0; j < 4; ++j) y[j] = acc ? y[j] + s[j] : s[j];
}

void row_times_weights(const float* x, int K, const float* Wt, int N, float* y, bool acc) {
  int n = 0;
  for (; n + 4 <= N; n += 4) dot4(x, K, Wt + std::size_t(n) * K, K, y + n, acc);
  for (; n < N; ++n) {
    const float s = dot(x, Wt + std::size_t(n) * K, K);
    y[n] = acc ? y[n] + s : s;
  }
}

}  // namespace

void linear(const float* x, int T, int K, const float* Wt, int N, float* y, bool accumulate, int ldx, int ldy) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  if (T >= kGemmRows) return gemm_nt(T, N, K, x, ldx, Wt, K, y, ldy, accumulate);
  for (int t = 0; t < T; ++t)
    row_times_weights(x + std::size_t(t) * ldx, K, Wt, N, y + std::size_t(t) * ldy, accumulate);
}

}  // namespace lookback
