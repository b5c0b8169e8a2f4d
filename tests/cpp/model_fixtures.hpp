// Small model configs for the model tests (several shapes: grouped heads, QK-norm on and off, both RoPE
// layouts, tied and separate classifier, GELU, and the GPT-2 and Qwen2 variants) and random-weight models built
// from them.
// Not a test itself.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/transformer.hpp"
#include "model/weights.hpp"
#include "test_util.hpp"

namespace lookback::testing {

struct NamedConfig {
  std::string name;
  ModelConfig config;
};

inline ModelConfig small_config(int dim, int layers, int heads, int kv_heads, int head_dim, int hidden, int vocab,
                                int context, RopeLayout rope, bool qk_norm, Mlp mlp, bool tied) {
  ModelConfig c;
  c.arch = "test";
  c.dim = dim, c.n_layers = layers, c.n_heads = heads, c.n_kv_heads = kv_heads, c.head_dim = head_dim;
  c.hidden_dim = hidden, c.vocab_size = vocab, c.max_seq_len = context;
  c.rope_layout = rope, c.qk_norm = qk_norm, c.mlp = mlp, c.tied_embeddings = tied;
  return c;
}

// GPT-2's variant: LayerNorm with biases, learned positions, tanh-GELU, biases on every matrix, no rotary.
inline ModelConfig gpt2_like() {
  ModelConfig c = small_config(24, 2, 3, 3, 8, 44, 31, 21, RopeLayout::half, false, Mlp::gelu_tanh, true);
  c.norm = Norm::layer, c.positions = Positions::learned, c.qkv_bias = c.out_bias = c.mlp_bias = true;
  return c;
}

// Qwen2's variant (q/k/v biases) with Llama 3.1's rope scaling; head width 8 and an original context of 64 put
// one pair below the blend, one in it and two above it.
inline ModelConfig qwen2_like() {
  ModelConfig c = small_config(32, 2, 4, 2, 8, 48, 41, 30, RopeLayout::half, false, Mlp::swiglu, false);
  c.qkv_bias = true;
  c.rope_scaling.type = RopeScaling::Type::llama3;
  c.rope_scaling.factor = 8, c.rope_scaling.low_freq_factor = 1, c.rope_scaling.high_freq_factor = 4;
  c.rope_scaling.original_context = 64;
  return c;
}

inline std::vector<NamedConfig> test_configs() {
  using R = RopeLayout;
  return {
      {"sprout-like: qk-norm, adjacent, swiglu, tied", small_config(48, 2, 4, 4, 12, 64, 50, 40, R::adjacent, true, Mlp::swiglu, true)},
      {"gqa 6/2, H*D != C, half, separate classifier", small_config(40, 2, 6, 2, 8, 72, 37, 48, R::half, false, Mlp::swiglu, false)},
      {"mqa 4/1, gelu, qk-norm, half, separate", small_config(32, 3, 4, 1, 8, 40, 29, 33, R::half, true, Mlp::gelu, false)},
      {"llama2c-like gqa 8/4, adjacent, tied", small_config(64, 2, 8, 4, 8, 172, 64, 70, R::adjacent, false, Mlp::swiglu, true)},
      {"tiny: one head of width 2", small_config(6, 1, 1, 1, 2, 5, 11, 9, R::adjacent, true, Mlp::gelu, true)},
      {"gpt2-like: layernorm, learned positions, tanh-gelu, every bias, tied", gpt2_like()},
      {"qwen2-like: q/k/v biases, gqa 4/2, half, llama3 rope scaling, separate", qwen2_like()},
  };
}

inline std::shared_ptr<const Transformer> random_model(const ModelConfig& c, std::uint64_t seed) {
  return std::make_shared<const Transformer>(random_weights(c, seed));
}

inline std::vector<int> random_ids(Rng& rng, int n, int vocab, int bos = 0) {
  std::vector<int> ids{bos};
  while (int(ids.size()) < n) ids.push_back(int(rng.next() % std::uint64_t(vocab)));
  return ids;
}

}  // namespace lookback::testing
