// Argument checks for the bindings: JS values in, validated C++ values out, or an ArgError that names the
// argument and says what was expected. Only the bindings include this (it includes Embind).
// Not here: any computation (kernels and model do that).
#pragma once
#include <emscripten/val.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "lookback/float_limits.hpp"

namespace lookback::bind {

using emscripten::val;

struct ArgError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A number as JS would print it: integers in full (1048576, not 1.04858e+06), NaN, Infinity, others with
// enough digits to tell them apart.
inline std::string js_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  std::ostringstream s;
  if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) s << std::fixed << std::setprecision(0) << x;
  else s << std::setprecision(9) << x;
  return s.str();
}

// A shape for messages, "T*heads*d (64*6*64)", or a fixed text ("a.length"); formatted only when a message is
// written, so that a call whose arguments are fine builds no string.
struct Dims {
  const char* a = nullptr;
  int x = 0;
  const char* b = nullptr;
  int y = 0;
  const char* c = nullptr;
  int z = 0;
  const char* text = nullptr;
  Dims(const char* fixed) : text(fixed) {}  // NOLINT: a literal describes a size as it is
  Dims(const char* a_, int x_, const char* b_, int y_, const char* c_ = nullptr, int z_ = 0)
      : a(a_), x(x_), b(b_), y(y_), c(c_), z(z_) {}
};

inline std::ostream& operator<<(std::ostream& s, const Dims& d) {
  if (d.text) return s << d.text;
  s << d.a << "*" << d.b << (d.c ? "*" : "") << (d.c ? d.c : "") << " (" << d.x << "*" << d.y;
  if (d.c) s << "*" << d.z;
  return s << ")";
}

inline Dims dims(const char* a, int x, const char* b, int y, const char* c = nullptr, int z = 0) {
  return Dims(a, x, b, y, c, z);
}

template <class P>
void put(std::ostringstream& s, const P& part) {
  if constexpr (std::is_floating_point_v<P>) s << js_number(double(part));
  else s << part;
}

template <class... P>
[[noreturn]] void fail(const P&... parts) {
  std::ostringstream s;
  (put(s, parts), ...);
  throw ArgError(s.str());
}

// Limits on sizes accepted from JS: generous for teaching, small enough to fail fast instead of exhausting
// memory. Tensors are limited to 2^26 floats (256 MB).
constexpr double kMaxDim = 1 << 16;
constexpr std::size_t kMaxElements = std::size_t(1) << 26;

// An integer argument in [lo, hi].
inline int int_arg(const char* fn, const char* name, double x, double lo, double hi = kMaxDim) {
  if (!std::isfinite(x) || x != std::floor(x) || x < lo || x > hi)
    fail(fn, ": ", name, " must be an integer in [", lo, ", ", hi, "] (got ", js_number(x), ")");
  return int(x);
}

// A number argument that float32 carries: finite, at most FLT_MAX in size, optionally strictly positive.
inline float num_arg(const char* fn, const char* name, double x, bool positive = false) {
  if (!std::isfinite(x) || (positive && !(x > 0)))
    fail(fn, ": ", name, " must be a finite", positive ? " positive" : "", " number (got ", js_number(x), ")");
  if (std::fabs(x) > double(FLT_MAX)) fail(fn, ": ", name, " is ", x, ", beyond float32 (largest ", double(FLT_MAX), ")");
  return float(x);
}

// Temperatures and scales the kernels compute with in float32 (lookback/float_limits.hpp): a temperature in
// [kMinTemperature, kMaxTemperature] (or exactly 0 where it means "the most probable"), a scale of size at most
// kMaxScale.

inline float temperature_arg(const char* fn, double x, bool zero_allowed = false) {
  if (zero_allowed && x == 0) return 0.0f;
  if (!std::isfinite(x) || !(x >= kMinTemperature && x <= kMaxTemperature))
    fail(fn, ": temperature must be a finite positive number in [", kMinTemperature, ", ", kMaxTemperature, "]",
         zero_allowed ? " or 0" : "", " (got ", x, ")");
  return float(x);
}

inline float scale_arg(const char* fn, double x) {
  const float s = num_arg(fn, "scale", x);
  if (std::fabs(x) > kMaxScale) fail(fn, ": scale must be in [-", kMaxScale, ", ", kMaxScale, "] (got ", x, ")");
  return s;
}

