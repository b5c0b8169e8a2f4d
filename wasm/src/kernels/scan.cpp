// Vectorised scans of one float array for the argument checks: the largest finite magnitude (and whether every
// value is finite, in the same pass), and the first value outside a rule (NaN, +Inf, and -Inf unless allowed).
// One pass each at SIMD width, where a scalar loop with a branch per float cost as much as the attention it
// guarded at small sizes. Not here: the checks' messages or limits (wasm/bindings/args.hpp,
// lookback/float_limits.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/simd.hpp"
#include "lookback/scan.hpp"

namespace lookback {

#if defined(__wasm_simd128__)
namespace {

// The bits of |x|, as signed integers, order exactly as the finite magnitudes do, and NaN and ±Inf (exponent all
// ones) lie above every finite value: one integer maximum finds the largest magnitude and tells, at the end,
// whether any value was not finite. Three instructions per vector (load, and, max), where the float compare,
// select and max of the general pass below are emulated in several each. False when some value is not finite
// (then `m` is not set).
bool max_abs_if_finite(const float* x, std::size_t n, float* m) {
  const v128_t abs = wasm_i32x4_splat(0x7fffffff);
  // four running maxima: with two, each waited on the previous max (5.8 against 4.0 us over 300 kB in cache)
  v128_t m0 = wasm_i32x4_splat(0), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = wasm_i32x4_max(m0, wasm_v128_and(wasm_v128_load(x + i), abs));
    m1 = wasm_i32x4_max(m1, wasm_v128_and(wasm_v128_load(x + i + 4), abs));
    m2 = wasm_i32x4_max(m2, wasm_v128_and(wasm_v128_load(x + i + 8), abs));
    m3 = wasm_i32x4_max(m3, wasm_v128_and(wasm_v128_load(x + i + 12), abs));
  }
  for (; i + 4 <= n; i += 4) m0 = wasm_i32x4_max(m0, wasm_v128_and(wasm_v128_load(x + i), abs));
  m0 = wasm_i32x4_max(wasm_i32x4_max(m0, m1), wasm_i32x4_max(m2, m3));
  std::int32_t bits = std::max(std::max(wasm_i32x4_extract_lane(m0, 0), wasm_i32x4_extract_lane(m0, 1)),
                               std::max(wasm_i32x4_extract_lane(m0, 2), wasm_i32x4_extract_lane(m0, 3)));
  for (; i < n; ++i) {
    std::int32_t b;
    std::memcpy(&b, x + i, sizeof b);
    bits = std::max(bits, b & 0x7fffffff);
  }
  if (bits >= 0x7f800000) return false;
  std::memcpy(m, &bits, sizeof bits);
  return true;
}

}  // namespace
#endif

float max_abs_finite(const float* x, std::size_t n, bool* all_finite) {
#if defined(__wasm_simd128__)
  float fast;
  if (max_abs_if_finite(x, n, &fast)) {
    if (all_finite) *all_finite = true;
    return fast;
  }
  // some value is NaN or ±Inf: the general pass leaves them out of the maximum
#endif
  using simd::batch;
  using simd::W;
  const batch inf(std::numeric_limits<float>::infinity()), zero(0.0f);
  batch m0(0.0f), m1(0.0f);
  auto fine = inf == inf;  // all lanes true: no NaN or ±Inf seen
  std::size_t i = 0;
  // |x| < inf is false for ±Inf and NaN, so those lanes contribute 0 (and clear `fine`).
  for (; i + 2 * W <= n; i += 2 * W) {
    const batch a0 = xsimd::abs(simd::load(x + i)), a1 = xsimd::abs(simd::load(x + i + W));
    const auto f0 = a0 < inf, f1 = a1 < inf;
    m0 = xsimd::max(m0, xsimd::select(f0, a0, zero));
    m1 = xsimd::max(m1, xsimd::select(f1, a1, zero));
    fine = fine & f0 & f1;
  }
  for (; i + W <= n; i += W) {
    const batch a = xsimd::abs(simd::load(x + i));
    const auto f = a < inf;
    m0 = xsimd::max(m0, xsimd::select(f, a, zero));
    fine = fine & f;
  }
  alignas(64) float lanes[W];
  simd::store(lanes, xsimd::max(m0, m1));
  float m = 0;
  for (int l = 0; l < W; ++l) m = std::max(m, lanes[l]);
  bool ok = xsimd::all(fine);
  for (; i < n; ++i) {
    if (std::isfinite(x[i])) m = std::max(m, std::fabs(x[i]));
    else ok = false;
  }
  if (all_finite) *all_finite = ok;
  return m;
}

float max_abs_finite_ref(const float* x, std::size_t n, bool* all_finite) {
  float m = 0;
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) m = std::max(m, std::fabs(x[i]));
    else ok = false;
  }
  if (all_finite) *all_finite = ok;
  return m;
}

std::size_t first_nonfinite(const float* x, std::size_t n, bool allow_minus_inf) {
  using simd::batch;
  using simd::W;
  const batch inf(std::numeric_limits<float>::infinity()), minus_inf(-std::numeric_limits<float>::infinity());
  std::size_t i = 0;
  // A block of 4W at a time: all finite (|x| < inf) or allowed -Inf, else the scalar twin finds the index.
  for (; i + 4 * W <= n; i += 4 * W) {
    auto ok = [&](const batch& v) {
      const auto fine = xsimd::abs(v) < inf;
      return allow_minus_inf ? (fine | (v == minus_inf)) : fine;
    };
    const auto all = ok(simd::load(x + i)) & ok(simd::load(x + i + W)) & ok(simd::load(x + i + 2 * W)) &
                     ok(simd::load(x + i + 3 * W));
    if (!xsimd::all(all)) return i + first_nonfinite_ref(x + i, 4 * W, allow_minus_inf);
  }
  return i + first_nonfinite_ref(x + i, n - i, allow_minus_inf);
}

std::size_t first_nonfinite_ref(const float* x, std::size_t n, bool allow_minus_inf) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]) && !(allow_minus_inf && x[i] == -std::numeric_limits<float>::infinity())) return i;
  return n;
}

}  // namespace lookback
