// The largest |x| of a block of activations and whether all of it is finite: the first step of quantising x per
// block (matvec_q8.cpp, matvec_q4.cpp and their references). Not a public header; not the quantisation itself.
#pragma once
#include <algorithm>
#include <cmath>

namespace lookback {

// max |x[i]| over i < len; `finite` becomes false (and stays so) when one of them is NaN or ±Inf.
inline float block_absmax(const float* x, int len, bool& finite) {
  float amax = 0;
  for (int i = 0; i < len; ++i) {
    finite = finite && std::isfinite(x[i]);
    amax = std::max(amax, std::fabs(x[i]));
  }
  return amax;
}

}  // namespace lookback
