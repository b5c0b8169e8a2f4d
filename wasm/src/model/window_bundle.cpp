// load_window_bundle(): the sizes check, the two readers, the vocabulary check (see window_bundle.hpp).
#include "model/window_bundle.hpp"

#include "model/errors.hpp"
#include "model/safetensors_sizes.hpp"

namespace lookback {

WindowBundle load_window_bundle(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                                const std::string& tokenizer_json) {
  check_safetensors_sizes(safetensors, size);
  WindowBundle b{WindowModel(safetensors, size, config_json), bpe_tokenizer_from_json(tokenizer_json)};
  const WindowModelConfig& c = b.model.config();
  if (b.tokenizer->vocab_size() != c.vocab_size)
    model_error("the tokenizer has ", b.tokenizer->vocab_size(), " tokens but the window model's vocabulary has ",
                c.vocab_size);
  return b;
}

}  // namespace lookback
