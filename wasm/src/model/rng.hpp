// The model's own pseudo-random generator (splitmix64): the same stream natively and in WebAssembly for a
// given seed, so seeded generation and random test weights are reproducible everywhere.
// Not here: sampling rules (sampler.hpp).
#pragma once
#include <cstdint>

#include "base/splitmix64.hpp"

namespace lookback {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64_next(state_); }
  // Uniform in [0, 1) with 24 random bits (exact in float).
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform_double() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t state_;
};

}  // namespace lookback
