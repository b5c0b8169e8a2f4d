// Reading a Hugging Face transformers folder of one of the architectures lookback runs: LlamaForCausalLM,
// Qwen2ForCausalLM (q/k/v biases), Qwen3ForCausalLM (q/k RMSNorm, head_dim from config.json) and GPT2LMHeadModel
// (LayerNorm with biases, learned positions, tanh-GELU, Conv1D weights stored [in, out], a fused c_attn split into
// q, k and v, tied head): config.json in its names, the weights in one model.safetensors or in the shards
// model.safetensors.index.json names, with their tensor names
// (F32, F16 or BF16), and a byte-level BPE tokenizer.json (hf_tokenizer.hpp). Llama's and Qwen's q_proj/k_proj
// rows are already in the order the rotate-half rotary convention needs, so those run with RopeLayout::half.
// Not supported (a ModelError says which): rope_scaling other than llama3, sliding windows, activations other than
// silu (gelu_new for GPT-2), other architectures. Not here: lookback's own bundle (bundle.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/bundle.hpp"
#include "model/byte_source.hpp"

namespace lookback {

// The longest context lookback gives a Hugging Face model (its key/value cache is allocated for it).
constexpr int kHfMaxContext = 2048;

// True when config.json text names a transformers architecture ("architectures" or "model_type").
bool is_hf_config(const std::string& config_json);

// The ModelConfig of a config.json of one of the architectures above; ModelError for anything lookback cannot run.
ModelConfig hf_config(const std::string& config_json);
// The architectures' names ("LlamaForCausalLM, ... or GPT2LMHeadModel"), for messages.
std::string hf_architecture_names();

// Safetensors tensor name in a transformers Llama checkpoint of a lookback tensor name (model_config.hpp).
std::string hf_llama_tensor_name(const std::string& lookback_name);

// One safetensors file of a model: its name (model.safetensors, or a shard's name as the index gives it) and its
// bytes, or (source) the file read in parts: the header, then each tensor a chunk of rows at a time.
struct SafetensorsFile {
  std::string name;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  const ByteSource* source = nullptr;
};

// format: how the matrices are stored for the products (see matrices.hpp). One model.safetensors:
LoadedModel load_hf_model(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                          const std::string& tokenizer_json, WeightFormat format = WeightFormat::f32);
// A sharded checkpoint: every file model.safetensors.index.json's weight_map names (index_json: its text); a
// tensor is read from the file the map gives, and a tensor in a file the map does not put it in is refused.
// memory: the most bytes the model may take (0: no limit; matrices.hpp check_model_fits). Compact formats (f16,
// q8) are made from each chunk as it is read: the float32 matrices never exist in full.
LoadedModel load_hf_model(const std::vector<SafetensorsFile>& files, const std::string& index_json,
                          const std::string& config_json, const std::string& tokenizer_json,
                          WeightFormat format = WeightFormat::f32, std::size_t memory = 0);

}  // namespace lookback
