// Attention masks as bytes [T,S] (1 = visible) and their application to a score matrix.
// Not here: the causal skip inside attention(), which never materialises a mask.
#include <algorithm>
#include <limits>

#include "lookback/kernels.hpp"

namespace lookback {

void causal_mask(std::uint8_t* mask, int T, int S) {
  const int off = S - T;  // query t is at absolute position t + off
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < S; ++s) mask[std::size_t(t) * S + s] = s <= t + off ? 1 : 0;
}

void padding_mask(std::uint8_t* mask, int T, int S, int valid) {
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < S; ++s) mask[std::size_t(t) * S + s] = s < valid ? 1 : 0;
}

void apply_mask(float* x, const std::uint8_t* mask, int R, int C) {
  const float ninf = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < std::size_t(R) * C; ++i)
    if (!mask[i]) x[i] = ninf;
}

}  // namespace lookback
