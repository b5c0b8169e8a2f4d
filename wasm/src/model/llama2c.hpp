// llama2.c "legacy" checkpoints (.bin): a 7-int32 header (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
// vocab_size, seq_len; negative vocab_size = a separate classifier at the end), float32 weights in a fixed
// order, two legacy RoPE tables that are skipped. Read into the same Weights as safetensors.
// Not here: llama2.c's tokenizer file (sp_tokenizer.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "model/weights.hpp"

namespace lookback {

// The config a llama2.c header describes (RMSNorm eps 1e-5, RoPE theta 1e4 on adjacent pairs, SwiGLU,
// no QK-norm, start mark 1, end mark 2). ModelError when the header is impossible.
ModelConfig llama2c_config(const std::uint8_t* bytes, std::size_t size);

// The whole checkpoint; the file size must be exactly what the header implies, and weights finite.
Weights read_llama2c(const std::uint8_t* bytes, std::size_t size);

// The inverse, for tests and conversions: a legacy checkpoint of weights whose config llama2.c can run.
std::vector<std::uint8_t> write_llama2c(const Weights& w);

}  // namespace lookback
