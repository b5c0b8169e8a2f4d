// Vectorised MLP activations: SiLU, the SwiGLU gate silu(a)·b and its backward (exp from simd_exp.hpp), and
// exact GELU (with xsimd::erf).
// Not here: the MLP's matrices (the model applies them through linear()).
#include <cmath>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 false positive inside AVX-512 exp/erf
#endif
#include "kernels/simd.hpp"
#include "kernels/simd_exp.hpp"
#include "lookback/nn.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;

inline batch silu_v(const batch& a) { return a / (batch(1.0f) + simd::exp(-a)); }
inline float silu_s(float a) { return a / (1.0f + std::exp(-a)); }
inline batch sigmoid_v(const batch& a) { return batch(1.0f) / (batch(1.0f) + simd::exp(-a)); }

}  // namespace

void silu(const float* x, float* y, int n) {
  int i = 0;
  for (; i + W <= n; i += W) simd::store(y + i, silu_v(simd::load(x + i)));
  for (; i < n; ++i) y[i] = silu_s(x[i]);
}

void swiglu(const float* a, const float* b, float* g, int n) {
  int i = 0;
  for (; i + W <= n; i += W) simd::store(g + i, silu_v(simd::load(a + i)) * simd::load(b + i));
  for (; i < n; ++i) g[i] = silu_s(a[i]) * b[i];
}

void swiglu_backward(const float* a, const float* b, const float* dg, float* da, float* db, int n) {
  const batch one(1.0f);
  int i = 0;
  for (; i + W <= n; i += W) {
    const batch x = simd::load(a + i), s = sigmoid_v(x), d = simd::load(dg + i);
    simd::store(db + i, d * x * s);
    simd::store(da + i, d * simd::load(b + i) * s * (one + x * (one - s)));
  }
  for (; i < n; ++i) {
    const float s = 1.0f / (1.0f + std::exp(-a[i]));
    db[i] = dg[i] * a[i] * s;
    da[i] = dg[i] * b[i] * s * (1.0f + a[i] * (1.0f - s));
  }
}

void gelu(const float* x, float* y, int n) {
  const batch half(0.5f), one(1.0f), inv_sqrt2(0.70710678118654752f);
  int i = 0;
  for (; i + W <= n; i += W) {
    const batch v = simd::load(x + i);
    simd::store(y + i, half * v * (one + xsimd::erf(v * inv_sqrt2)));
  }
  for (; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

}  // namespace lookback
