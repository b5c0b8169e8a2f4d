// Vectorised row softmax with temperature: subtracts the row max, gives exact zeros at -inf, and turns a
// fully masked row into zeros (counted, never divided by zero). Not here: masking (mask.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/simd.hpp"
#include "kernels/simd_exp.hpp"
#include "lookback/kernels.hpp"

namespace lookback {
namespace {

float row_max(const float* x, int n) {
  using simd::W;
  float m = -std::numeric_limits<float>::infinity();
  int i = 0;
  if (n >= W) {
    simd::batch b = simd::load(x);
    for (i = W; i + W <= n; i += W) b = xsimd::max(b, simd::load(x + i));
    alignas(64) float tmp[W];
    simd::store(tmp, b);
    for (int j = 0; j < W; ++j) m = std::max(m, tmp[j]);
  }
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

// x[i] <- exp((x[i] - mx) * inv_t), exactly 0 where x[i] = -inf; returns the sum.
float exp_shift(float* x, int n, float mx, float inv_t) {
  using simd::batch;
  using simd::W;
  const batch bm(mx), bt(inv_t), zero(0.0f), ninf(-std::numeric_limits<float>::infinity());
  batch acc(0.0f);
  int i = 0;
  for (; i + W <= n; i += W) {
    const batch v = simd::load(x + i);
    const batch e = xsimd::select(v == ninf, zero, simd::exp((v - bm) * bt));
    simd::store(x + i, e);
    acc += e;
  }
  float s = simd::sum(acc);
  for (; i < n; ++i) s += x[i] = (x[i] == -std::numeric_limits<float>::infinity()) ? 0.0f : std::exp((x[i] - mx) * inv_t);
  return s;
}

void scale_row(float* x, int n, float f) {
  using simd::W;
  const simd::batch b(f);
  int i = 0;
  for (; i + W <= n; i += W) simd::store(x + i, simd::load(x + i) * b);
  for (; i < n; ++i) x[i] *= f;
}

}  // namespace

int softmax_rows(float* x, int R, int C, float temperature) {
  int empty = 0;
  const float inv_t = 1.0f / temperature;
  for (int r = 0; r < R; ++r) {
    float* row = x + std::size_t(r) * C;
    const float mx = row_max(row, C);
    if (mx == -std::numeric_limits<float>::infinity()) {
      std::fill(row, row + C, 0.0f);
      ++empty;
      continue;
    }
    scale_row(row, C, 1.0f / exp_shift(row, C, mx, inv_t));  // the max gives exp(0) = 1, so sum >= 1
  }
  return empty;
}

}  // namespace lookback
