// Vectorised LayerNorm of rows (GPT-2's ln_1, ln_2, ln_f): mean and mean square by SIMD partial sums in one
// pass over the row, then one multiply-add by weight and bias. Also the bias add of a linear layer.
// Not here: RMSNorm (rmsnorm.cpp) or which weights to use (the model passes them).
#include <cmath>

#include "kernels/simd.hpp"
#include "lookback/nn.hpp"

namespace lookback {

void layernorm(const float* x, const float* w, const float* b, float* y, int R, int n, float eps, int ldx, int ldy) {
  using simd::W;
  if (!ldx) ldx = n;
  if (!ldy) ldy = n;
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * ldx;
    float* yr = y + std::size_t(r) * ldy;
    // the mean first, then the squares of the centred values (one-pass moments lose digits when |mean| >> std)
    simd::batch acc(0.0f);
    int i = 0;
    for (; i + W <= n; i += W) acc += simd::load(xr + i);
    float s = simd::sum(acc);
    for (; i < n; ++i) s += xr[i];
    const float mean = s / float(n);
    const simd::batch m(mean);
    simd::batch sq(0.0f);
    i = 0;
    for (; i + W <= n; i += W) {
      const simd::batch d = simd::load(xr + i) - m;
      sq = xsimd::fma(d, d, sq);
    }
    float ss = simd::sum(sq);
    for (; i < n; ++i) ss += (xr[i] - mean) * (xr[i] - mean);
    const float scale = 1.0f / std::sqrt(ss / float(n) + eps);
    const simd::batch f(scale);
    i = 0;
    for (; i + W <= n; i += W)
      simd::store(yr + i, xsimd::fma((simd::load(xr + i) - m) * f, simd::load(w + i), simd::load(b + i)));
    for (; i < n; ++i) yr[i] = (xr[i] - mean) * scale * w[i] + b[i];
  }
}

void add_bias(float* y, const float* b, int T, int N, int ldy) {
  using simd::W;
  if (!ldy) ldy = N;
  for (int t = 0; t < T; ++t) {
    float* yr = y + std::size_t(t) * ldy;
    int i = 0;
    for (; i + W <= N; i += W) simd::store(yr + i, simd::load(yr + i) + simd::load(b + i));
    for (; i < N; ++i) yr[i] += b[i];
  }
}

}  // namespace lookback
