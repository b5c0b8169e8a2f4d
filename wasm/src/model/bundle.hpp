// A model with its tokenizer, from the two kinds of files lookback reads: a bundle (weights.safetensors +
// config.json + tokenizer.json, byte-level BPE) or a llama2.c checkpoint .bin with its tokenizer .bin.
// Checks that the tokenizer fits the model (same vocabulary size, same start and end marks).
// Not here: the individual formats (safetensors.hpp, config_json.hpp, llama2c.hpp, sp_tokenizer.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "model/tokenizer.hpp"
#include "model/transformer.hpp"

namespace lookback {

struct LoadedModel {
  std::shared_ptr<const Transformer> transformer;
  std::shared_ptr<const Tokenizer> tokenizer;
};

// format: how the matrices are stored for the products (see matrices.hpp).
LoadedModel load_bundle(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                        const std::string& tokenizer_json, WeightFormat format = WeightFormat::f32);
LoadedModel load_llama2c(const std::uint8_t* checkpoint, std::size_t size, const std::uint8_t* tokenizer,
                         std::size_t tokenizer_size, WeightFormat format = WeightFormat::f32);

// ModelError when the tokenizer's vocabulary or marks differ from the config's.
void check_tokenizer_fits(const ModelConfig& c, const Tokenizer& t);

}  // namespace lookback
