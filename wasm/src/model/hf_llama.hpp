// Reading a Hugging Face transformers Llama folder (LlamaForCausalLM): config.json in its names, the
// weights in one model.safetensors with its tensor names (F32, F16 or BF16), and a byte-level BPE
// tokenizer.json (hf_tokenizer.hpp). Its q_proj/k_proj rows are already in the order the rotate-half rotary
// convention needs (the transformers conversion permutes each head's interleaved pairs (2i, 2i+1) of Meta's
// layout to (i, i + D/2)), so the model runs with RopeLayout::half on the weights as stored.
// Not supported (a ModelError says which): rope_scaling, attention or MLP biases, activations other than
// silu, sharded weights, other architectures. Not here: lookback's own bundle (bundle.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/bundle.hpp"

namespace lookback {

// The longest context lookback gives a Hugging Face model (its key/value cache is allocated for it).
constexpr int kHfMaxContext = 2048;

// True when config.json text names a transformers architecture ("architectures" or "model_type").
bool is_hf_config(const std::string& config_json);

// The ModelConfig of a LlamaForCausalLM config.json; ModelError for anything lookback cannot run.
ModelConfig hf_llama_config(const std::string& config_json);

// Safetensors tensor name in a transformers Llama checkpoint of a lookback tensor name (model_config.hpp).
std::string hf_llama_tensor_name(const std::string& lookback_name);

// format: how the matrices are stored for the products (see matrices.hpp).
LoadedModel load_hf_llama(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                          const std::string& tokenizer_json, WeightFormat format = WeightFormat::f32);

}  // namespace lookback
