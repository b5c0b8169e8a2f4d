// Embind bindings of the model runtime, as handle-based functions (JS never sees a C++ object, so nothing
// needs .delete(); modelDispose(handle) frees a model): encode/decode/token texts, forward, next-token top-k,
// generate, the explicit sliding window, head scores. Each validates its arguments, copies results out and
// returns an Error object instead of throwing. Not here: loading (load.cpp hands a loaded model to
// register_model), computation (wasm/src/model) or JS conveniences such as loading by name or URL
// (web/js/api/model.js).
#include <emscripten/bind.h>

#include <algorithm>
#include <memory>

#include "args.hpp"
#include "handles.hpp"
#include "loaded.hpp"
#include "model_args.hpp"
#include "tokenizer_js.hpp"
#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/generate.hpp"
#include "model/head_scores.hpp"
#include "model/json_depth.hpp"
#include "model/llama2c.hpp"
#include "model/safetensors.hpp"
#include "model/sampler.hpp"
#include "model/generation_stream.hpp"
#include "model/session.hpp"

namespace lookback::bind {
namespace {

// A loaded model and its one session (whose cache makes repeated calls on similar texts cheap), and the
// generations being streamed on it, each with its own state (by number: two streams on one model never share
// one; each step brings the session's cache back to its own text).
struct Entry {
  LoadedModel model;
  Session session;
  std::map<int, std::unique_ptr<GenerationStream>> streams;
  int next_stream = 1;
  explicit Entry(LoadedModel m) : model(std::move(m)), session(model.transformer) {}
};

Handles<Entry>& models() {
  static Handles<Entry> all("this model was disposed (or never loaded)");
  return all;
}

Entry& entry(const char* fn, double handle) { return models().at(fn, handle); }

bool bool_opt(const val& o, const char* key) { return o[key].as<bool>(); }

// The ids a call runs on (the model's fit_context), or an error naming the JS option that asks for the window.
std::vector<int> fit_context(const char* fn, const Entry& e, std::vector<int> ids, bool window) {
  const ModelConfig& c = e.model.transformer->config();
  const std::size_t n = ids.size();
  auto fitted = lookback::fit_context(std::move(ids), c, window);
  if (!fitted)
    fail(fn, ": the text is ", n, " tokens but the model's context holds ", c.max_seq_len,
         "; pass { window: true } to keep only the last ", c.max_seq_len,
         " tokens (the start mark stays first), or shorten the text");
  return std::move(*fitted);
}

val config_js(const ModelConfig& c) { return val::global("JSON").call<val>("parse", config_to_json(c)); }

val info_js(int handle, const Entry& e) {
  const ModelConfig& c = e.model.transformer->config();
  val r = val::object();
  r.set("handle", handle);
  r.set("config", config_js(c));
  r.set("tokenizer", e.model.tokenizer->kind());
  r.set("normalize", e.model.tokenizer->normalization());
  r.set("parameters", double(parameter_count(c)));
  r.set("weights", std::string(weight_format_name(e.model.transformer->matrices().format())));
  return r;
}

// Random weights for a config, as a safetensors file or (llama2c) a llama2.c checkpoint (for tests, demos and
// benchmarks).
val random_weights_js(val config_text, double seed, bool f16, bool llama2c) {
  return guarded([&] {
    const char* fn = "randomWeights";
    const std::string text = string_arg(fn, "config.json", config_text);
    check_json_depth(text, "config.json");
    const ModelConfig c = config_from_json(text);
    const int s = int_arg(fn, "seed", seed, 0, 2147483647.0);
    if (llama2c && f16) fail(fn, ": a llama2.c checkpoint holds float32 weights only (f16 applies to safetensors)");
    const Weights w = random_weights(c, std::uint64_t(s));
    const std::vector<std::uint8_t> bytes = llama2c ? write_llama2c(w) : write_safetensors(w.named(), f16);
    return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  });
}

val dispose_js(double handle) {
  return guarded([&] { return val(models().erase(handle)); });
}

val info_of_js(double handle) {
  return guarded([&] { return info_js(int(handle), entry("model", handle)); });
}

val encode_js(double handle, val text, bool bos) {
  return guarded([&] {
    return encode_with(*entry("encode", handle).model.tokenizer, text, bos);
  });
}

// The start mark and at least the last n tokens of a text, for a sliding window over a text of any length.
val encode_tail_js(double handle, val text, bool bos, double n) {
  return guarded([&] { return encode_tail_with(*entry("encode", handle).model.tokenizer, text, bos, n); });
}

val decode_js(double handle, val ids) {
  return guarded([&] {
    return decode_with(*entry("decode", handle).model.tokenizer, ids);
  });
}

val tokens_js(double handle, val ids) {
  return guarded([&] {
    return tokens_with(*entry("tokens", handle).model.tokenizer, ids);
  });
}

val window_js(double handle, val ids, double size) {
  return guarded([&] {
    Entry& e = entry("window", handle);
    const ModelConfig& c = e.model.transformer->config();
    const int n = int_arg("window", "size", size, 1, c.max_seq_len);
    return ints_js(sliding_window(ids_arg("window", ids, c.vocab_size), n, c.bos_id));
  });
}

// opts: { attention, residuals, positions, window } (booleans).
val forward_js(double handle, val ids_in, val opts) {
  return guarded([&] {
    const char* fn = "forward";
    Entry& e = entry(fn, handle);
    const ModelConfig& c = e.model.transformer->config();
    std::vector<int> ids = fit_context(fn, e, ids_arg(fn, ids_in, c.vocab_size), bool_opt(opts, "window"));
    if (ids.empty()) fail(fn, ": ids must hold at least one token");
    StepOptions o;
    o.attention = bool_opt(opts, "attention");
    o.residuals = bool_opt(opts, "residuals");
    o.positions = bool_opt(opts, "positions");
    const int reused = e.session.process(ids, o);
    val r = val::object();
    r.set("ids", ints_js(ids));
    r.set("logits", to_js(e.session.all_logits()));
    r.set("attention", o.attention ? to_js(e.session.attention()) : val::null());
    r.set("residuals", o.residuals ? to_js(e.session.residuals()) : val::null());
    val shape = val::object();
    shape.set("T", int(ids.size()));
    shape.set("V", c.vocab_size);
    shape.set("L", c.n_layers);
    shape.set("H", c.n_heads);
    shape.set("C", c.dim);
    r.set("shape", shape);
    r.set("reused", reused);
    return r;
  });
}

std::vector<TokenProb> next_probs(const char* fn, Entry& e, const std::vector<int>& ids, const val& opts, int& k) {
  const ModelConfig& c = e.model.transformer->config();
  k = int_arg(fn, "topK", opts["topK"].as<double>(), 1, c.vocab_size);
  const float temperature = temperature_arg(fn, opts["temperature"].as<double>());
  StepOptions o;
  o.positions = bool_opt(opts, "positions");
  o.all_logits = false;
  e.session.process(ids, o);
  return top_k(e.session.last_logits(), c.vocab_size, k, temperature);
}

// opts: { topK, temperature, positions, window }.
val next_js(double handle, val ids_in, val opts) {
  return guarded([&] {
    const char* fn = "next";
    Entry& e = entry(fn, handle);
    const ModelConfig& c = e.model.transformer->config();
    const std::vector<int> ids = fit_context(fn, e, ids_arg(fn, ids_in, c.vocab_size), bool_opt(opts, "window"));
    if (ids.empty()) fail(fn, ": ids must hold at least one token");
    int k = 0;
    return token_probs_js(*e.model.tokenizer, next_probs(fn, e, ids, opts, k));
  });
}

// opts: { maxTokens, temperature, topP, seed, window, positions } -> the options, and the prompt in `ids`.
GenerateOptions generate_options(const char* fn, Entry& e, const val& ids_in, const val& opts, std::vector<int>& ids) {
  const ModelConfig& c = e.model.transformer->config();
  GenerateOptions g;
  g.window = bool_opt(opts, "window");
  g.positions = bool_opt(opts, "positions");
  ids = fit_context(fn, e, ids_arg(fn, ids_in, c.vocab_size), g.window);
  if (ids.empty()) fail(fn, ": ids must hold at least one token");
  g.max_tokens = int_arg(fn, "maxTokens", opts["maxTokens"].as<double>(), 0, 1 << 20);
  g.temperature = temperature_arg(fn, opts["temperature"].as<double>(), true);  // 0: the most probable token
  g.top_p = num_arg(fn, "topP", opts["topP"].as<double>(), true);
  if (g.top_p > 1) fail(fn, ": topP must be in (0, 1] (got ", g.top_p, ")");
  g.seed = std::uint64_t(int_arg(fn, "seed", opts["seed"].as<double>(), 0, 4294967295.0));
  return g;
}

// opts: { maxTokens, temperature, topP, seed, window, positions }.
val generate_js(double handle, val ids_in, val opts) {
  return guarded([&] {
    const char* fn = "generate";
    Entry& e = entry(fn, handle);
    std::vector<int> ids;
    const GenerateOptions g = generate_options(fn, e, ids_in, opts, ids);
    const Generation out = generate(e.session, ids, g);
    val r = val::object();
    r.set("ids", ints_js(out.ids));
    r.set("text", text_js(e.model.tokenizer->decode(out.ids)));
    r.set("stop", out.stop);
    return r;
  });
}

// Starts a streamed generation beside any others on the model; same opts as generate_js. Returns its number,
// for generate_step_js and generate_end_js.
val generate_start_js(double handle, val ids_in, val opts) {
  return guarded([&] {
    const char* fn = "generate";
    Entry& e = entry(fn, handle);
    std::vector<int> ids;
    const GenerateOptions g = generate_options(fn, e, ids_in, opts, ids);
    const int id = e.next_stream++;
    e.streams[id] = std::make_unique<GenerationStream>(e.session, ids, g);
    return val(id);
  });
}

GenerationStream& stream_of(const char* fn, Entry& e, double stream) {
  const auto it = e.streams.find(int(stream));
  if (!std::isfinite(stream) || stream != std::floor(stream) || it == e.streams.end())
    fail(fn, ": this generation has ended (or was never started) on this model");
  return *it->second;
}

// Frees a streamed generation (one left before its stop); true if it was still there.
val generate_end_js(double handle, double stream) {
  return guarded([&] { return val(entry("generate", handle).streams.erase(int(stream)) > 0); });
}

// Up to `count` more tokens of the streamed generation: { ids, text, stop } (stop "" while it runs). text is
// the decoded text of all tokens so far (a token may end inside a UTF-8 character).
val generate_step_js(double handle, double stream, double count) {
  return guarded([&] {
    const char* fn = "generate";
    Entry& e = entry(fn, handle);
    GenerationStream& s = stream_of(fn, e, stream);
    const int n = int_arg(fn, "count", count, 1, 1 << 20);
    const std::vector<int> ids = s.step(e.session, n);
    val r = val::object();
    r.set("ids", ints_js(ids));
    r.set("text", text_js(e.model.tokenizer->decode(s.ids())));
    r.set("stop", s.stop());
    if (s.done()) e.streams.erase(int(stream));
    return r;
  });
}

// { score: Float64Array [L*H], even, count, best: the `best` highest heads [{ layer, head, score }] (ranked_heads) }
val habit_js(const HeadHabit& h, int H, int best) {
  val r = val::object();
  r.set("score", val::global("Float64Array").new_(emscripten::typed_memory_view(h.score.size(), h.score.data())));
  r.set("even", h.even);
  r.set("count", double(h.count));
  val top = val::array();
  for (int i : ranked_heads(h, best)) {
    val b = val::object();
    b.set("layer", i / H);
    b.set("head", i % H);
    b.set("score", h.score[std::size_t(i)]);
    top.call<void>("push", b);
  }
  r.set("best", top);
  return r;
}

// texts: an array of id arrays (each starting with the start mark, within the context);
// opts: { repeats, repeatLength, seed } for the induction test on random repeated sequences.
val head_scores_js(double handle, val texts, val opts) {
  return guarded([&] {
    const char* fn = "headScores";
    Entry& e = entry(fn, handle);
    const ModelConfig& c = e.model.transformer->config();
    if (!val::global("Array").call<bool>("isArray", texts))
      fail(fn, ": texts must be an array of texts or id arrays");
    std::vector<std::vector<int>> all;
    for (int i = 0, n = texts["length"].as<int>(); i < n; ++i) {
      std::vector<int> ids = ids_arg(fn, texts[i], c.vocab_size);
      if (ids.size() < 3) fail(fn, ": texts[", i, "] has ", ids.size(), " tokens; a head score needs at least 3");
      if (int(ids.size()) > c.max_seq_len)
        fail(fn, ": texts[", i, "] is ", ids.size(), " tokens but the model's context holds ", c.max_seq_len);
      all.push_back(std::move(ids));
    }
    const int repeats = int_arg(fn, "repeats", opts["repeats"].as<double>(), 0, 1000);
    const int len = int_arg(fn, "repeatLength", opts["repeatLength"].as<double>(), 1, (c.max_seq_len - 1) / 2);
    const auto seed = std::uint64_t(int_arg(fn, "seed", opts["seed"].as<double>(), 0, 4294967295.0));
    if (all.empty() && repeats == 0) fail(fn, ": give at least one text or repeats >= 1");
    const int best = int_arg(fn, "best", opts["best"].as<double>(), 0, 1 << 20);  // more than L*H: every head
    const HeadScores h = measure_heads(e.session, all, repeats, len, seed, random_token_floor(*e.model.tokenizer, c.vocab_size));
    val r = val::object();
    r.set("layers", h.L);
    r.set("heads", h.H);
    r.set("previousToken", habit_js(h.previous_token, h.H, best));
    r.set("startMark", habit_js(h.start_mark, h.H, best));
    r.set("fourOrMoreBack", habit_js(h.four_or_more_back, h.H, best));
    r.set("induction", habit_js(h.induction, h.H, best));
    r.set("startMarkOnRandomTokens", habit_js(h.start_mark_on_random_tokens, h.H, best));
    r.set("previousTokenOnRandomTokens", habit_js(h.previous_token_on_random_tokens, h.H, best));
    return r;
  });
}

}  // namespace

val register_model(LoadedModel m) {
  const int handle = models().add(std::make_unique<Entry>(std::move(m)));
  return info_js(handle, models().at("loadModel", handle));
}

}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_model) {
  using namespace lookback::bind;
  emscripten::function("modelRandomWeights", &random_weights_js);
  emscripten::function("modelDispose", &dispose_js);
  emscripten::function("modelInfo", &info_of_js);
  emscripten::function("modelEncode", &encode_js);
  emscripten::function("modelEncodeTail", &encode_tail_js);
  emscripten::function("modelDecode", &decode_js);
  emscripten::function("modelTokens", &tokens_js);
  emscripten::function("modelWindow", &window_js);
  emscripten::function("modelForward", &forward_js);
  emscripten::function("modelNext", &next_js);
  emscripten::function("modelGenerate", &generate_js);
  emscripten::function("modelGenerateStart", &generate_start_js);
  emscripten::function("modelGenerateStep", &generate_step_js);
  emscripten::function("modelGenerateEnd", &generate_end_js);
  emscripten::function("modelHeadScores", &head_scores_js);
}
