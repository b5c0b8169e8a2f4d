// Vectorised dot product of two float arrays (four accumulators, then the remainder), and the SIMD width of
// this build. Not here: products of matrices (gemm.cpp) or of heads (heads.cpp).
#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {

std::size_t simd_width() { return simd::W; }

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

}  // namespace lookback
