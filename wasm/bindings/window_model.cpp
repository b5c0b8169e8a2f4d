// Embind bindings of the chapter's window model (wasm/src/model/window_model.hpp), handle-based like the
// transformer's (model.cpp): encode/decode/token texts with its tokenizer, the top-k next tokens after a text,
// dispose. Each validates its arguments and returns an Error object instead of throwing. Not here: loading
// (load.cpp hands a loaded window model to register_window), the transformer (model.cpp) or finding the files
// (web/js/api/model.js).
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "args.hpp"
#include "handles.hpp"
#include "loaded.hpp"
#include "model/errors.hpp"
#include "model/sampler.hpp"
#include "model/window_bundle.hpp"
#include "model_args.hpp"
#include "tokenizer_js.hpp"

namespace lookback::bind {
namespace {

using WindowEntry = WindowBundle;

Handles<WindowEntry>& windows() {
  static Handles<WindowEntry> all("this model was disposed (or never loaded)");
  return all;
}

WindowEntry& window_entry(const char* fn, double handle) { return windows().at(fn, handle); }

val window_config_js(const WindowModelConfig& c) {
  val r = val::object();
  r.set("arch", std::string("window"));
  r.set("window", c.window);
  r.set("embed_dim", c.embed_dim);
  r.set("hidden_dim", c.hidden_dim);
  r.set("vocab_size", c.vocab_size);
  r.set("bos_id", c.bos_id);
  r.set("eos_id", c.eos_id);
  return r;
}

val dispose_js(double handle) {
  return guarded([&] { return val(windows().erase(handle)); });
}

val encode_js(double handle, val text, bool bos) {
  return guarded([&] { return encode_with(*window_entry("encode", handle).tokenizer, text, bos); });
}

// The start mark and at least the last n tokens of a text (the window sees no more).
val encode_tail_js(double handle, val text, bool bos, double n) {
  return guarded([&] { return encode_tail_with(*window_entry("encode", handle).tokenizer, text, bos, n); });
}

val decode_js(double handle, val ids) {
  return guarded([&] { return decode_with(*window_entry("decode", handle).tokenizer, ids); });
}

val tokens_js(double handle, val ids) {
  return guarded([&] { return tokens_with(*window_entry("tokens", handle).tokenizer, ids); });
}

// The top-k tokens after ids (the window model sees only the last `window` of them); opts: { topK, temperature }.
val next_js(double handle, val ids_in, val opts) {
  return guarded([&] {
    const char* fn = "next";
    WindowEntry& e = window_entry(fn, handle);
    const WindowModelConfig& c = e.model.config();
    std::vector<int> ids = ids_arg(fn, ids_in, c.vocab_size);
    if (ids.empty()) fail(fn, ": ids must hold at least one token");
    const int k = int_arg(fn, "topK", opts["topK"].as<double>(), 1, c.vocab_size);
    const float temperature = temperature_arg(fn, opts["temperature"].as<double>());
    // only the last position is needed, and it sees only the last `window` ids
    if (int(ids.size()) > c.window) ids.erase(ids.begin(), ids.end() - c.window);
    const std::vector<float> logits = e.model.logits(ids);  // [T, V]
    const float* last = logits.data() + (ids.size() - 1) * std::size_t(c.vocab_size);
    // finite weights can still overflow float32 on the way: an error, never NaN probabilities
    if (!std::all_of(last, last + c.vocab_size, [](float x) { return std::isfinite(x); }))
      model_error("the window model's computation overflowed float32 (its weights are too large for this text): "
                  "the logits are not finite");
    return token_probs_js(*e.tokenizer, top_k(last, c.vocab_size, k, temperature));
  });
}

}  // namespace

val register_window(WindowBundle b) {
  const int handle = windows().add(std::make_unique<WindowEntry>(std::move(b)));
  const WindowEntry& e = windows().at("loadModel", handle);
  const WindowModelConfig& c = e.model.config();
  val r = val::object();
  r.set("handle", handle);
  r.set("config", window_config_js(c));
  r.set("tokenizer", e.tokenizer->kind());
  const double W = c.window, E = c.embed_dim, N = c.hidden_dim, V = c.vocab_size;
  r.set("parameters", V * E + N * W * E + N + V * N + V);
  return r;
}

}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_window_model) {
  using namespace lookback::bind;
  emscripten::function("windowDispose", &dispose_js);
  emscripten::function("windowEncode", &encode_js);
  emscripten::function("windowEncodeTail", &encode_tail_js);
  emscripten::function("windowDecode", &decode_js);
  emscripten::function("windowTokens", &tokens_js);
  emscripten::function("windowNext", &next_js);
}
