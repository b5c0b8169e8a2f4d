// Embind bindings of model loading, one entry for every format: modelLoad(weights, config, tokenizer,
// weightFormat) detects the format (wasm/src/model/load.hpp) and hands the model to its kind's handle table
// (loaded.hpp); modelFormats() lists the formats and the weight storages, for the JS API, the CLI and the
// page's file picker. Returns an Error object instead of throwing (unsupported: true for a mix of formats).
// Not here: finding or reading the files (web/js/api/model.js) or any format's parsing (wasm/src/model).
#include <emscripten/bind.h>

#include <type_traits>
#include <variant>

#include "args.hpp"
#include "loaded.hpp"
#include "model/load.hpp"
#include "model/matrices.hpp"
#include "model_args.hpp"

namespace lookback::bind {
namespace {

// A sharded checkpoint's { index: model.safetensors.index.json's text, shards: [{ name, bytes }] } into files
// (each shard copied into `kept`).
void shards_arg(const char* fn, const val& weights, ModelFiles& files, std::vector<std::vector<std::uint8_t>>& kept) {
  files.weight_index = string_arg(fn, "the index (model.safetensors.index.json)", weights["index"]);
  const val shards = weights["shards"];
  if (!val::global("Array").call<bool>("isArray", shards) || shards["length"].as<std::size_t>() == 0)
    fail(fn, ": shards must be a non-empty array of { name, bytes }");
  const std::size_t n = shards["length"].as<std::size_t>();
  kept.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const val shard = shards[i];
    kept.push_back(bytes_arg(fn, "a shard", shard["bytes"]));
    files.shards.push_back({string_arg(fn, "a shard's name", shard["name"]), kept.back().data(), kept.back().size()});
  }
  files.weights = files.shards[0].data;
  files.weights_size = files.shards[0].size;
}

// weights: the weights file's bytes, or a sharded checkpoint's { index, shards } (shards_arg); config:
// config.json's text, or null/undefined when the files have none; weight_format_name: a storage, or
// null/undefined for the format's own choice (load.hpp: Storage).
val load_js(val weights, val config, val tokenizer, val weight_format_name) {
  try {
    const char* fn = "loadModel";
    Storage storage;
    if (!weight_format_name.isNull() && !weight_format_name.isUndefined())
      storage = weight_format(string_arg(fn, "weights", weight_format_name));
    std::vector<std::vector<std::uint8_t>> kept;
    ModelFiles files;
    if (!weights.isNull() && !weights.isUndefined() && !weights.instanceof(val::global("Uint8Array")) &&
        weights.typeOf().as<std::string>() == "object") {
      shards_arg(fn, weights, files, kept);
    } else {
      kept.push_back(bytes_arg(fn, "the weights file", weights));
      files.weights = kept[0].data();
      files.weights_size = kept[0].size();
    }
    const auto tok = bytes_arg(fn, "the tokenizer file", tokenizer);
    if (!config.isNull() && !config.isUndefined()) files.config = string_arg(fn, "config.json", config);
    files.tokenizer = tok.data();
    files.tokenizer_size = tok.size();
    const ModelFormat& format = detect_model_format(files);
    val info = std::visit([](auto&& m) {
      if constexpr (std::is_same_v<std::decay_t<decltype(m)>, LoadedModel>) return register_model(std::move(m));
      else return register_window(std::move(m));
    }, load_as(format, files, storage));
    info.set("format", std::string(format.name));
    return info;
  } catch (const UnsupportedFormat& e) {
    val err = val::global("Error").new_(std::string(e.what()));
    err.set("unsupported", true);
    return err;
  } catch (const MissingFile& e) {
    val err = val::global("Error").new_(std::string(e.what()));
    err.set("missing", e.file);
    return err;
  } catch (const std::exception& e) {
    return val::global("Error").new_(std::string(e.what()));
  }
}

// { formats: [{ name, files, weights (the weights file's extension), config (whether config.json is one of
// its files), tokenizer (its file name beside the weights) }], weights: ['f32', ...], supported (in words) }
val formats_js() {
  val formats = val::array();
  for (const ModelFormat& f : model_formats()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("files", std::string(f.files));
    o.set("weights", std::string(f.weights_ext));
    o.set("config", f.config);
    o.set("tokenizer", std::string(f.tokenizer));
    formats.call<void>("push", o);
  }
  val weights = val::array();
  for (WeightFormat w : weight_formats()) weights.call<void>("push", std::string(weight_format_name(w)));
  val r = val::object();
  r.set("formats", formats);
  r.set("weights", weights);
  r.set("supported", supported_formats());
  return r;
}

}  // namespace
}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_load) {
  using namespace lookback::bind;
  emscripten::function("modelLoad", &load_js);
  emscripten::function("modelFormats", &formats_js);
}
