// Multi-head attention on projected q, k, v: for each head and block of queries, scores by GEMM against
// only the keys the block may see (the causal half is skipped, not computed and discarded), mask, softmax,
// and the weighted blend of values by GEMM. Grouped heads (Hkv < H) read their shared key/value head.
// Not here: projections, positions or caching (the model does those).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "lookback/kernels.hpp"

namespace lookback {
namespace {

constexpr int TB = 32;  // queries per block

struct Dense {
  int ldq, ldk, ldv, ldo;
  explicit Dense(const AttentionShape& a)
      : ldq(a.ldq ? a.ldq : a.H * a.D), ldk(a.ldk ? a.ldk : a.Hkv * a.D),
        ldv(a.ldv ? a.ldv : a.Hkv * a.D), ldo(a.ldo ? a.ldo : a.H * a.D) {}
};

// Hides what the rows [t0, t0+rows) may not see in w[rows, cols]: the causal future and the caller's mask.
void hide(float* w, int rows, int cols, int t0, int off, const AttentionShape& a, const std::uint8_t* mask) {
  const float ninf = -std::numeric_limits<float>::infinity();
  for (int r = 0; r < rows; ++r) {
    float* row = w + std::size_t(r) * cols;
    if (a.causal) {
      const int first_hidden = std::max(0, std::min(cols, t0 + r + off + 1));
      std::fill(row + first_hidden, row + cols, ninf);
    }
    if (mask) {
      const std::uint8_t* m = mask + std::size_t(t0 + r) * a.S;
      for (int s = 0; s < cols; ++s)
        if (!m[s]) row[s] = ninf;
    }
  }
}

}  // namespace

int attention(const float* q, const float* k, const float* v, float* out, float* weights,
              const AttentionShape& a, const std::uint8_t* mask) {
  const Dense ld(a);
  const int group = a.H / a.Hkv, off = a.S - a.T;
  const float scale = a.scale / a.temperature;
  thread_local std::vector<float> w;
  w.resize(std::size_t(TB) * a.S);
  int empty = 0;
  for (int h = 0; h < a.H; ++h) {
    const float* kh = k + (h / group) * a.D;
    const float* vh = v + (h / group) * a.D;
    for (int t0 = 0; t0 < a.T; t0 += TB) {
      const int rows = std::min(TB, a.T - t0);
      // keys visible to any row of this block: all of them, or up to the last row's position when causal
      const int cols = a.causal ? std::max(0, std::min(a.S, t0 + rows + off)) : a.S;
      float* o = out + std::size_t(t0) * ld.ldo + h * a.D;
      if (cols > 0) {
        gemm_nt(rows, cols, a.D, q + std::size_t(t0) * ld.ldq + h * a.D, ld.ldq, kh, ld.ldk, w.data(), cols, false);
        for (std::size_t i = 0; i < std::size_t(rows) * cols; ++i) w[i] *= scale;
        hide(w.data(), rows, cols, t0, off, a, mask);
        empty += softmax_rows(w.data(), rows, cols, 1.0f);
        gemm_nn(rows, a.D, cols, w.data(), cols, vh, ld.ldv, o, ld.ldo, false);
      } else {
        empty += rows;
        for (int r = 0; r < rows; ++r) std::fill(o + std::size_t(r) * ld.ldo, o + std::size_t(r) * ld.ldo + a.D, 0.0f);
      }
      if (weights) {
        for (int r = 0; r < rows; ++r) {
          float* dst = weights + (std::size_t(h) * a.T + t0 + r) * a.S;
          if (cols > 0) std::memcpy(dst, w.data() + std::size_t(r) * cols, sizeof(float) * cols);
          std::fill(dst + cols, dst + a.S, 0.0f);
        }
      }
    }
  }
  return empty;
}

}  // namespace lookback