// Every score, product and sum a kernel computes must stay inside float32: inputs whose worst case passes
// kMaxResult (a margin below FLT_MAX for rounding) are an error that names the bound, never NaN or Infinity.
inline void within_float32(const char* fn, const char* what, double worst) {
  if (worst > kMaxResult)
    fail(fn, ": ", what, " could reach ", worst, ", beyond float32 (at most ", kMaxResult,
         "); scale the inputs down");
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

// The error for v[i], a value outside the rule.
[[noreturn]] inline void fail_value(const char* fn, const char* name, const float* v, std::size_t i, Values rule) {
  const float x = v[i];
  fail(fn, ": ", name, "[", i, "] is ", std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity", "; expected ",
       rule == Values::finite ? "finite values" : "finite values or -Infinity");
}

// Checks n floats already in the module against the rule. Returns the largest magnitude when the rule is `finite`
// (found in the same pass as the check), else -1 (not scanned for).
inline double checked_values(const char* fn, const char* name, const float* v, std::size_t n, Values rule) {
  if (rule == Values::any) return -1;
  if (rule == Values::finite) {
    bool all_finite = true;
    const double m = lookback::max_abs_finite(v, n, &all_finite);
    if (!all_finite) fail_value(fn, name, v, lookback::first_nonfinite(v, n, false), rule);
    return m;
  }
  const std::size_t i = lookback::first_nonfinite(v, n, true);
  if (i != n) fail_value(fn, name, v, i, rule);
  return -1;
}

// That arr is a Float32Array of exactly n floats; `shape` describes n for messages.
inline void float32_array_of(const char* fn, const char* name, const val& arr, std::size_t n, const Dims& shape) {
  if (!arr.instanceof(val::global("Float32Array")))
    fail(fn, ": ", name, " must be a Float32Array of ", shape, " = ", n, " floats");
  const std::size_t got = arr["length"].as<std::size_t>();
  if (got != n) fail(fn, ": ", name, " must hold ", shape, " = ", n, " floats (got ", got, ")");
}

// Copies a Float32Array of exactly n floats (checked: type and length, not values) to `to`, n floats of the
// module's memory; `shape` describes n for messages.
inline void copy_floats(float* to, const char* fn, const char* name, const val& arr, std::size_t n, const Dims& shape) {
  float32_array_of(fn, name, arr, n, shape);
  if (n) val(emscripten::typed_memory_view(n, to)).call<void>("set", arr);
}

// Copies a Float32Array of exactly n floats to p (room for n floats), checking its values; `shape` describes n
// for messages. Returns the largest magnitude when the rule is `finite` (found in the same pass as the check),
// else -1 (not scanned for).
inline double floats_into(float* p, const char* fn, const char* name, const val& arr, std::size_t n, const Dims& shape,
                          Values rule = Values::finite) {
  copy_floats(p, fn, name, arr, n, shape);
  return checked_values(fn, name, p, n, rule);
}
// The same into v, resized to n (a buffer kept between calls is reused).
inline double floats_into(std::vector<float>& v, const char* fn, const char* name, const val& arr, std::size_t n,
                          const Dims& shape, Values rule = Values::finite) {
  v.resize(n);
  return floats_into(v.data(), fn, name, arr, n, shape, rule);
}

inline std::vector<float> floats(const char* fn, const char* name, const val& arr, std::size_t n,
                                 const Dims& shape, Values rule = Values::finite) {
  std::vector<float> v;
  floats_into(v, fn, name, arr, n, shape, rule);
  return v;
}

// An optional mask into m (left empty for none; a vector kept between calls is reused): null/undefined, or a
// Uint8Array of n bytes (1 = visible).
inline void mask_into(std::vector<std::uint8_t>& m, const char* fn, const val& arr, std::size_t n, const Dims& shape) {
  m.clear();
  if (arr.isNull() || arr.isUndefined()) return;
  if (!arr.instanceof(val::global("Uint8Array")))
    fail(fn, ": mask must be a Uint8Array of ", shape, " = ", n, " bytes (1 = visible, 0 = hidden)");
  const std::size_t got = arr["length"].as<std::size_t>();
  if (got != n) fail(fn, ": mask must hold ", shape, " = ", n, " bytes (got ", got, ")");
  m.resize(n);
  if (n) val(emscripten::typed_memory_view(n, m.data())).call<void>("set", arr);
}

inline std::vector<std::uint8_t> mask_arg(const char* fn, const val& arr, std::size_t n, const Dims& shape) {
  std::vector<std::uint8_t> m;
  mask_into(m, fn, arr, n, shape);
  return m;
}

// The result's floats copied into `out`, a caller's Float32Array of exactly n floats (checked before the work,
// by out_arg), returned as it is; or, when out is null/undefined, into a new Float32Array. Reusing one array
// saves the allocation of a new one on every call, which costs more than the copy.
inline void out_arg(const char* fn, const val& out, std::size_t n, const Dims& shape) {
  if (!out.isNull() && !out.isUndefined()) float32_array_of(fn, "out", out, n, shape);
}

// Owning JS copies of C++ data (never views into the heap, which memory growth can detach).
inline val to_js(const float* v, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, v));
}
inline val to_js(const std::vector<float>& v) { return to_js(v.data(), v.size()); }
inline val to_js(const std::vector<std::uint8_t>& v) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_js_into(const val& out, const float* v, std::size_t n) {
  if (out.isNull() || out.isUndefined()) return to_js(v, n);
  out.call<void>("set", val(emscripten::typed_memory_view(n, v)));
  return out;
}
inline val to_js_into(const val& out, const std::vector<float>& v) { return to_js_into(out, v.data(), v.size()); }

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
