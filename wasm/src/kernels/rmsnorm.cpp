// Vectorised RMSNorm of rows: the mean square by SIMD partial sums, then one multiply by scale · weight.
// Not here: the residual stream or which weights to use (the model passes them).
#include <cmath>

#include "kernels/simd.hpp"
#include "lookback/nn.hpp"

namespace lookback {
namespace {

float sum_squares(const float* x, int n) {
  using simd::W;
  simd::batch acc(0.0f);
  int i = 0;
  for (; i + W <= n; i += W) {
    const simd::batch v = simd::load(x + i);
    acc = xsimd::fma(v, v, acc);
  }
  float s = simd::sum(acc);
  for (; i < n; ++i) s += x[i] * x[i];
  return s;
}

void scale_by_weight(const float* x, const float* w, float* y, int n, float scale) {
  using simd::W;
  const simd::batch f(scale);
  int i = 0;
  for (; i + W <= n; i += W) simd::store(y + i, simd::load(x + i) * f * simd::load(w + i));
  for (; i < n; ++i) y[i] = x[i] * scale * w[i];
}

}  // namespace

void rmsnorm(const float* x, const float* w, float* y, int R, int n, float eps, int ldx, int ldy) {
  if (!ldx) ldx = n;
  if (!ldy) ldy = n;
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * ldx;
    const float scale = 1.0f / std::sqrt(sum_squares(xr, n) / float(n) + eps);
    scale_by_weight(xr, w, y + std::size_t(r) * ldy, n, scale);
  }
}

}  // namespace lookback
