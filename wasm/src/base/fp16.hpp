// IEEE 754 half precision <-> float, bit-exact and portable (no compiler half type): round to nearest
// even, subnormals, infinities and NaN. Not here: bulk conversion of files (safetensors.cpp).
#pragma once
#include <cstdint>
#include <cstring>

namespace lookback {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // inf or NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while (!(mant & 0x400u)) mant <<= 1, --exp;
    bits = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t absx = x & 0x7FFFFFFFu;
  if (absx >= 0x7F800000u) return sign | (absx > 0x7F800000u ? 0x7E00u : 0x7C00u);  // NaN, inf
  if (absx >= 0x477FF000u) return sign | 0x7C00u;                                    // rounds past 65504
  if (absx < 0x38800000u) {                                                           // half subnormal or 0
    if (absx < 0x33000000u) return sign;                                              // below half the least subnormal
    const std::uint32_t e = absx >> 23, mant = (absx & 0x7FFFFFu) | 0x800000u;
    const int shift = int(126 - e);  // 14..24 for the values reaching here
    const std::uint32_t q = mant >> shift, rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    return sign | std::uint16_t(q + (rest > halfway || (rest == halfway && (q & 1u))));
  }
  const std::uint32_t rounded = absx + 0xFFFu + ((absx >> 13) & 1u);  // round to nearest even at bit 13
  return sign | std::uint16_t((rounded - 0x38000000u) >> 13);
}

}  // namespace lookback
