// Model kernel tests: rmsnorm, rope (both layouts), silu/swiglu, gelu and linear against their scalar
// `_ref` twins at sizes around the vector width, plus values that break naive code (large |x|, zeros).
// Runs natively and in WebAssembly under Node (the same file, two builds).
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;
using lookback::testing::sizes_around;

namespace {
int W() { return int(simd_width()); }

// Even sizes around the vector width (and around twice it, for the half layout's halves).
std::vector<int> even_sizes() {
  std::vector<int> out;
  for (int n : sizes_around(W())) out.push_back(n % 2 ? n + 1 : n);
  for (int n : sizes_around(W())) out.push_back(2 * n);
  return out;
}
}  // namespace

TEST_CASE("rmsnorm matches its reference around the vector width, with strides and in place") {
  Rng rng(11);
  for (int n : sizes_around(W())) {
    const int R = 3, ldx = n + 3, ldy = n + 1;
    auto x = rng.vec(std::size_t(R) * ldx, -3, 3), w = rng.vec(n, 0.5f, 1.5f);
    std::vector<float> y1(std::size_t(R) * ldy, 7.0f), y2 = y1;
    rmsnorm(x.data(), w.data(), y1.data(), R, n, 1e-5f, ldx, ldy);
    rmsnorm_ref(x.data(), w.data(), y2.data(), R, n, 1e-5f, ldx, ldy);
    INFO("n=" << n);
    CHECK(closeness(y1, y2, 1e-6, 1e-5) <= 1.0);
    auto xi = x;
    rmsnorm(xi.data(), w.data(), xi.data(), R, n, 1e-5f, ldx, ldx);
    std::vector<float> y3(std::size_t(R) * ldx);
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < ldx; ++i) y3[r * ldx + i] = i < n ? y2[r * ldy + i] : x[r * ldx + i];
    CHECK(closeness(xi, y3, 1e-6, 1e-5) <= 1.0);
  }
}

TEST_CASE("rmsnorm of a zero row is zero, of huge values is finite") {
  std::vector<float> x(37, 0.0f), w(37, 1.0f), y(37, 1.0f);
  rmsnorm(x.data(), w.data(), y.data(), 1, 37, 1e-5f);
  CHECK(std::accumulate(y.begin(), y.end(), 0.0f) == 0.0f);
  std::fill(x.begin(), x.end(), 1e18f);
  rmsnorm(x.data(), w.data(), y.data(), 1, 37, 1e-5f);
  for (float v : y) CHECK(v == doctest::Approx(1.0f).epsilon(1e-5));
}

TEST_CASE("rope matches its reference for both layouts, any positions, strided heads") {
  Rng rng(12);
  for (RopeLayout layout : {RopeLayout::adjacent, RopeLayout::half}) {
    for (int D : even_sizes()) {
      const int T = 5, H = 3, ld = H * D + 6;
      const std::vector<int> pos = {0, 1, 7, 255, 3000};
      auto x = rng.vec(std::size_t(T) * ld);
      auto x1 = x, x2 = x;
      std::vector<float> table(std::size_t(T) * 2 * D);
      rope_table(table.data(), pos.data(), T, D, 10000.0f, layout);
      rope(x1.data(), T, H, D, ld, table.data(), layout);
      rope_ref(x2.data(), T, H, D, ld, pos.data(), 10000.0f, layout);
      INFO("D=" << D << " layout=" << (layout == RopeLayout::adjacent ? "adjacent" : "half"));
      CHECK(closeness(x1, x2, 1e-6, 1e-5) <= 1.0);  // includes the untouched padding between rows
    }
  }
}

TEST_CASE("rope at position 0 is the identity; a rotation keeps each pair's length") {
  Rng rng(13);
  const int D = 32, p0 = 0, p9 = 9;
  auto x = rng.vec(D), y = x;
  std::vector<float> table(2 * D);
  rope_table(table.data(), &p0, 1, D, 10000.0f, RopeLayout::half);
  rope(y.data(), 1, 1, D, 0, table.data(), RopeLayout::half);
  CHECK(closeness(y, x, 0, 0) == 0.0);
  rope_table(table.data(), &p9, 1, D, 10000.0f, RopeLayout::adjacent);
  rope(y.data(), 1, 1, D, 0, table.data(), RopeLayout::adjacent);
  for (int j = 0; j < D / 2; ++j)
    CHECK(std::hypot(y[2 * j], y[2 * j + 1]) == doctest::Approx(std::hypot(x[2 * j], x[2 * j + 1])).epsilon(1e-5));
}

