// Vectorised MLP activations: SiLU, the SwiGLU gate silu(a)·b and its backward (exp from simd_exp.hpp), exact
// GELU (with xsimd::erf) and GELU's tanh approximation (tanh through exp: 1 - 2 / (1 + exp(2u))).
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

void gelu_tanh(const float* x, float* y, int n) {
  constexpr float k = 0.7978845608028654f, c = 0.044715f;
  const batch half(0.5f), one(1.0f), two(2.0f), kv(k), cv(c);
  int i = 0;
  for (; i + W <= n; i += W) {
    const batch v = simd::load(x + i);
    // u clamped where tanh is ±1 in float, so exp(2u) stays finite
    const batch u = xsimd::min(xsimd::max(kv * (v + cv * v * v * v), batch(-20.0f)), batch(20.0f));
    const batch th = one - two / (one + simd::exp(two * u));
    simd::store(y + i, half * v * (one + th));
  }
  for (; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::tanh(k * (x[i] + c * x[i] * x[i] * x[i])));
}

}  // namespace lookback
