// The window model with its tokenizer, from a bundle's bytes (model.safetensors + config.json with "arch":
// "window" + tokenizer.json, byte-level BPE), with the checks run before the readers (64-bit safetensors sizes;
// each JSON reader bounds its own nesting) and the check that ties the two together (same vocabulary size).
// Not here: the window model itself (window_model.hpp) or the transformer's bundles (bundle.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "model/tokenizer.hpp"
#include "model/window_model.hpp"

namespace lookback {

struct WindowBundle {
  WindowModel model;
  std::unique_ptr<Tokenizer> tokenizer;
};

// ModelError (everything read so far freed) when a file is malformed, too deep, sized past its bytes, or when
// the tokenizer's vocabulary differs from the model's.
WindowBundle load_window_bundle(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                                const std::string& tokenizer_json);

}  // namespace lookback
