// Argument checks for the bindings: JS values in, validated C++ values out, or an ArgError that names the
// argument and says what was expected. Only the bindings include this (it includes Embind).
// Not here: any computation (kernels and model do that).
#pragma once
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback::bind {

using emscripten::val;

struct ArgError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <class... P>
[[noreturn]] void fail(const P&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  throw ArgError(s.str());
}

// Limits on sizes accepted from JS: generous for teaching, small enough to fail fast instead of exhausting
// memory. Tensors are limited to 2^26 floats (256 MB).
constexpr double kMaxDim = 1 << 16;
constexpr std::size_t kMaxElements = std::size_t(1) << 26;

// A number as JS would print it (NaN, Infinity), for messages.
inline std::string js_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  std::ostringstream s;
  s << x;
  return s.str();
}

// An integer argument in [lo, hi].
inline int int_arg(const char* fn, const char* name, double x, double lo, double hi = kMaxDim) {
  if (!std::isfinite(x) || x != std::floor(x) || x < lo || x > hi)
    fail(fn, ": ", name, " must be an integer in [", lo, ", ", hi, "] (got ", js_number(x), ")");
  return int(x);
}

// A finite number argument, optionally strictly positive.
inline float num_arg(const char* fn, const char* name, double x, bool positive = false) {
  if (!std::isfinite(x) || (positive && !(x > 0)))
    fail(fn, ": ", name, " must be a finite", positive ? " positive" : "", " number (got ", js_number(x), ")");
  return float(x);
}

// The product of dims, refused past kMaxElements (counted in 64 bits: size_t is 32 bits in WebAssembly).
inline std::size_t elements(const char* fn, std::initializer_list<int> dims) {
  std::uint64_t n = 1;
  for (int d : dims) {
    n *= std::uint64_t(d);
    if (n > kMaxElements) fail(fn, ": the shape asks for more than ", kMaxElements, " elements");
  }
  return std::size_t(n);
}

enum class Values { finite, finite_or_minus_inf, any };

// Copies a Float32Array of exactly n floats into v (resized to n, so a buffer kept between calls is reused),
// checking its values; `shape` describes n for messages.
inline void floats_into(std::vector<float>& v, const char* fn, const char* name, const val& arr, std::size_t n,
                        const std::string& shape, Values rule = Values::finite) {
  if (!arr.instanceof(val::global("Float32Array")))
    fail(fn, ": ", name, " must be a Float32Array of ", shape, " = ", n, " floats");
  const std::size_t got = arr["length"].as<std::size_t>();
  if (got != n) fail(fn, ": ", name, " must hold ", shape, " = ", n, " floats (got ", got, ")");
  v.resize(n);
  if (n) val(emscripten::typed_memory_view(n, v.data())).call<void>("set", arr);
  if (rule == Values::any) return;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = v[i];
    if (std::isfinite(x) || (rule == Values::finite_or_minus_inf && x == -INFINITY)) continue;
    fail(fn, ": ", name, "[", i, "] is ", std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity", "; expected ",
         rule == Values::finite ? "finite values" : "finite values or -Infinity");
  }
}

inline std::vector<float> floats(const char* fn, const char* name, const val& arr, std::size_t n,
                                 const std::string& shape, Values rule = Values::finite) {
  std::vector<float> v;
  floats_into(v, fn, name, arr, n, shape, rule);
  return v;
}

// An optional mask: null/undefined, or a Uint8Array of n bytes (1 = visible).
inline std::vector<std::uint8_t> mask_arg(const char* fn, const val& arr, std::size_t n, const std::string& shape) {
  if (arr.isNull() || arr.isUndefined()) return {};
  if (!arr.instanceof(val::global("Uint8Array")))
    fail(fn, ": mask must be a Uint8Array of ", shape, " = ", n, " bytes (1 = visible, 0 = hidden)");
  const std::size_t got = arr["length"].as<std::size_t>();
  if (got != n) fail(fn, ": mask must hold ", shape, " = ", n, " bytes (got ", got, ")");
  std::vector<std::uint8_t> m(n);
  if (n) val(emscripten::typed_memory_view(n, m.data())).call<void>("set", arr);
  return m;
}

// Owning JS copies of C++ data (never views into the heap, which memory growth can detach).
inline val to_js(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_js(const std::vector<std::uint8_t>& v) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

// Runs f; any C++ exception comes back as a JS Error object (returned, not thrown, so that every C++
// destructor runs; the JS API throws it). The module stays usable.
template <class F>
val guarded(F&& f) {
  std::string message;
  try {
    return f();
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown error in the lookback core";
  }
  return val::global("Error").new_(message);
}

}  // namespace lookback::bind
