// A linear layer with weights stored [out, in] (y = x·Wᵀ). Many rows go to gemm_nt (packed, tiled);
// a few rows (decoding one token) go down the weight rows directly, reading each weight once and packing
// nothing, with the very arithmetic of gemm's micro-kernel for every output (the same fused multiply-adds in
// the same order, the same blocks of K), so that a row's result never depends on how many rows run together:
// a cached decoding step gives the bits a full pass gives. Not here: biases (the models have none) or
// activation functions.
#include <algorithm>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;
constexpr int kGemmRows = 4;  // from this many rows on, gemm_nt's packing pays off

// gemm's depth blocks (gemm.cpp: K in equal blocks of at most LOOKBACK_GEMM_KC), replayed here.
#ifndef LOOKBACK_GEMM_KC
#define LOOKBACK_GEMM_KC 512
#endif
constexpr int kKC = LOOKBACK_GEMM_KC;

// The W weights w[j..j+n)[k] side by side (zeros past n), as gemm's packed B panel holds them.
inline batch column(const float* Wt, int K, int n, int k) {
  alignas(64) float t[W] = {};
  for (int l = 0; l < n; ++l) t[l] = Wt[std::size_t(l) * K + k];
  return simd::load(t);
}

// y[j..j+n) (+)= x·w[j..j+n) for n <= W outputs, lane l holding output j+l: per depth block
// acc = fma(x[k], w[k], acc) from zero in k order, then y = acc or y = acc + y (gemm's micro-kernel exactly).
void outputs_exact(const float* x, int K, const float* Wt, int n, float* y, bool acc_in) {
  const int kblocks = (K + kKC - 1) / kKC, kcmax = (K + kblocks - 1) / kblocks;
  for (int k0 = 0; k0 < K; k0 += kcmax) {
    const int kend = std::min(K, k0 + kcmax);
    batch acc(0.0f);
    int k = k0;
#if defined(__wasm_simd128__)
    if (n == 4 && W == 4)  // four weight rows at a time through 4x4 transposes
      for (; k + 4 <= kend; k += 4) {
        v128_t b[4];
        for (int i = 0; i < 4; ++i) b[i] = wasm_v128_load(Wt + std::size_t(i) * K + k);
        simd::transpose4(b[0], b[1], b[2], b[3]);
        for (int i = 0; i < 4; ++i) acc = xsimd::fma(batch(x[k + i]), batch(__m128(b[i])), acc);
      }
#endif
    for (; k < kend; ++k) acc = xsimd::fma(batch(x[k]), column(Wt, K, n, k), acc);
    alignas(64) float out[W];
    simd::store(out, acc);
    const bool add = acc_in || k0 > 0;
    for (int l = 0; l < n; ++l) y[l] = add ? out[l] + y[l] : out[l];
  }
}

void row_times_weights(const float* x, int K, const float* Wt, int N, float* y, bool acc) {
  for (int j = 0; j < N; j += W) outputs_exact(x, K, Wt + std::size_t(j) * K, std::min(W, N - j), y + j, acc);
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
