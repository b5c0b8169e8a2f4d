// A model from a GGUF file: the architecture's metadata mapped to a ModelConfig, its tensors (any type
// ggml_types.hpp reads, decoded to float32 at load and then held as the caller asks, else by gguf_storage) to
// lookback's names, and the tokenizer from tokenizer.ggml.* (llama: sentencepiece-style; gpt2: byte-level BPE
// split as tokenizer.ggml.pre names). Architectures: llama, qwen2, qwen3, gpt2, with tensor names as llama.cpp
// writes them. Anything else is refused naming the key and its value.
// Not here: the container (gguf.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/bundle.hpp"
#include "model/gguf.hpp"

namespace lookback {

// The ModelConfig the file's metadata describes (ARCH.block_count, embedding_length, attention.head_count,
// head_count_kv, key_length, feed_forward_length, context_length (capped at kHfMaxContext), and per architecture:
// llama/qwen2/qwen3 rope.freq_base, rope.dimension_count, attention.layer_norm_rms_epsilon; gpt2
// attention.layer_norm_epsilon); tied when there is no output.weight. llama rotates adjacent pairs (llama.cpp
// stores Llama's q/k rows in Meta's order, rope type NORM); qwen2/qwen3 pairs half a head apart (NEOX). qwen2
// has q/k/v biases, qwen3 q/k norms; gpt2 learned positions, LayerNorm with bias, a fused attn_qkv, tanh-GELU.
ModelConfig gguf_config(const GgufFile& f);

// The lookback tensor names (model_config.hpp) a GGUF tensor's rows go to, in order, for a model of config c:
// "blk.3.attn_q.weight" -> {"layers.3.attention.wq.weight"}, "blk.0.attn_qkv.bias" -> {wq.bias, wk.bias,
// wv.bias}; empty when it has none.
std::vector<std::string> gguf_to_lookback_names(const std::string& gguf_name, const ModelConfig& c);

// How a GGUF's matrices are held when the caller does not choose: q8 when any matrix (2-D tensor) is quantized
// (Q8_0 runs on the q8 path as it is; Q4_0, Q4_K, Q5_K and Q6_K are held as q8: its products read half of
// f16's bytes and ran faster, and q4's decoded no faster with ten times the logit error, see the models page),
// else f16 when any is F16, else f32 (F32, BF16). Held as q4 on request, Q4_0 and Q4_K blocks go in exactly.
WeightFormat gguf_storage(const GgufFile& f);

// The model, read from the source front to back a chunk of rows at a time (the file is never held whole; compact
// matrices never exist as float32 in full). memory: the most bytes the model may take (0: no limit), refused
// before anything is allocated when it needs more (matrices.hpp check_model_fits).
LoadedModel load_gguf(const ByteSource& source, std::optional<WeightFormat> format, std::size_t memory);
LoadedModel load_gguf(const std::uint8_t* bytes, std::size_t size, std::optional<WeightFormat> format = std::nullopt);

}  // namespace lookback
