// Transformer construction: the finiteness check, the matrices in their format and the rotary table of the
// whole context (models with rotary positions).
// Not here: the forward pass (session.cpp).
#include "model/transformer.hpp"

#include <numeric>

#include "lookback/nn.hpp"

namespace lookback {

namespace {
Weights checked(Weights w) {
  w.check_finite();
  return w;
}
}  // namespace

Transformer::Transformer(Weights w, WeightFormat format)
    : weights_(checked(std::move(w))), matrices_(weights_, format) {
  make_rope();
}

Transformer::Transformer(Weights w, Matrices m) : weights_(checked(std::move(w))), matrices_(std::move(m)) {
  matrices_.check_filled();
  make_rope();
}

void Transformer::make_rope() {
  const ModelConfig& c = config();
  if (c.positions != Positions::rope) return;  // learned positions are rows of the weights
  std::vector<int> positions(std::size_t(c.max_seq_len));
  std::iota(positions.begin(), positions.end(), 0);
  rope_.resize(std::size_t(c.max_seq_len) * 2 * c.head_dim);
  rope_table(rope_.data(), positions.data(), c.max_seq_len, c.head_dim, c.rope_theta, c.rope_layout, c.rope_scaling);
}

}  // namespace lookback
