// Helpers for the C++ tests: a seeded generator of test data and closeness checks.
// Not a test framework: doctest is; this only avoids repeating the same few lines in each test file.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/splitmix64.hpp"
#include "model/errors.hpp"

namespace lookback::testing {

// Deterministic uniform floats in [lo, hi) (splitmix64; the same on every platform).
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() { return splitmix64_next(s); }
  float uniform(float lo = -1.0f, float hi = 1.0f) { return lo + (hi - lo) * float(next() >> 40) / float(1 << 24); }
  std::vector<float> vec(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(lo, hi);
    return v;
  }
};

// The message of the ModelError f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

// Largest |a-b| / (atol + rtol·|b|) over two arrays; <= 1 means close. Infinities must match exactly.
inline double closeness(const std::vector<float>& a, const std::vector<float>& b, double atol, double rtol) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / (atol + rtol * std::fabs(double(b[i]))));
  }
  return worst;
}

// Sizes that probe a vectorised loop of width w: below, at, multiples, and with remainders.
inline std::vector<int> sizes_around(int w) {
  return {1, 2, w - 1, w, w + 1, 2 * w - 1, 2 * w, 2 * w + 3, 3 * w + 1, 4 * w, 8 * w + 5};
}

}  // namespace lookback::testing
