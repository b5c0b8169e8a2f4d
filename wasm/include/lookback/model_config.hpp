// The configuration of one decoder-only transformer of the family lookback runs (Sprout, llama2.c models)
// and the tensor names its weights use in safetensors files. Only data: no loading, no computation.
// Letters: L layers, H query heads, Hkv key/value heads, D head width, C = d_model, F MLP hidden, V vocabulary.
#pragma once
#include <string>

#include "lookback/nn.hpp"  // RopeLayout

namespace lookback {

enum class Mlp { swiglu, gelu };           // swiglu: w2(silu(w1 x) * w3 x); gelu: w2(gelu(w1 x)), no w3

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
  int bos_id = 0;         // start mark <s>
  int eos_id = 1;         // end mark </s>
};

// Tensor names (W[out][in], applied as y = W x) in the safetensors file:
//   tok_embeddings.weight [V,C]
//   layers.{l}.attention_norm.weight [C]
//   layers.{l}.attention.wq.weight [H*D,C]  .wk.weight [Hkv*D,C]  .wv.weight [Hkv*D,C]  .wo.weight [C,H*D]
//   layers.{l}.attention.q_norm.weight [D]  .k_norm.weight [D]          (only when qk_norm)
//   layers.{l}.ffn_norm.weight [C]
//   layers.{l}.feed_forward.w1.weight [F,C]  .w3.weight [F,C] (swiglu only)  .w2.weight [C,F]
//   norm.weight [C]
//   output.weight [V,C]                                                  (only when not tied)
// The config travels beside the weights as config.json with the field names above
// ("rope_layout": "adjacent"|"half", "mlp": "swiglu"|"gelu").

}  // namespace lookback
