// Model kernel tests: rmsnorm, layernorm, rope (both layouts, llama3 scaling), silu/swiglu, gelu (exact and tanh),
// add_bias and linear against their scalar `_ref` twins at sizes around the vector width, plus values that break
// naive code (large |x|, zeros, constant rows, a large mean with a small spread).
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

TEST_CASE("layernorm matches its reference around the vector width, with strides and in place") {
  Rng rng(17);
  for (int n : sizes_around(W())) {
    const int R = 3, ldx = n + 3, ldy = n + 1;
    auto x = rng.vec(std::size_t(R) * ldx, -3, 3), w = rng.vec(n, 0.5f, 1.5f), b = rng.vec(n, -0.5f, 0.5f);
    std::vector<float> y1(std::size_t(R) * ldy, 7.0f), y2 = y1;
    layernorm(x.data(), w.data(), b.data(), y1.data(), R, n, 1e-5f, ldx, ldy);
    layernorm_ref(x.data(), w.data(), b.data(), y2.data(), R, n, 1e-5f, ldx, ldy);
    INFO("n=" << n);
    CHECK(closeness(y1, y2, 1e-5, 1e-5) <= 1.0);  // includes the untouched padding between rows
    auto xi = x;
    layernorm(xi.data(), w.data(), b.data(), xi.data(), R, n, 1e-5f, ldx, ldx);
    std::vector<float> y3(std::size_t(R) * ldx);
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < ldx; ++i) y3[r * ldx + i] = i < n ? y2[r * ldy + i] : x[r * ldx + i];
    CHECK(closeness(xi, y3, 1e-5, 1e-5) <= 1.0);
  }
}

TEST_CASE("layernorm of hostile rows: constant (zero variance), a large mean with a small spread, huge values") {
  for (int n : sizes_around(W())) {
    INFO("n=" << n);
    std::vector<float> w(n, 1.5f), b(n, 0.25f), y(n), yr(n);
    std::vector<float> x(n, 3.0f);  // constant row: (x - mean) = 0, so y = b exactly
    layernorm(x.data(), w.data(), b.data(), y.data(), 1, n, 1e-5f);
    for (float v : y) CHECK(v == 0.25f);
    // mean 1e4, spread ±1: one-pass moments (E[x²] - E[x]²) would lose every digit of the variance in float
    for (int i = 0; i < n; ++i) x[i] = 10000.0f + (i % 3 == 0 ? 1.0f : i % 3 == 1 ? -1.0f : 0.5f);
    layernorm(x.data(), w.data(), b.data(), y.data(), 1, n, 1e-5f);
    layernorm_ref(x.data(), w.data(), b.data(), yr.data(), 1, n, 1e-5f);
    CHECK(closeness(y, yr, 1e-3, 1e-3) <= 1.0);
    for (int i = 0; i < n; ++i) x[i] = (i % 2 ? -1e18f : 1e18f);  // squares overflow float only if not centred first
    layernorm(x.data(), w.data(), b.data(), y.data(), 1, n, 1e-5f);
    for (float v : y) CHECK(std::isfinite(v));
  }
}

TEST_CASE("add_bias matches its reference around the vector width, with a row stride") {
  Rng rng(18);
  for (int N : sizes_around(W())) {
    const int T = 4, ldy = N + 2;
    auto y = rng.vec(std::size_t(T) * ldy), b = rng.vec(N);
    auto y1 = y, y2 = y;
    add_bias(y1.data(), b.data(), T, N, ldy);
    add_bias_ref(y2.data(), b.data(), T, N, ldy);
    INFO("N=" << N);
    CHECK(closeness(y1, y2, 0, 0) == 0.0);  // one float addition per element: exact
    for (int i = 0; i < N; ++i) CHECK(y1[std::size_t(ldy) + i] == y[std::size_t(ldy) + i] + b[i]);
    for (int i = N; i < ldy; ++i) CHECK(y1[i] == y[i]);  // the padding is untouched
  }
}

