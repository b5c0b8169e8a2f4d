// What float32 can carry through the attention kernels: the stated range of temperatures and scales, and the
// worst-case size of a score or a sum given the inputs' largest magnitude. The bindings refuse inputs past these
// bounds (an Error, never NaN or Infinity); the native fuzz tests draw inputs inside them and check that every
// output is finite. Not here: the checks' messages (wasm/bindings/args.hpp) or any computation
// (the one scan it names is a kernel).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "lookback/scan.hpp"

namespace lookback {

// Below kMinTemperature, 1/temperature and scale/temperature leave float32 (1e-39 made every weight NaN).
constexpr double kMinTemperature = 1e-30, kMaxTemperature = 1e30, kMaxScale = 1e30;
// A margin below FLT_MAX (3.4e38) for the rounding of long sums.
constexpr double kMaxResult = 1e38;

// The largest finite |x[i]| (the vectorised scan of lookback/scan.hpp).
inline double max_abs(const float* x, std::size_t n) { return double(max_abs_finite(x, n)); }

// Worst cases, in float64: |scale·k| and |scale·q·k| over D channels; a sum of n products of |a| by |b|.
inline double worst_scaled_k(double max_k, double scale) { return max_k * scale; }
inline double worst_score(int D, double max_q, double max_k, double scale) { return double(D) * max_q * max_k * scale; }
inline double worst_sum(double n, double max_a, double max_b) { return n * max_a * max_b; }

}  // namespace lookback
