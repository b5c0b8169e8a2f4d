// The corpus's own random numbers and hashes: xoshiro256** seeded through splitmix64, FNV-1a text hashes,
// the hash buckets that reserve (hero, object) pairs and made-up names per split, and each story's seed.
// Deterministic on every platform. Internal to the corpus generator (corpus*.cpp); not the model's Rng.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/splitmix64.hpp"
#include "train/corpus.hpp"

namespace lookback::corpus::detail {

inline uint64_t mix64(uint64_t x) { return splitmix64(x); }

class Rng {  // xoshiro256**, seeded through splitmix64
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = seed = mix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }  // [0, n)
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }                     // [lo, hi]
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class T, size_t N>
  const T& pick(const T (&items)[N]) { return items[below(static_cast<int>(N))]; }
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[below(static_cast<int>(items.size()))]; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

inline uint64_t hash_text(std::string_view s) {  // FNV-1a, then mixed
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return mix64(h);
}

// Hash bucket deciding which split may use a (hero, object) pair or a made-up name.
// Pairs: 0 -> probe, 1 -> validation, 2..15 -> train. Names: 0 -> probe only.
inline int pair_bucket(std::string_view hero, std::string_view object) {
  return static_cast<int>(hash_text(std::string(hero) + "|" + std::string(object)) % 16);
}
inline int name_bucket(std::string_view name) { return static_cast<int>(hash_text(name) % 16); }

inline uint64_t story_seed(uint64_t seed, Split split, uint64_t index, int attempt) {
  uint64_t h = mix64(seed);
  h = mix64(h ^ (0xA24BAED4963EE407ull * (static_cast<uint64_t>(split) + 1)));
  h = mix64(h ^ index);
  return mix64(h ^ (0x9FB21C651E98DF25ull * static_cast<uint64_t>(attempt)));
}

}  // namespace lookback::corpus::detail
