// The weights of one model: every tensor the config implies, stored in one float buffer in a fixed order
// (per layer wq, wk, wv adjacent so q/k/v come from one GEMM, and their biases adjacent; w1, w3 and their biases
// likewise), with views by name and by role. The model's variant (model_config.hpp) decides which tensors exist. Not here: reading or writing files (safetensors.hpp, llama2c.hpp) or computing.
// Letters: L layers, H heads, Hkv key/value heads, D head width, C = dim, F = hidden_dim, V vocabulary.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lookback/model_config.hpp"

namespace lookback {

// One tensor of a config: its safetensors name, shape and place in the weight buffer.
struct TensorSpec {
  std::string name;
  std::vector<int> shape;
  std::size_t offset = 0;  // in floats
  std::size_t size() const;
};

// Every tensor of the config in buffer order (see model_config.hpp for names and shapes).
std::vector<TensorSpec> tensor_specs(const ModelConfig& c);

// A named view for writing files: shape and float data owned by someone else.
struct NamedTensor {
  std::string name;
  std::vector<int> shape;
  const float* data = nullptr;
};

// Pointers of one layer's tensors into the weight buffer (null: the variant has no such tensor).
struct LayerView {
  const float* attention_norm;       // [C]
  const float* attention_norm_bias;  // [C] or null
  const float* wqkv;                 // [H*D + 2*Hkv*D, C]: wq, wk, wv stacked
  const float* qkv_bias;             // [H*D + 2*Hkv*D] or null
  const float* q_norm;               // [D] or null
  const float* k_norm;               // [D] or null
  const float* wo;                   // [C, H*D]
  const float* wo_bias;              // [C] or null
  const float* ffn_norm;             // [C]
  const float* ffn_norm_bias;        // [C] or null
  const float* w13;                  // [2F, C] (swiglu: w1 then w3) or [F, C] (gelu: w1)
  const float* w13_bias;             // [2F] or [F], or null
  const float* w2;                   // [C, F]
  const float* w2_bias;              // [C] or null
};

// The weight matrices every linear layer reads (wq, wk, wv, wo, w1, w3, w2 of each layer, output.weight).
bool is_matrix_tensor(const std::string& name);
// Those and the token embedding: the tensors a Matrices can hold in its own format instead (matrices.hpp).
bool is_compact_tensor(const std::string& name);

class Weights {
 public:
  // All zeros; validates the config (ModelError). With matrices false, the buffer holds every tensor but the
  // weight matrices and the token embedding (is_compact_tensor), which a Matrices filled in parts holds in its
  // format instead: find() does not know them, and their LayerView pointers, embedding() and classifier() are null.
  explicit Weights(const ModelConfig& c, bool matrices = true);
  bool holds_matrices() const { return matrices_; }

  const ModelConfig& config() const { return config_; }
  const std::vector<TensorSpec>& specs() const { return specs_; }
  float* data() { return buffer_.data(); }
  const float* data() const { return buffer_.data(); }
  std::size_t size() const { return buffer_.size(); }

  // The spec of a tensor by name, or null.
  const TensorSpec* find(const std::string& name) const;
  // Pointer to a tensor by name; throws ModelError when the config has no such tensor.
  float* tensor(const std::string& name);
  const float* tensor(const std::string& name) const;

  const float* embedding() const;       // [V, C], or null when a Matrices holds it
  const float* positions() const;       // [max_seq_len, C] learned positions, or null
  LayerView layer(int l) const;
  const float* final_norm() const;      // [C]
  const float* final_norm_bias() const; // [C] or null
  const float* classifier() const;  // [V, C]: output.weight, or the embedding when tied

  // Views of every tensor, in buffer order, for writers.
  std::vector<NamedTensor> named() const;

  // Throws ModelError naming the first tensor and index holding NaN or ±Inf.
  void check_finite() const;

 private:
  ModelConfig config_;
  bool matrices_ = true;
  std::vector<TensorSpec> specs_;
  std::vector<float> buffer_;
  const float* at(const std::string& name) const;  // tensor by name, or null
  std::vector<std::vector<std::size_t>> layer_offsets_;  // per layer, each LayerView member's offset (or none)
  std::size_t norm_offset_ = 0, classifier_offset_ = 0;
};

// Weights for tests and demos: matrices uniform in ±1/sqrt(in), norm weights near 1, embedding in ±1,
// from a seeded generator (the same natively and in WebAssembly).
Weights random_weights(const ModelConfig& c, std::uint64_t seed);

// "[3, 17]" style index of a flat position in a shape, for messages.
std::string index_in_shape(std::size_t flat, const std::vector<int>& shape);

}  // namespace lookback