TEST_CASE("gelu_tanh matches its reference around the vector width, at large |x|, infinities and known points") {
  Rng rng(19);
  for (int n : sizes_around(W())) {
    auto a = rng.vec(n, -12, 12);
    a[0] = -100.0f;
    if (n > 1) a[n - 1] = 100.0f;
    if (n > 2) a[1] = 1e30f;
    if (n > 3) a[2] = -1e30f;
    std::vector<float> y1(n), y2(n);
    gelu_tanh(a.data(), y1.data(), n);
    gelu_tanh_ref(a.data(), y2.data(), n);
    INFO("n=" << n);
    CHECK(closeness(y1, y2, 1e-6, 1e-5) <= 1.0);
    auto g = a;  // in place
    gelu_tanh(g.data(), g.data(), n);
    CHECK(closeness(g, y2, 1e-6, 1e-5) <= 1.0);
  }
  // y = x/2 · (1 + tanh(√(2/π) (x + 0.044715 x³))): 0 at 0, x for large x, 0 for large -x
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, 3.0f, 50.0f, -50.0f};
  std::vector<float> g(x.size()), r(x.size());
  for (int n : {int(x.size()), 1}) {  // the vector loop and the scalar tail
    for (std::size_t i = 0; i < x.size(); i += std::size_t(n)) gelu_tanh(x.data() + i, g.data() + i, n);
    CHECK(g[0] == 0.0f);
    CHECK(g[1] == doctest::Approx(0.8411920f).epsilon(1e-5));
    CHECK(g[2] == doctest::Approx(-0.1588080f).epsilon(1e-5));
    CHECK(g[3] == doctest::Approx(2.9963627f).epsilon(1e-5));
    CHECK(g[4] == 50.0f);
    CHECK(g[5] == 0.0f);
  }
}

TEST_CASE("rope_frequency with llama3 scaling: kept, divided and blended wavelengths as Llama 3.1 defines them") {
  RopeScaling s;
  s.type = RopeScaling::Type::llama3, s.factor = 8, s.low_freq_factor = 1, s.high_freq_factor = 4, s.original_context = 64;
  const int D = 8;
  const double theta = 10000, pi = 3.14159265358979323846;
  for (int j = 0; j < D / 2; ++j) {
    const double f = std::pow(theta, -2.0 * j / D), wavelen = 2 * pi / f;
    CHECK(rope_frequency(j, D, float(theta)) == doctest::Approx(f).epsilon(1e-12));
    double want = f;  // wavelengths 6.3, 63, 628, 6283 against 64/4 = 16 and 64/1 = 64
    if (wavelen > 64) want = f / 8;
    else if (wavelen >= 16) {
      const double smooth = (64 / wavelen - 1) / (4 - 1);
      want = (1 - smooth) * f / 8 + smooth * f;
    }
    INFO("j=" << j);
    CHECK(rope_frequency(j, D, float(theta), s) == doctest::Approx(want).epsilon(1e-12));
  }
  CHECK(rope_frequency(0, D, float(theta), s) == 1.0);       // wavelength 6.3 < 16: kept
  CHECK(rope_frequency(3, D, float(theta), s) == doctest::Approx(std::pow(theta, -0.75) / 8).epsilon(1e-12));
}

TEST_CASE("rope with llama3 scaling matches its reference for both layouts") {
  Rng rng(20);
  RopeScaling s;
  s.type = RopeScaling::Type::llama3, s.factor = 8, s.low_freq_factor = 1, s.high_freq_factor = 4, s.original_context = 64;
  for (RopeLayout layout : {RopeLayout::adjacent, RopeLayout::half}) {
    for (int D : even_sizes()) {
      const int T = 4, H = 2, ld = H * D + 2;
      const std::vector<int> pos = {0, 3, 100, 5000};
      auto x = rng.vec(std::size_t(T) * ld);
      auto x1 = x, x2 = x, x3 = x;
      std::vector<float> table(std::size_t(T) * 2 * D);
      rope_table(table.data(), pos.data(), T, D, 500000.0f, layout, s);
      rope(x1.data(), T, H, D, ld, table.data(), layout);
      rope_ref(x2.data(), T, H, D, ld, pos.data(), 500000.0f, layout, s);
      INFO("D=" << D);
      CHECK(closeness(x1, x2, 1e-6, 1e-5) <= 1.0);
      if (D >= 8) {  // some wavelength above 16 at this width: the scaling changes the rotation
        rope_ref(x3.data(), T, H, D, ld, pos.data(), 500000.0f, layout);
        CHECK(closeness(x3, x2, 1e-6, 1e-5) > 1.0);
      }
    }
  }
}
