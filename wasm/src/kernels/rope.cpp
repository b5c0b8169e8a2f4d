// Vectorised rotary positions from a precomputed table of per-element factors (see lookback/nn.hpp):
// x'[i] = x[i]·C[i] + x[partner(i)]·S[i]. Adjacent pairs swap neighbours inside a vector; half pairs read
// the two halves of the head. Not here: which positions a model uses (the caller fills the table).
#include <cmath>

#include "kernels/simd.hpp"
#include "lookback/nn.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;

struct SwapNeighbours {
  static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

// One head, pairs (2j, 2j+1): partner(i) = i ^ 1. W is even, so a vector never splits a pair.
void rotate_adjacent(float* x, int D, const float* C, const float* S) {
  using ubatch = xsimd::batch<std::uint32_t>;
  constexpr auto swap = xsimd::make_batch_constant<ubatch, SwapNeighbours>();
  int i = 0;
  for (; i + W <= D; i += W) {
    const batch v = simd::load(x + i);
    simd::store(x + i, v * simd::load(C + i) + xsimd::swizzle(v, swap) * simd::load(S + i));
  }
  for (; i < D; i += 2) {
    const float a = x[i], b = x[i + 1];
    x[i] = a * C[i] + b * S[i];
    x[i + 1] = b * C[i + 1] + a * S[i + 1];
  }
}

// One head, pairs (j, j + D/2).
void rotate_half(float* x, int D, const float* C, const float* S) {
  const int h = D / 2;
  float* lo = x;
  float* hi = x + h;
  int j = 0;
  for (; j + W <= h; j += W) {
    const batch a = simd::load(lo + j), b = simd::load(hi + j);
    simd::store(lo + j, a * simd::load(C + j) + b * simd::load(S + j));
    simd::store(hi + j, b * simd::load(C + h + j) + a * simd::load(S + h + j));
  }
  for (; j < h; ++j) {
    const float a = lo[j], b = hi[j];
    lo[j] = a * C[j] + b * S[j];
    hi[j] = b * C[h + j] + a * S[h + j];
  }
}

}  // namespace

double rope_frequency(int j, int D, float theta, const RopeScaling& s) {
  const double f = std::pow(double(theta), -2.0 * j / D);
  if (s.type == RopeScaling::Type::none) return f;
  // Llama 3.1: as transformers' _compute_llama3_parameters
  const double pi = 3.14159265358979323846, wavelen = 2 * pi / f;
  const double low_wavelen = s.original_context / double(s.low_freq_factor);
  const double high_wavelen = s.original_context / double(s.high_freq_factor);
  if (wavelen < high_wavelen) return f;
  if (wavelen > low_wavelen) return f / s.factor;
  const double smooth = (s.original_context / wavelen - s.low_freq_factor) / (double(s.high_freq_factor) - s.low_freq_factor);
  return (1 - smooth) * f / s.factor + smooth * f;
}

void rope_table(float* table, const int* positions, int T, int D, float theta, RopeLayout layout,
                const RopeScaling& scaling) {
  const int h = D / 2;
  for (int t = 0; t < T; ++t) {
    float* C = table + std::size_t(t) * 2 * D;
    float* S = C + D;
    for (int j = 0; j < h; ++j) {
      const double angle = double(positions[t]) * rope_frequency(j, D, theta, scaling);
      const float c = float(std::cos(angle)), s = float(std::sin(angle));
      const int first = layout == RopeLayout::adjacent ? 2 * j : j;
      const int second = layout == RopeLayout::adjacent ? 2 * j + 1 : j + h;
      C[first] = c, C[second] = c;
      S[first] = -s, S[second] = s;
    }
  }
}

void rope(float* x, int T, int H, int D, int ld, const float* table, RopeLayout layout) {
  if (!ld) ld = H * D;
  for (int t = 0; t < T; ++t) {
    const float* C = table + std::size_t(t) * 2 * D;
    for (int hd = 0; hd < H; ++hd) {
      float* head = x + std::size_t(t) * ld + std::size_t(hd) * D;
      if (layout == RopeLayout::adjacent)
        rotate_adjacent(head, D, C, C + D);
      else
        rotate_half(head, D, C, C + D);
    }
  }
}

}  // namespace lookback
