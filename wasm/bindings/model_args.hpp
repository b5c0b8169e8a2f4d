// Argument checks shared by the model bindings (model.cpp, window_model.cpp): file bytes, strings and token
// ids from JS, validated, or an ArgError naming the argument. Only the bindings include this (it includes
// Embind). Not here: the attention functions' checks (args.hpp).
#pragma once
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "args.hpp"

namespace lookback::bind {

constexpr std::size_t kMaxFileBytes = std::size_t(1) << 30;  // 1 GiB
constexpr std::size_t kMaxIds = std::size_t(1) << 22;

inline std::vector<std::uint8_t> bytes_arg(const char* fn, const char* name, const val& arr) {
  if (!arr.instanceof(val::global("Uint8Array"))) fail(fn, ": ", name, " must be a Uint8Array of the file's bytes");
  const std::size_t n = arr["length"].as<std::size_t>();
  if (n > kMaxFileBytes) fail(fn, ": ", name, " is ", n, " bytes; the limit is ", kMaxFileBytes);
  std::vector<std::uint8_t> v(n);
  if (n) val(emscripten::typed_memory_view(n, v.data())).call<void>("set", arr);
  return v;
}

// A JS string as UTF-8 through the platform's TextEncoder, which writes a lone surrogate as U+FFFD (Embind's
// own conversion would join it with the next character, so that "a\uD800b" came back as "a\u{10062}").
inline std::string string_arg(const char* fn, const char* name, const val& s) {
  if (!s.isString()) fail(fn, ": ", name, " must be a string");
  const val bytes = val::global("TextEncoder").new_().call<val>("encode", s);
  const std::size_t n = bytes["length"].as<std::size_t>();
  std::string out(n, '\0');
  if (n) val(emscripten::typed_memory_view(n, reinterpret_cast<std::uint8_t*>(out.data()))).call<void>("set", bytes);
  return out;
}

// Token ids: an Array or typed array of integers in [0, vocab).
inline std::vector<int> ids_arg(const char* fn, const val& arr, int vocab) {
  if (!val::global("Array").call<bool>("isArray", arr) && !val::global("ArrayBuffer").call<bool>("isView", arr))
    fail(fn, ": ids must be an array of token ids (Array or Int32Array)");
  const std::size_t n = arr["length"].as<std::size_t>();
  if (n > kMaxIds) fail(fn, ": ", n, " ids are more than the limit of ", kMaxIds);
  std::vector<double> d(n);  // each id as Number(id), as Float64Array.from would give, in one copy (no iterator)
  if (n) val(emscripten::typed_memory_view(n, d.data())).call<void>("set", arr);
  std::vector<int> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!(d[i] >= 0 && d[i] < vocab && d[i] == std::floor(d[i])))
      fail(fn, ": ids[", i, "] is ", js_number(d[i]), "; token ids are integers in [0, ", vocab, ")");
    ids[i] = int(d[i]);
  }
  return ids;
}

}  // namespace lookback::bind
