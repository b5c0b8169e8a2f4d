// ModelConfig <-> config.json text, and the checks every config must pass before weights are allocated
// (positive sizes, heads that divide, even head width, ids inside the vocabulary, sizes within limits).
// Not here: the tensors a config implies (weights.hpp) or reading weights (safetensors.hpp, llama2c.hpp).
#pragma once
#include <string>

#include "lookback/model_config.hpp"

namespace lookback {

// Throws ModelError naming the first field that is out of range.
void validate_config(const ModelConfig& c);

// Parses config.json: an object with the ModelConfig field names. Required: dim, n_layers, n_heads,
// n_kv_heads, head_dim, hidden_dim, vocab_size, max_seq_len, rope_layout, qk_norm, mlp, tied_embeddings;
// optional (default as in ModelConfig): arch, norm_eps, rope_theta, bos_id, eos_id, and the variant's norm,
// positions, rope_scaling, qkv_bias, out_bias, mlp_bias. Unknown keys are errors (they are usually typos). The
// result is validated.
ModelConfig config_from_json(const std::string& text);
// Every field, pretty-printed (the variant's fields only when they differ from the defaults).
std::string config_to_json(const ModelConfig& c);

// Number of parameters (floats) of the weights of this config.
std::size_t parameter_count(const ModelConfig& c);

}  // namespace lookback
