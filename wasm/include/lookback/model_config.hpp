// The configuration of one decoder-only transformer of the family lookback runs (Sprout, llama2.c models, and
// the variants of Llama, Qwen2/Qwen3 and GPT-2) and the tensor names its weights use in safetensors files.
// Only data: no loading, no computation.
// Letters: L layers, H query heads, Hkv key/value heads, D head width, C = d_model, F MLP hidden, V vocabulary.
#pragma once
#include <string>

#include "lookback/nn.hpp"  // RopeLayout, RopeScaling

namespace lookback {

enum class Mlp { swiglu, gelu, gelu_tanh };  // swiglu: w2(silu(w1 x) * w3 x); gelu(_tanh): w2(gelu(w1 x)), no w3
enum class Norm { rms, layer };              // rms: x·w / rms(x) (Llama); layer: LayerNorm with weight and bias (GPT-2)
enum class Positions { rope, learned };      // rope: rotary q and k; learned: a row of pos_embeddings added to x

struct ModelConfig {
  std::string arch = "sprout";
  int dim = 192;          // C
  int n_layers = 8;       // L
  int n_heads = 6;        // H
  int n_kv_heads = 6;     // Hkv, divides H
  int head_dim = 32;      // D (dim == n_heads * head_dim for the models here)
  int hidden_dim = 512;   // F
  int vocab_size = 2048;  // V
  int max_seq_len = 256;  // the context
  float norm_eps = 1e-5f;
  float rope_theta = 10000.0f;
  RopeLayout rope_layout = RopeLayout::adjacent;
  bool qk_norm = true;
  Mlp mlp = Mlp::swiglu;
  bool tied_embeddings = true;
  Norm norm = Norm::rms;                  // every norm of the model (q_norm/k_norm are always RMSNorm)
  Positions positions = Positions::rope;  // learned: max_seq_len rows of pos_embeddings
  RopeScaling rope_scaling;               // rope only
  bool qkv_bias = false;  // wq, wk, wv carry biases (Qwen2, GPT-2)
  bool out_bias = false;  // wo carries a bias (GPT-2)
  bool mlp_bias = false;  // w1 (w3), w2 carry biases (GPT-2)
  int bos_id = 0;         // start mark <s>
  int eos_id = 1;         // end mark </s>
};

// Tensor names (W[out][in], applied as y = W x) in the safetensors file:
//   tok_embeddings.weight [V,C]
//   pos_embeddings.weight [max_seq_len,C]                                (only when positions == learned)
//   layers.{l}.attention_norm.weight [C]  .bias [C]                      (bias only when norm == layer)
//   layers.{l}.attention.wq.weight [H*D,C]  .wk.weight [Hkv*D,C]  .wv.weight [Hkv*D,C]
//   layers.{l}.attention.wq.bias [H*D]  .wk.bias [Hkv*D]  .wv.bias [Hkv*D]  (only when qkv_bias)
//   layers.{l}.attention.q_norm.weight [D]  .k_norm.weight [D]          (only when qk_norm)
//   layers.{l}.attention.wo.weight [C,H*D]  .wo.bias [C]                 (bias only when out_bias)
//   layers.{l}.ffn_norm.weight [C]  .bias [C]                            (bias only when norm == layer)
//   layers.{l}.feed_forward.w1.weight [F,C]  .w3.weight [F,C] (swiglu only)
//   layers.{l}.feed_forward.w1.bias [F]  .w3.bias [F] (swiglu only)      (only when mlp_bias)
//   layers.{l}.feed_forward.w2.weight [C,F]  .w2.bias [C]                (bias only when mlp_bias)
//   norm.weight [C]  norm.bias [C]                                       (bias only when norm == layer)
//   output.weight [V,C]                                                  (only when not tied)
// The config travels beside the weights as config.json with the field names above
// ("rope_layout": "adjacent"|"half", "mlp": "swiglu"|"gelu"|"gelu_tanh", "norm": "rms"|"layer",
// "positions": "rope"|"learned", "rope_scaling": {"type": "llama3", "factor", "low_freq_factor",
// "high_freq_factor", "original_context"}; the keys after "tied_embeddings" are written only when they differ
// from the defaults above).

}  // namespace lookback
