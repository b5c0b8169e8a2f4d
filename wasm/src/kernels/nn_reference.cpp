// Scalar reference twins of the model kernels (lookback/nn.hpp): plain loops, float64 accumulation.
// They define what the fast kernels compute; tests compare the two. Not meant to be fast.
#include <cmath>

#include "lookback/nn.hpp"

namespace lookback {

void rmsnorm_ref(const float* x, const float* w, float* y, int R, int n, float eps, int ldx, int ldy) {
  if (!ldx) ldx = n;
  if (!ldy) ldy = n;
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * ldx;
    double ss = 0;
    for (int i = 0; i < n; ++i) ss += double(xr[i]) * xr[i];
    const double scale = 1.0 / std::sqrt(ss / n + eps);
    for (int i = 0; i < n; ++i) y[std::size_t(r) * ldy + i] = float(xr[i] * scale * w[i]);
  }
}

void layernorm_ref(const float* x, const float* w, const float* b, float* y, int R, int n, float eps, int ldx, int ldy) {
  if (!ldx) ldx = n;
  if (!ldy) ldy = n;
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * ldx;
    double s = 0, ss = 0;
    for (int i = 0; i < n; ++i) s += xr[i];
    const double mean = s / n;
    for (int i = 0; i < n; ++i) ss += (xr[i] - mean) * (xr[i] - mean);
    const double scale = 1.0 / std::sqrt(ss / n + eps);
    for (int i = 0; i < n; ++i) y[std::size_t(r) * ldy + i] = float((xr[i] - mean) * scale * w[i] + b[i]);
  }
}

void rope_ref(float* x, int T, int H, int D, int ld, const int* positions, float theta, RopeLayout layout,
              const RopeScaling& scaling) {
  if (!ld) ld = H * D;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h) {
      float* head = x + std::size_t(t) * ld + std::size_t(h) * D;
      for (int j = 0; j < D / 2; ++j) {
        const double angle = double(positions[t]) * rope_frequency(j, D, theta, scaling);
        const int i0 = layout == RopeLayout::adjacent ? 2 * j : j;
        const int i1 = layout == RopeLayout::adjacent ? 2 * j + 1 : j + D / 2;
        const double a = head[i0], b = head[i1];
        head[i0] = float(a * std::cos(angle) - b * std::sin(angle));
        head[i1] = float(a * std::sin(angle) + b * std::cos(angle));
      }
    }
}

void silu_ref(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = float(x[i] / (1.0 + std::exp(-double(x[i]))));
}

void swiglu_ref(const float* a, const float* b, float* g, int n) {
  for (int i = 0; i < n; ++i) g[i] = float(a[i] / (1.0 + std::exp(-double(a[i]))) * b[i]);
}

void swiglu_backward_ref(const float* a, const float* b, const float* dg, float* da, float* db, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = a[i], s = 1.0 / (1.0 + std::exp(-x));
    db[i] = float(double(dg[i]) * x * s);
    da[i] = float(double(dg[i]) * b[i] * s * (1.0 + x * (1.0 - s)));
  }
}

void gelu_ref(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = float(0.5 * x[i] * (1.0 + std::erf(double(x[i]) / std::sqrt(2.0))));
}

void gelu_tanh_ref(const float* x, float* y, int n) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  for (int i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = float(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
  }
}

void add_bias_ref(float* y, const float* b, int T, int N, int ldy) {
  if (!ldy) ldy = N;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < N; ++i) y[std::size_t(t) * ldy + i] = float(double(y[std::size_t(t) * ldy + i]) + b[i]);
}

void linear_ref(const float* x, int T, int K, const float* Wt, int N, float* y, bool accumulate, int ldx,
                int ldy) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  for (int t = 0; t < T; ++t)
    for (int n = 0; n < N; ++n) {
      double s = accumulate ? y[std::size_t(t) * ldy + n] : 0.0;
      for (int k = 0; k < K; ++k) s += double(x[std::size_t(t) * ldx + k]) * Wt[std::size_t(n) * K + k];
      y[std::size_t(t) * ldy + n] = float(s);
    }
}

}  // namespace lookback
