// A model from a GGUF file: the architecture's metadata mapped to a ModelConfig, its tensors (any type
// ggml_types.hpp reads, decoded to float32 at load and then held as the caller asks, else by gguf_storage) to lookback's
// names, and the tokenizer from tokenizer.ggml.*. Architectures: llama. Tokenizers: llama (sentencepiece-style
// scores with byte fallback). Anything else is refused naming the key and its value.
// Not here: the container (gguf.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "model/bundle.hpp"
#include "model/gguf.hpp"

namespace lookback {

// The ModelConfig the file's metadata describes (llama.*: block_count, embedding_length, head_count,
// head_count_kv, key_length, rope.freq_base, rope.dimension_count, attention.layer_norm_rms_epsilon,
// context_length (capped at kHfMaxContext), feed_forward_length; tied when there is no output.weight).
// llama.cpp stores Llama's q/k rows in Meta's order (its conversion undoes transformers' permutation) and
// rotates adjacent pairs (rope type NORM), so the config says RopeLayout::adjacent.
ModelConfig gguf_config(const GgufFile& f);

// The lookback tensor name (model_config.hpp) of a GGUF tensor name ("blk.3.attn_q.weight" ->
// "layers.3.attention.wq.weight"), or "" when it has none.
std::string gguf_to_lookback_name(const std::string& gguf_name);

// How a GGUF's matrices are held when the caller does not choose: q8 when any matrix (2-D tensor) is quantized
// (Q8_0 runs on the q8 path as it is; Q4_0, Q4_K, Q5_K and Q6_K are held as q8: its products read half of
// f16's bytes and ran faster, see the models page), else f16 when any is F16, else f32 (F32, BF16).
WeightFormat gguf_storage(const GgufFile& f);

LoadedModel load_gguf(const std::uint8_t* bytes, std::size_t size, std::optional<WeightFormat> format = std::nullopt);

}  // namespace lookback
