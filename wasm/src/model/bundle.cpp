// Loading a model and its tokenizer from bytes, with the checks that tie them together and the checks run
// before the readers (JSON nesting depth, 64-bit safetensors sizes). Not here: parsing of each file (their own
// readers).
#include "model/bundle.hpp"

#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/json_depth.hpp"
#include "model/llama2c.hpp"
#include "model/safetensors.hpp"
#include "model/safetensors_sizes.hpp"
#include "model/sp_tokenizer.hpp"

namespace lookback {

void check_tokenizer_fits(const ModelConfig& c, const Tokenizer& t) {
  if (t.vocab_size() != c.vocab_size)
    model_error("the tokenizer has ", t.vocab_size(), " tokens but the model's vocabulary has ", c.vocab_size,
                " (the tokenizer belongs to another model)");
  if (t.bos_id() != c.bos_id || t.eos_id() != c.eos_id)
    model_error("the tokenizer's start/end marks are ids ", t.bos_id(), "/", t.eos_id(), " but the model's config says ",
                c.bos_id, "/", c.eos_id);
}

LoadedModel load_bundle(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                        const std::string& tokenizer_json, WeightFormat format) {
  check_json_depth(config_json, "config.json");
  const ModelConfig c = config_from_json(config_json);
  std::shared_ptr<const Tokenizer> tok = bpe_tokenizer_from_json(tokenizer_json);
  check_tokenizer_fits(c, *tok);
  check_safetensors_sizes(safetensors, size);
  auto model = std::make_shared<const Transformer>(read_safetensors(c, safetensors, size), format);
  return {std::move(model), std::move(tok)};
}

LoadedModel load_llama2c(const std::uint8_t* checkpoint, std::size_t size, const std::uint8_t* tokenizer,
                         std::size_t tokenizer_size, WeightFormat format) {
  const ModelConfig c = llama2c_config(checkpoint, size);
  std::shared_ptr<const Tokenizer> tok = std::make_shared<SpTokenizer>(SpTokenizer::from_bin(tokenizer, tokenizer_size));
  check_tokenizer_fits(c, *tok);
  auto model = std::make_shared<const Transformer>(read_llama2c(checkpoint, size), format);
  return {std::move(model), std::move(tok)};
}

}  // namespace lookback
