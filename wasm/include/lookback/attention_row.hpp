// One (head, query) row of the scalar reference attention with every intermediate kept: the scores, their
// maximum, the exponentials, their sum, the weights and the output. attention_ref computes each of its rows
// with it, and the chapter's code walk shows these numbers beside its source. Not a fast path (attention is).
#pragma once
#include <cstdint>
#include <vector>

#include "lookback/kernels.hpp"

namespace lookback {

struct AttentionRow {
  std::vector<double> score;   // [S] scale·q·k / temperature, -inf where the key is hidden
  double max = 0;              // the largest score (-inf when nothing is visible)
  std::vector<double> e;       // [S] exp(score - max), 0 where hidden
  double sum = 0;              // Σ e
  std::vector<double> weight;  // [S] e / sum
  std::vector<double> out;     // [D] Σ_s weight[s] · v[s]
};

// Query t of head h against every key; q: [T,H,D], k and v: [S,Hkv,D] with the shape's strides, mask as in
// attention. Fills r and returns false when the row sees no key (its weights and output are then zero).
bool attention_row_ref(const float* q, const float* k, const float* v, const AttentionShape& a,
                       const std::uint8_t* mask, int h, int t, AttentionRow& r);

}  // namespace lookback