TEST_CASE("rope: relative positions only (q at p+s against k at s gives the same score)") {
  Rng rng(14);
  const int D = 16;
  auto q = rng.vec(D), k = rng.vec(D);
  float score[2];
  for (int shift : {0, 1}) {
    auto qr = q, kr = k;
    const int pq = 5 + 40 * shift, pk = 2 + 40 * shift;
    rope_ref(qr.data(), 1, 1, D, 0, &pq, 10000.0f, RopeLayout::half);
    rope_ref(kr.data(), 1, 1, D, 0, &pk, 10000.0f, RopeLayout::half);
    score[shift] = dot_ref(qr.data(), kr.data(), D);
  }
  CHECK(score[0] == doctest::Approx(score[1]).epsilon(1e-5));
}

TEST_CASE("silu, swiglu and gelu match their references around the vector width and at large |x|") {
  Rng rng(15);
  for (int n : sizes_around(W())) {
    auto a = rng.vec(n, -12, 12), b = rng.vec(n, -2, 2);
    a[0] = -100.0f;
    if (n > 1) a[n - 1] = 100.0f;
    std::vector<float> y1(n), y2(n);
    INFO("n=" << n);
    silu(a.data(), y1.data(), n);
    silu_ref(a.data(), y2.data(), n);
    CHECK(closeness(y1, y2, 1e-6, 1e-5) <= 1.0);
    swiglu(a.data(), b.data(), y1.data(), n);
    swiglu_ref(a.data(), b.data(), y2.data(), n);
    CHECK(closeness(y1, y2, 1e-6, 1e-5) <= 1.0);
    gelu(a.data(), y1.data(), n);
    gelu_ref(a.data(), y2.data(), n);
    CHECK(closeness(y1, y2, 1e-6, 1e-5) <= 1.0);
    auto g = a;  // in place
    swiglu(g.data(), b.data(), g.data(), n);
    swiglu_ref(a.data(), b.data(), y2.data(), n);
    CHECK(closeness(g, y2, 1e-6, 1e-5) <= 1.0);
  }
}

TEST_CASE("swiglu_backward matches its reference around the vector width and at large |x|") {
  Rng rng(16);
  for (int n : sizes_around(W())) {
    auto a = rng.vec(n, -12, 12), b = rng.vec(n, -2, 2), dg = rng.vec(n, -1, 1);
    a[0] = -100.0f;
    if (n > 1) a[n - 1] = 100.0f;
    std::vector<float> da1(n), db1(n), da2(n), db2(n);
    INFO("n=" << n);
    swiglu_backward(a.data(), b.data(), dg.data(), da1.data(), db1.data(), n);
    swiglu_backward_ref(a.data(), b.data(), dg.data(), da2.data(), db2.data(), n);
    CHECK(closeness(da1, da2, 1e-6, 1e-5) <= 1.0);
    CHECK(closeness(db1, db2, 1e-6, 1e-5) <= 1.0);
  }
}

TEST_CASE("gelu and silu at known points") {
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, 3.0f};
  std::vector<float> g(4), s(4);
  gelu(x.data(), g.data(), 4);
  silu(x.data(), s.data(), 4);
  CHECK(g[0] == 0.0f);
  CHECK(g[1] == doctest::Approx(0.8413447f).epsilon(1e-5));
  CHECK(g[2] == doctest::Approx(-0.1586553f).epsilon(1e-5));
  CHECK(s[1] == doctest::Approx(0.7310586f).epsilon(1e-5));
  CHECK(s[3] == doctest::Approx(2.8577223f).epsilon(1e-5));
}

TEST_CASE("linear matches its reference for few rows (row dots) and many rows (gemm), with strides") {
  Rng rng(16);
  for (int T : {1, 2, 3, 4, 9}) {
    for (int K : sizes_around(W())) {
      for (int N : {1, 3, 4, 5, 17}) {
        for (bool acc : {false, true}) {
          const int ldx = K + 2, ldy = N + 3;
          auto x = rng.vec(std::size_t(T) * ldx), Wt = rng.vec(std::size_t(N) * K), y0 = rng.vec(std::size_t(T) * ldy);
          auto y1 = y0, y2 = y0;
          linear(x.data(), T, K, Wt.data(), N, y1.data(), acc, ldx, ldy);
          linear_ref(x.data(), T, K, Wt.data(), N, y2.data(), acc, ldx, ldy);
          INFO("T=" << T << " K=" << K << " N=" << N << " acc=" << acc);
          CHECK(closeness(y1, y2, 1e-5, 1e-4) <= 1.0);
        }
      }
    }
  }
}
