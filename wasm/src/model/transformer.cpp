// Transformer construction: the finiteness check and the rotary table of the whole context.
// Not here: the forward pass (session.cpp).
#include "model/transformer.hpp"

#include <numeric>

#include "lookback/nn.hpp"

namespace lookback {

Transformer::Transformer(Weights w) : weights_(std::move(w)) {
  weights_.check_finite();
  const ModelConfig& c = config();
  std::vector<int> positions(std::size_t(c.max_seq_len));
  std::iota(positions.begin(), positions.end(), 0);
  rope_.resize(std::size_t(c.max_seq_len) * 2 * c.head_dim);
  rope_table(rope_.data(), positions.data(), c.max_seq_len, c.head_dim, c.rope_theta, c.rope_layout);
}

}  // namespace lookback
