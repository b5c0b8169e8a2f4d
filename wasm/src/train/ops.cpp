// Forward/backward ops of the trainer. The matrix work goes through the core's GEMMs and attention kernels; the
// element-wise loops are plain C++ that the compiler vectorises (they are a small share of the time).
#include "train/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "lookback/kernels.hpp"

namespace lookback::train {

void rmsnorm_fwd(const float* x, const float* w, float* y, float* rinv, int R, int n, float eps) {
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * n;
    float* yr = y + std::size_t(r) * n;
    float ss = 0;
    for (int i = 0; i < n; ++i) ss += xr[i] * xr[i];
    const float ri = 1.0f / std::sqrt(ss / float(n) + eps);
    rinv[r] = ri;
    for (int i = 0; i < n; ++i) yr[i] = xr[i] * ri * w[i];
  }
}

void rmsnorm_bwd(const float* x, const float* w, const float* rinv, const float* dy, float* dx, float* dw,
                 int R, int n, bool accumulate) {
  for (int r = 0; r < R; ++r) {
    const float* xr = x + std::size_t(r) * n;
    const float* dyr = dy + std::size_t(r) * n;
    float* dxr = dx + std::size_t(r) * n;
    const float ri = rinv[r];
    float m = 0;
    for (int i = 0; i < n; ++i) {
      const float xh = xr[i] * ri;
      dw[i] += dyr[i] * xh;
      m += dyr[i] * w[i] * xh;
    }
    m /= float(n);
    if (accumulate)
      for (int i = 0; i < n; ++i) dxr[i] += ri * (dyr[i] * w[i] - xr[i] * ri * m);
    else
      for (int i = 0; i < n; ++i) dxr[i] = ri * (dyr[i] * w[i] - xr[i] * ri * m);
  }
}

void Rope::init(float* table, int T_, int D_, float theta, int pos0) {
  T = T_, D = D_, cs = table;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D / 2; ++i) {
      const double f = std::pow(double(theta), -2.0 * i / D);
      const double a = double(t + pos0) * f;
      cs[(std::size_t(t) * (D / 2) + i) * 2] = float(std::cos(a));
      cs[(std::size_t(t) * (D / 2) + i) * 2 + 1] = float(std::sin(a));
    }
}

void Rope::fwd(float* x, int H, int ld) const {
  for (int t = 0; t < T; ++t) {
    const float* c = cs + std::size_t(t) * D;
    for (int h = 0; h < H; ++h) {
      float* p = x + std::size_t(t) * ld + h * D;
      for (int i = 0; i < D / 2; ++i) {
        const float co = c[2 * i], si = c[2 * i + 1], a = p[2 * i], b = p[2 * i + 1];
        p[2 * i] = a * co - b * si;
        p[2 * i + 1] = a * si + b * co;
      }
    }
  }
}

void Rope::bwd(float* x, int H, int ld) const {
  for (int t = 0; t < T; ++t) {
    const float* c = cs + std::size_t(t) * D;
    for (int h = 0; h < H; ++h) {
      float* p = x + std::size_t(t) * ld + h * D;
      for (int i = 0; i < D / 2; ++i) {
        const float co = c[2 * i], si = c[2 * i + 1], a = p[2 * i], b = p[2 * i + 1];
        p[2 * i] = a * co + b * si;
        p[2 * i + 1] = -a * si + b * co;
      }
    }
  }
}

double attention_flops(int T, int H, int D) {
  return 2.0 * 2.0 * H * D * (double(T) * (T + 1) / 2);  // q·k and weights·v over the visible pairs
}

void gelu_fwd(const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

void gelu_bwd(const float* x, const float* dy, float* dx, int n) {
  for (int i = 0; i < n; ++i) {
    const float cdf = 0.5f * (1.0f + std::erf(x[i] * 0.70710678118654752f));
    const float pdf = 0.39894228040143268f * std::exp(-0.5f * x[i] * x[i]);
    dx[i] = dy[i] * (cdf + x[i] * pdf);
  }
}

double cross_entropy(float* logits, const std::uint16_t* targets, int R, int V, float scale) {
  double total = 0;
  for (int r = 0; r < R; ++r) {
    float* row = logits + std::size_t(r) * V;
    const int t = targets[r];
    int am = 0;
    for (int j = 1; j < V; ++j)
      if (row[j] > row[am]) am = j;
    const float mx = row[am], xt = row[t];
    softmax_rows(row, 1, V, 1.0f);  // vectorised exp; row now holds probabilities
    // loss = log Σ exp(x - mx) - (x_t - mx), and Σ exp(x - mx) = 1 / p(argmax) (no underflow: p >= 1/V).
    total += -std::log(double(row[am])) - (double(xt) - double(mx));
    for (int j = 0; j < V; ++j) row[j] *= scale;
    row[t] -= scale;
  }
  return total;
}

}  // namespace lookback::train
