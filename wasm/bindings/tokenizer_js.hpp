// A tokenizer's functions for JS, shared by the model bindings (model.cpp, window_model.cpp): ids of a text (or
// of its end only), the text of ids, each id's display text and place in that text, and next-token candidates with
// their text. Only the bindings include this (it includes Embind).
// Not here: how a tokenizer splits text (wasm/src/model).
#pragma once
#include <emscripten/bind.h>

#include "model/sampler.hpp"
#include "model/token_spans.hpp"
#include "model/tokenizer.hpp"
#include "model_args.hpp"

namespace lookback::bind {

inline val ints_js(const std::vector<int>& v) {
  return val::global("Int32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val text_js(const std::string& s) { return val(valid_utf8(s)); }

inline val encode_with(const Tokenizer& t, const val& text, bool bos) {
  return ints_js(t.encode(string_arg("encode", "text", text), bos));
}

// The start mark (when bos) and at least the last n tokens of a text, the same ids as the end of its full
// encoding: a sliding window over a text of any length encodes only the text's end.
inline val encode_tail_with(const Tokenizer& t, const val& text, bool bos, double n) {
  const int keep = int_arg("encode", "n", n, 1, double(kMaxIds));
  return ints_js(t.encode_tail(string_arg("encode", "text", text), bos, std::size_t(keep)));
}

inline val decode_with(const Tokenizer& t, const val& ids) {
  return text_js(t.decode(ids_arg("decode", ids, t.vocab_size())));
}

// { text: decode(ids), texts: each id's display text, places: Int32Array [start0, end0, start1, ...], each id's
// place in text (token_places: UTF-16 units) }, from one decoding of the ids.
inline val tokens_with(const Tokenizer& t, const val& ids) {
  const std::vector<int> list = ids_arg("tokens", ids, t.vocab_size());
  val texts = val::array();
  for (int id : list) texts.call<void>("push", val(t.token_text(id)));
  const std::vector<std::string> bytes = t.decode_each(list);
  std::string whole;
  std::vector<int> flat;
  flat.reserve(2 * list.size());
  for (const auto& [start, end] : token_places(bytes, &whole)) flat.push_back(start), flat.push_back(end);
  val out = val::object();
  out.set("text", text_js(whole));
  out.set("texts", texts);
  out.set("places", ints_js(flat));
  return out;
}

// [{id, token, p}] for JS: next-token candidates with their display text.
inline val token_probs_js(const Tokenizer& t, const std::vector<TokenProb>& probs) {
  val out = val::array();
  for (const TokenProb& p : probs) {
    val item = val::object();
    item.set("id", p.id);
    item.set("token", t.token_text(p.id));
    item.set("p", p.p);
    out.call<void>("push", item);
  }
  return out;
}

}  // namespace lookback::bind
