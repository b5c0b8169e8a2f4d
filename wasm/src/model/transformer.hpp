// A loaded model ready to run: its weights (one buffer), its matrices in the format chosen at load (float32
// views of that buffer, or float16 / Q8 copies) and the rotary table of every position of the context.
// Immutable once built (and not copyable: the matrices point into it), so sessions may share it. Not here: running it (session.hpp) or
// reading files (safetensors.hpp, llama2c.hpp, bundle.hpp).
#pragma once
#include <vector>

#include "model/matrices.hpp"
#include "model/weights.hpp"

namespace lookback {

class Transformer {
 public:
  // Checks that every weight is finite (ModelError naming the tensor and index otherwise).
  // format: how the matrices are stored for the products (float32 reads the weights in place).
  explicit Transformer(Weights w, WeightFormat format = WeightFormat::f32);
  // The matrices made apart (filled in parts while a file was read; w holds the rest): checks w and that every
  // matrix row came.
  Transformer(Weights w, Matrices m);
  Transformer(const Transformer&) = delete;
  Transformer& operator=(const Transformer&) = delete;

  const ModelConfig& config() const { return weights_.config(); }
  const Weights& weights() const { return weights_; }
  const Matrices& matrices() const { return matrices_; }
  // Rotary factors of position p: [2, D] (see lookback/nn.hpp rope_table); rows for p..p+T are consecutive.
  // Only for models with rotary positions (config().positions == Positions::rope).
  const float* rope_row(int p) const { return rope_.data() + std::size_t(p) * 2 * config().head_dim; }

 private:
  void make_rope();
  Weights weights_;
  Matrices matrices_;
  std::vector<float> rope_;  // [max_seq_len, 2, D], empty for learned positions
};

}  // namespace lookback
