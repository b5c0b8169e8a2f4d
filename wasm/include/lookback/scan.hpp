// Scans of one float array for argument checks (wasm/bindings): the largest finite magnitude and the first
// value outside a rule. Vectorised, each with a scalar `*_ref` twin the tests compare against.
// Not here: the checks' limits (lookback/float_limits.hpp) or messages (wasm/bindings/args.hpp).
#pragma once
#include <cstddef>

namespace lookback {

// The largest |x[i]| over the finite values of x: [n] (0 when none is finite); with all_finite, also whether no
// value is NaN or ±Inf (one pass for both).
float max_abs_finite(const float* x, std::size_t n, bool* all_finite = nullptr);
float max_abs_finite_ref(const float* x, std::size_t n, bool* all_finite = nullptr);

// The index of the first x[i] that is NaN or ±Inf (-Inf passes when allow_minus_inf), or n when none is.
std::size_t first_nonfinite(const float* x, std::size_t n, bool allow_minus_inf);
std::size_t first_nonfinite_ref(const float* x, std::size_t n, bool allow_minus_inf);

}  // namespace lookback
