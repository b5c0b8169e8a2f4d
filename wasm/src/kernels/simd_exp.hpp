// exp() of a whole SIMD batch from multiplies, adds and integer shifts only (Cephes' expf: Cody-Waite range
// reduction, degree-6 polynomial, 2^n built in the exponent bits), within 2 ulp of std::exp. xsimd::exp
// needs float->int conversions that Emscripten emulates lane by lane; this one stays in WebAssembly SIMD.
// Not a public header: used by the kernels' softmax and activations.
#pragma once
#include <cstdint>
#include <limits>

#include "kernels/simd.hpp"

namespace lookback::simd {

inline batch exp(const batch& x) {
  using ibatch = xsimd::batch<std::int32_t>;
  const batch hi(88.72284f), lo(-103.97208f), magic(12582912.0f);  // magic = 1.5·2^23 rounds to an integer
  const batch c = xsimd::min(xsimd::max(x, lo), hi);
  const batch fx = xsimd::fma(c, batch(1.44269504088896341f), magic);  // n + magic, n = round(c·log2 e)
  const batch n = fx - magic;
  batch r = xsimd::fnma(n, batch(0.693359375f), c);  // r = c - n·ln 2, in two parts
  r = xsimd::fnma(n, batch(-2.12194440e-4f), r);
  batch p(1.9875691500e-4f);
  p = xsimd::fma(p, r, batch(1.3981999507e-3f));
  p = xsimd::fma(p, r, batch(8.3334519073e-3f));
  p = xsimd::fma(p, r, batch(4.1665795894e-2f));
  p = xsimd::fma(p, r, batch(1.6666665459e-1f));
  p = xsimd::fma(p, r, batch(5.0000001201e-1f));
  p = xsimd::fma(p, r * r, r) + batch(1.0f);
  // 2^n as 2^a · 2^b with a = n >> 1, b = n - a: both stay normal for n in [-150, 128]
  const ibatch ni = xsimd::bitwise_cast<ibatch>(fx) - xsimd::bitwise_cast<ibatch>(magic);
  const ibatch a = ni >> 1, b = ni - a;
  const batch y = p * xsimd::bitwise_cast<batch>((a + ibatch(127)) << 23) * xsimd::bitwise_cast<batch>((b + ibatch(127)) << 23);
  return xsimd::select(xsimd::isnan(x), x, xsimd::select(x < lo, batch(0.0f), y));
}

}  // namespace lookback::simd
