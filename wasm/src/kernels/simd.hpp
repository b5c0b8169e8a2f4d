// Private helpers shared by the vectorised kernels: the batch type of this build and small loads/stores.
// Not a public header: kernels' callers see only pointers and sizes (lookback/kernels.hpp).
#pragma once
#include <xsimd/xsimd.hpp>

namespace lookback::simd {

using batch = xsimd::batch<float>;
constexpr int W = static_cast<int>(batch::size);

inline batch load(const float* p) { return batch::load_unaligned(p); }
inline void store(float* p, const batch& b) { b.store_unaligned(p); }
inline float sum(const batch& b) { return xsimd::hadd(b); }

}  // namespace lookback::simd
