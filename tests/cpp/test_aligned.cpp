// AlignedVector (base/aligned.hpp): every buffer it holds starts on a 64-byte cache line, whatever its size, after
// growing and after copying; the buffers that threads write side by side (attention's staging, the model's
// workspace) are such vectors.
#include <doctest/doctest.h>

#include <cstdint>

#include "base/aligned.hpp"

using lookback::AlignedVector;

namespace {
bool on_a_line(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % lookback::kCacheLine == 0; }
}  // namespace

TEST_CASE("AlignedVector starts on a cache line at every size, after growing and after a copy") {
  for (std::size_t n : {1, 3, 15, 16, 17, 1000, 196608}) {
    CAPTURE(n);
    AlignedVector<float> v(n, 1.0f);
    CHECK(on_a_line(v.data()));
    v.resize(3 * n + 5);
    CHECK(on_a_line(v.data()));
    CHECK(v[0] == 1.0f);
    const AlignedVector<float> copy = v;
    CHECK(on_a_line(copy.data()));
    AlignedVector<std::uint8_t> bytes(n + 1);  // an odd element size too
    CHECK(on_a_line(bytes.data()));
  }
}
