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

// config: config.json's text, or null/undefined when the files have none.
val load_js(val weights, val config, val tokenizer, val weight_format_name) {
  try {
    const char* fn = "loadModel";
    const WeightFormat storage = weight_format(string_arg(fn, "weights", weight_format_name));
    const auto bytes = bytes_arg(fn, "the weights file", weights);
    const auto tok = bytes_arg(fn, "the tokenizer file", tokenizer);
    ModelFiles files;
    files.weights = bytes.data();
    files.weights_size = bytes.size();
    if (!config.isNull() && !config.isUndefined()) files.config = string_arg(fn, "config.json", config);
    files.tokenizer = tok.data();
    files.tokenizer_size = tok.size();
    const ModelFormat& format = detect_model_format(files);
    val info = std::visit([](auto&& m) {
      if constexpr (std::is_same_v<std::decay_t<decltype(m)>, LoadedModel>) return register_model(std::move(m));
      else return register_window(std::move(m));
    }, format.load(files, storage));
    info.set("format", std::string(format.name));
    return info;
  } catch (const UnsupportedFormat& e) {
    val err = val::global("Error").new_(std::string(e.what()));
    err.set("unsupported", true);
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
