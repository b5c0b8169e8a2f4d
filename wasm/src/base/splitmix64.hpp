// splitmix64 (Steele, Lea and Flood, 2014): the finaliser that mixes one 64-bit value, and the generator that
// steps a counter by the golden gamma and mixes it. The one copy every seeded stream of lookback builds on
// (the model's Rng, the corpus's hashing and seeding, the trainer's initialisation and batches, the tests).
// Not a general random-number library: no distributions here.
#pragma once
#include <cstdint>

namespace lookback {

inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The finaliser: a bijection of 64-bit values that spreads every input bit over the output.
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The next value of the stream whose counter is `state` (advanced in place).
inline std::uint64_t splitmix64_next(std::uint64_t& state) { return splitmix64_mix(state += kGoldenGamma); }

// One step from x, without keeping a state: the same as splitmix64_next on a copy of x.
inline std::uint64_t splitmix64(std::uint64_t x) { return splitmix64_mix(x + kGoldenGamma); }

}  // namespace lookback
