// Embind bindings of model loading, one entry for every format: modelLoad(weights, config, tokenizer,
// weightFormat) detects the format (weights: bytes, or a reader the formats that stream read in parts) (wasm/src/model/load.hpp) and hands the model to its kind's handle table
// (loaded.hpp); modelFormats() lists the formats and the weight storages, for the JS API, the CLI and the
// page's file picker. Returns an Error object instead of throwing (unsupported: true for a mix of formats).
// Not here: finding or reading the files (web/js/api/model.js) or any format's parsing (wasm/src/model).
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <optional>
#include <variant>

#include "args.hpp"
#include "loaded.hpp"
#include "model/byte_source.hpp"
#include "model/load.hpp"
#include "model/matrices.hpp"
#include "model_args.hpp"

namespace lookback::bind {
namespace {

// A weights file the JS API reads in parts: { size, read(offset, length) -> Uint8Array of exactly length bytes }
// (a file on disk in Node, a File or Blob in a page's worker, bytes held in JS), so the whole file never comes into the module.
class JsSource final : public ByteSource {
 public:
  explicit JsSource(val reader) : reader_(std::move(reader)) {
    const double n = reader_["size"].isNumber() ? reader_["size"].as<double>() : -1;
    if (!(n >= 0 && n <= 9007199254740991.0 && n == double(std::uint64_t(n))))
      fail("loadModel: the weights reader's size must be a whole number of bytes");
    size_ = std::uint64_t(n);
  }
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t at, std::size_t n, std::uint8_t* out) const override {
    if (at > size_ || n > size_ - at) model_error("reading bytes ", at, "..", at + n, " of a file of ", size_);
    const val bytes = reader_.call<val>("read", double(at), double(n));
    if (!bytes.instanceof(val::global("Uint8Array")) || bytes["length"].as<double>() != double(n))
      model_error("the weights file gave ", bytes.instanceof(val::global("Uint8Array")) ? bytes["length"].as<double>() : -1.0,
                  " bytes where ", n, " were asked for (at byte ", at, "); was it changed while it was read?");
    if (n) val(emscripten::typed_memory_view(n, out)).call<void>("set", bytes);
  }

 private:
  val reader_;
  std::uint64_t size_ = 0;
};

bool is_reader(const val& v) { return v.typeOf().as<std::string>() == "object" && !v.isNull() && v["read"].typeOf().as<std::string>() == "function"; }

// The bytes the module can still take: its most memory less what is allocated now.
std::size_t free_memory() {
  const std::size_t in_use = std::size_t(mallinfo().uordblks);
  const std::size_t most = emscripten_get_heap_max();
  return most > in_use ? most - in_use : 1;
}

constexpr std::size_t kHeadBytes = std::size_t(1) << 16;  // of a file read in parts, what tells its format

// A sharded checkpoint's { index: model.safetensors.index.json's text, shards: [{ name, bytes }] } into files
// (each shard copied into `kept`, or, when its bytes are a reader, read in parts from a source kept in `sources`;
// the first shard's first bytes, which tell the format, in kept too).
void shards_arg(const char* fn, const val& weights, ModelFiles& files, std::vector<std::vector<std::uint8_t>>& kept,
                std::vector<std::unique_ptr<JsSource>>& sources) {
  files.weight_index = string_arg(fn, "the index (model.safetensors.index.json)", weights["index"]);
  const val shards = weights["shards"];
  if (!val::global("Array").call<bool>("isArray", shards) || shards["length"].as<std::size_t>() == 0)
    fail(fn, ": shards must be a non-empty array of { name, bytes }");
  const std::size_t n = shards["length"].as<std::size_t>();
  kept.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const val shard = shards[i];
    const std::string name = string_arg(fn, "a shard's name", shard["name"]);
    if (is_reader(shard["bytes"])) {
      sources.push_back(std::make_unique<JsSource>(shard["bytes"]));
      files.shards.push_back({name, nullptr, 0, sources.back().get()});
      continue;
    }
    kept.push_back(bytes_arg(fn, "a shard", shard["bytes"]));
    files.shards.push_back({name, kept.back().data(), kept.back().size()});
  }
  if (const ByteSource* first = files.shards[0].source) {
    kept.emplace_back(std::size_t(std::min<std::uint64_t>(first->size(), kHeadBytes)));
    first->read(0, kept.back().size(), kept.back().data());
    files.weights = kept.back().data();
    files.weights_size = kept.back().size();
    return;
  }
  files.weights = files.shards[0].data;
  files.weights_size = files.shards[0].size;
}

// weights: the weights file's bytes, a reader of it in parts (JsSource), or a sharded checkpoint's { index, shards } (shards_arg); config:
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
    files.memory = free_memory();
    std::optional<JsSource> source;
    std::vector<std::unique_ptr<JsSource>> shard_sources;
    if (is_reader(weights)) {
      source.emplace(weights);
      kept.emplace_back(std::size_t(std::min<std::uint64_t>(source->size(), kHeadBytes)));
      source->read(0, kept[0].size(), kept[0].data());
      files.weights = kept[0].data();
      files.weights_size = kept[0].size();
    } else if (!weights.isNull() && !weights.isUndefined() && !weights.instanceof(val::global("Uint8Array")) &&
        weights.typeOf().as<std::string>() == "object") {
      shards_arg(fn, weights, files, kept, shard_sources);
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
    if (source && format.streams_weights) {
      files.source = &*source;
    } else if (source) {  // a format read whole: all of the file into the module
      if (source->size() > kMaxFileBytes) {
        val err = val::global("Error").new_(std::string("the weights file is too large for a ") + format.name + " model");
        err.set("tooLarge", double(source->size()));
        return err;
      }
      kept[0].resize(std::size_t(source->size()));
      source->read(0, kept[0].size(), kept[0].data());
      files.weights = kept[0].data();
      files.weights_size = kept[0].size();
    }
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
// its files), streams (whether its weights are read in parts), tokenizer (its file name beside the weights) }], weights: ['f32', ...], supported (in words) }
val formats_js() {
  val formats = val::array();
  for (const ModelFormat& f : model_formats()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("files", std::string(f.files));
    o.set("weights", std::string(f.weights_ext));
    o.set("config", f.config);
    o.set("streams", f.streams_weights);
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
