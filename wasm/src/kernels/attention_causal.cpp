// Causal self-attention forward and backward for training, with the weights kept: per head, the operand that
// plays B in a product (Kᵀ, V; Vᵀ, K, Q, dO) is packed once into panels, and every product runs on strips of
// MR query (or key) rows read in place (simd::tile_strided), so no block is transposed or packed again. The
// scores of a strip stop at its last query's key (rounded up to a tile), the softmax and its backward run on
// the strip's rows. Not here: masks other than the causal one, grouped heads, inference (attention.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::MR;
using simd::NR;
using simd::W;

int panels(int n) { return (n + NR - 1) / NR; }

// n rounded up to whole vectors, at most T: a row's softmax over the visible keys runs on m >= n entries with
// the rest of them masked (or, backward, with weights exactly zero), so it has no scalar remainder when the
// vectors fit.
int whole(int n, int T) { return std::min(T, (n + W - 1) / W * W); }

// C[rows, cols] = A · B for B packed by pack_b with panels of NR columns (panel stride ps, first row b0 of it).
void strip(int rows, int cols, int kc, const float* A, std::ptrdiff_t ars, std::ptrdiff_t aks, const float* Bp,
           std::size_t ps, int b0, float* C, int ldc) {
  for (int j0 = 0; j0 < cols; j0 += NR)
    simd::tile_strided(rows, std::min(NR, cols - j0), kc, A, ars, aks, Bp + std::size_t(j0 / NR) * ps + std::size_t(b0) * NR,
                       C + j0, ldc, false);
}

// d[j] = p[j] · (d[j] - s) · scale for j < n, then zeros up to m.
void softmax_grad_row(const float* p, float* d, int n, int m, float s, float scale) {
  const batch bs(s), bc(scale);
  int j = 0;
  for (; j + W <= n; j += W) simd::store(d + j, simd::load(p + j) * (simd::load(d + j) - bs) * bc);
  for (; j < n; ++j) d[j] = p[j] * (d[j] - s) * scale;
  std::fill(d + n, d + m, 0.0f);
}

}  // namespace

void causal_attention_forward(const float* q, const float* k, const float* v, float* p, float* o, int T, int H,
                              int D, int ld) {
  const float temperature = std::sqrt(float(D));
  thread_local std::vector<float> kt, vp;
  kt.resize(std::size_t(panels(T)) * D * NR);  // Kᵀ: panels of NR keys, [D][NR]
  vp.resize(std::size_t(panels(D)) * T * NR);  // V: panels of NR channels, [T][NR]
  for (int h = 0; h < H; ++h) {
    simd::pack_b(true, D, T, k + h * D, ld, kt.data(), std::size_t(D) * NR);
    simd::pack_b(false, T, D, v + h * D, ld, vp.data(), std::size_t(T) * NR);
    float* ph = p + std::size_t(h) * T * T;
    for (int i0 = 0; i0 < T; i0 += MR) {
      const int rows = std::min(MR, T - i0), keys = i0 + rows;
      float* pr = ph + std::size_t(i0) * T;
      const int cols = std::min(T, panels(keys) * NR);
      strip(rows, cols, D, q + std::size_t(i0) * ld + h * D, ld, 1, kt.data(), std::size_t(D) * NR, 0, pr, T);
      for (int r = 0; r < rows; ++r) {
        float* row = pr + std::size_t(r) * T;
        const int n = i0 + r + 1, m = whole(n, T);
        std::fill(row + n, row + m, -std::numeric_limits<float>::infinity());  // exp gives exact zeros there
        softmax_rows(row, 1, m, temperature);
        std::fill(row + m, row + T, 0.0f);
      }
      strip(rows, D, keys, pr, T, 1, vp.data(), std::size_t(T) * NR, 0, o + std::size_t(i0) * ld + h * D, ld);
    }
  }
}

void causal_attention_backward(const float* q, const float* k, const float* v, const float* p, const float* dout,
                               float* dq, float* dk, float* dv, int T, int H, int D, int ld) {
  const float scale = 1.0f / std::sqrt(float(D));
  const std::size_t ps = std::size_t(T) * NR;  // panels of NR channels, [T][NR]
  thread_local std::vector<float> vt, kp, qp, dop, ds;
  vt.resize(std::size_t(panels(T)) * D * NR);  // Vᵀ: panels of NR keys, [D][NR]
  kp.resize(panels(D) * ps);
  qp.resize(panels(D) * ps);
  dop.resize(panels(D) * ps);
  ds.resize(std::size_t(T) * T);  // dS of one head, [T queries, T keys], zero above the diagonal
  for (int h = 0; h < H; ++h) {
    simd::pack_b(true, D, T, v + h * D, ld, vt.data(), std::size_t(D) * NR);
    simd::pack_b(false, T, D, k + h * D, ld, kp.data(), ps);
    simd::pack_b(false, T, D, q + h * D, ld, qp.data(), ps);
    simd::pack_b(false, T, D, dout + h * D, ld, dop.data(), ps);
    const float* ph = p + std::size_t(h) * T * T;
    // dS = P ⊙ (dO·Vᵀ - rowsum(P ⊙ dO·Vᵀ)) · scale, strip by strip of queries; dQ = dS·K
    for (int i0 = 0; i0 < T; i0 += MR) {
      const int rows = std::min(MR, T - i0), keys = i0 + rows;
      float* dr = ds.data() + std::size_t(i0) * T;
      const int cols = std::min(T, panels(keys) * NR);
      strip(rows, cols, D, dout + std::size_t(i0) * ld + h * D, ld, 1, vt.data(), std::size_t(D) * NR, 0, dr, T);
      for (int r = 0; r < rows; ++r) {
        const int m = whole(i0 + r + 1, T);  // p is zero past the diagonal, and so is dS
        const float* pr = ph + std::size_t(i0 + r) * T;
        float* d = dr + std::size_t(r) * T;
        softmax_grad_row(pr, d, m, T, dot(pr, d, m), scale);
      }
      strip(rows, D, keys, dr, T, 1, kp.data(), ps, 0, dq + std::size_t(i0) * ld + h * D, ld);
    }
    // dK = dSᵀ·Q and dV = Pᵀ·dO, strip by strip of keys: key j gets contributions from queries i >= j only
    for (int j0 = 0; j0 < T; j0 += MR) {
      const int rows = std::min(MR, T - j0), n = T - j0;
      const std::size_t at = std::size_t(j0) * T + j0;
      strip(rows, D, n, ds.data() + at, 1, T, qp.data(), ps, j0, dk + std::size_t(j0) * ld + h * D, ld);
      strip(rows, D, n, ph + at, 1, T, dop.data(), ps, j0, dv + std::size_t(j0) * ld + h * D, ld);
    }
  }
}

}  // namespace lookback
