// Tests of the GEMM on a B packed once (lookback/packed_gemm.hpp) against its `_ref` twin: M, N, K around the
// vector width, the tile sizes and the K block (512), both layouts of B, strides and accumulation, hostile
// values (huge, tiny, zero), and one packed B reused by many calls. Runs natively and in WebAssembly.
#include <doctest/doctest.h>

#include <vector>

#include "lookback/kernels.hpp"
#include "lookback/packed_gemm.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;
using lookback::testing::sizes_around;

namespace {

// closeness of gemm_packed against gemm_packed_ref for one case
double check(Rng& rng, int M, int N, int K, bool trans, bool acc, float lo = -1, float hi = 1) {
  const int lda = K + 1, ldb = (trans ? K : N) + 2, ldc = N + 3;
  const auto A = rng.vec(std::size_t(M) * lda, lo, hi);
  const auto B = rng.vec(std::size_t(trans ? N : K) * ldb, lo, hi);
  std::vector<float> packed(packed_b_floats(K, N), -7.0f);
  pack_b_matrix(trans, K, N, B.data(), ldb, packed.data());
  std::vector<float> c1(std::size_t(M) * ldc, 0.25f), c2 = c1;
  gemm_packed(M, N, K, A.data(), lda, packed.data(), c1.data(), ldc, acc);
  gemm_packed_ref(M, N, K, A.data(), lda, trans, B.data(), ldb, c2.data(), ldc, acc);
  const double scale = double(hi) * hi * K;
  return closeness(c1, c2, 1e-6 * scale, 1e-5);
}

}  // namespace

TEST_CASE("gemm_packed matches its reference around the vector width and the tile sizes, both layouts") {
  Rng rng(31);
  const int w = int(simd_width());
  for (int M : {1, 2, 5, 6, 11, 64, 121})
    for (int N : sizes_around(w))
      for (int K : {1, 3, w, 2 * w + 1, 37})
        for (bool trans : {false, true}) {
          INFO("M=" << M << " N=" << N << " K=" << K << " trans=" << trans);
          CHECK(check(rng, M, N, K, trans, trans) <= 1.0);
        }
}

TEST_CASE("gemm_packed: K and M across several blocks, the QKV shape, accumulation") {
  Rng rng(32);
  for (int K : {511, 767, 768, 769, 1600}) {
    INFO("K=" << K);
    CHECK(check(rng, 9, 33, K, false, false) <= 1.0);
    CHECK(check(rng, 9, 33, K, true, true) <= 1.0);
  }
  CHECK(check(rng, 64, 1152, 384, false, false) <= 1.0);
  for (int M : {255, 256, 257, 600}) {  // rows in one block, then in equal blocks
    INFO("M=" << M);
    CHECK(check(rng, M, 21, 40, true, true) <= 1.0);
  }
}

TEST_CASE("gemm_packed on hostile values: huge and tiny magnitudes; K = 0 clears or keeps C") {
  Rng rng(33);
  CHECK(check(rng, 7, 13, 40, false, false, -1e18f, 1e18f) <= 1.0);
  CHECK(check(rng, 7, 13, 40, true, false, -1e-18f, 1e-18f) <= 1.0);
  std::vector<float> c(6, 3.0f);
  gemm_packed(2, 3, 0, nullptr, 1, nullptr, c.data(), 3, true);
  CHECK(c == std::vector<float>(6, 3.0f));
  gemm_packed(2, 3, 0, nullptr, 1, nullptr, c.data(), 3, false);
  CHECK(c == std::vector<float>(6, 0.0f));
}

TEST_CASE("one packed B serves many calls with different A") {
  Rng rng(34);
  const int K = 50, N = 21;
  const auto B = rng.vec(std::size_t(K) * N);
  std::vector<float> packed(packed_b_floats(K, N));
  pack_b_matrix(false, K, N, B.data(), N, packed.data());
  for (int M : {1, 8, 64}) {
    const auto A = rng.vec(std::size_t(M) * K);
    std::vector<float> c1(std::size_t(M) * N), c2(c1.size());
    gemm_packed(M, N, K, A.data(), K, packed.data(), c1.data(), N, false);
    gemm_nn(M, N, K, A.data(), K, B.data(), N, c2.data(), N, false);
    CHECK(closeness(c1, c2, 1e-5, 1e-5) <= 1.0);
  }
}
