// Loading a model from its files, whatever the format: the one list of the formats lookback reads (each
// format a reader of its own, registered here by one entry) and the one function that tells which format some
// files are. Callers (the bindings, the tools) hand over the bytes they read; what to read is theirs.
// Not here: parsing any format (bundle.hpp, hf_model.hpp, llama2c.hpp, window_bundle.hpp) or the weight
// storages (matrices.hpp: weight_formats()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/bundle.hpp"
#include "model/byte_source.hpp"
#include "model/errors.hpp"
#include "model/hf_model.hpp"
#include "model/window_bundle.hpp"

namespace lookback {

// The files of one model as bytes. config is config.json's text, empty when none was given (a llama2.c
// checkpoint has none); the tokenizer is tokenizer.json's text or a tokenizer .bin, as the format wants. A
// sharded checkpoint: weight_index is model.safetensors.index.json's text, shards every file it names, and
// weights the first of them (what tells the format).
struct ModelFiles {
  // The weights file's bytes: all of them, or (with `source`) the first ones, enough to tell the format.
  const std::uint8_t* weights = nullptr;
  std::size_t weights_size = 0;
  std::string config;
  const std::uint8_t* tokenizer = nullptr;
  std::size_t tokenizer_size = 0;
  std::string weight_index;
  std::vector<SafetensorsFile> shards;
  // The weights file read in parts (byte_source.hpp), or null. Formats that read in parts (streams_weights)
  // take their tensors from it; the caller reads the whole file into `weights` for the others.
  const ByteSource* source = nullptr;
  // The most bytes the model may take (0: no limit): a format that knows its size before allocating refuses more.
  std::size_t memory = 0;
};

// A transformer with its tokenizer, or the chapter's window model with its tokenizer.
using AnyModel = std::variant<LoadedModel, WindowBundle>;

// How the weight matrices are held: the caller's choice, or (nullopt) the format's own: float32 for every
// format but GGUF, whose tensor types decide (gguf_model.hpp: gguf_storage).
using Storage = std::optional<WeightFormat>;

// One format lookback reads. `matches` looks only at what tells formats apart (a safetensors header or not,
// config.json's keys); `load` reads the files (ModelError when they are not a valid model of the format).
struct ModelFormat {
  const char* name;         // "lookback", "hf", "window", "llama2c", "gguf"
  const char* files;        // the files it is made of, in words, for messages and help texts
  const char* weights_ext;  // the weights file's extension: ".safetensors", ".bin"
  bool config;              // whether config.json is one of its files (beside the weights)
  bool streams_weights;     // whether it reads the weights from ModelFiles::source, a part at a time
  const char* tokenizer;    // the tokenizer's usual file name beside the weights ("" when the weights hold it)
  bool (*matches)(const ModelFiles&);
  AnyModel (*load)(const ModelFiles&, Storage);
};

// Every format, in the order they are tried (the most particular first).
const std::vector<ModelFormat>& model_formats();

// The format of the files; ModelError naming every format when none matches, UnsupportedFormat when the files
// mix formats (a lookback config.json beside a Hugging Face tokenizer.json).
struct UnsupportedFormat : ModelError {
  using ModelError::ModelError;
};
// The weights are of a format whose companion file did not come with them: file is "config.json" or "tokenizer".
struct MissingFile : ModelError {
  MissingFile(const std::string& message, std::string file) : ModelError(message), file(std::move(file)) {}
  std::string file;
};
const ModelFormat& detect_model_format(const ModelFiles& files);

// The format's reader on the files (MissingFile when the format needs a tokenizer file and none came).
AnyModel load_as(const ModelFormat& format, const ModelFiles& files, Storage weights = std::nullopt);

// detect_model_format, then load_as.
AnyModel load_model(const ModelFiles& files, Storage weights = std::nullopt);

// "lookback reads ...": every format's files, for messages.
std::string supported_formats();

}  // namespace lookback
