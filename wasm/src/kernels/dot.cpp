// Vectorised dot product and the all-heads score kernel built on the GEMM (out[H,T,S] = scale·q·kᵀ).
// Not here: masking and softmax (mask.cpp, softmax.cpp).
#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {

float dot(const float* a, const float* b, int n) {
  using simd::batch;
  using simd::W;
  batch s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
  int i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 = xsimd::fma(simd::load(a + i), simd::load(b + i), s0);
    s1 = xsimd::fma(simd::load(a + i + W), simd::load(b + i + W), s1);
    s2 = xsimd::fma(simd::load(a + i + 2 * W), simd::load(b + i + 2 * W), s2);
    s3 = xsimd::fma(simd::load(a + i + 3 * W), simd::load(b + i + 3 * W), s3);
  }
  for (; i + W <= n; i += W) s0 = xsimd::fma(simd::load(a + i), simd::load(b + i), s0);
  float s = simd::sum((s0 + s1) + (s2 + s3));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

void scores(const float* q, const float* k, float* out, int T, int S, int H, int D, float scale) {
  // q: [T,H,D], k: [S,H,D] -> out: [H,T,S]
  for (int h = 0; h < H; ++h) {
    float* o = out + std::size_t(h) * T * S;
    gemm_nt(T, S, D, q + h * D, H * D, k + h * D, H * D, o, S, false);
    for (std::size_t i = 0; i < std::size_t(T) * S; ++i) o[i] *= scale;
  }
}

void blend(const float* w, const float* v, float* out, int T, int S, int H, int D) {
  // w: [H,T,S], v: [S,H,D] -> out: [T,H,D]
  for (int h = 0; h < H; ++h)
    gemm_nn(T, D, S, w + std::size_t(h) * T * S, S, v + h * D, H * D, out + h * D, H * D, false);
}

}  // namespace lookback
