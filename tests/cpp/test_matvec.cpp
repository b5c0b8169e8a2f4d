// Matrix-vector kernel tests (lookback/matvec.hpp): float32, float16, Q8 and Q4 against their scalar `_ref`
// twins for M = 1..8 rows and K, N around the vector width and the blocks, with strides and accumulation; hostile
// inputs (huge and tiny values, zero blocks, NaN and Inf in x, Q4 weights at the nibble extremes and far from
// zero); the Q8 and Q4 quantisers' error bounds; and the float32 kernel against linear(). Runs natively and in
// WebAssembly under Node.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "lookback/kernels.hpp"
#include "lookback/matvec.hpp"
#include "lookback/nn.hpp"
#include "base/fp16.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;
using lookback::testing::sizes_around;

namespace {

std::vector<int> widths() {
  std::vector<int> out = sizes_around(int(simd_width()));
  for (int k : {7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100}) out.push_back(k);
  return out;
}

enum class Format { f32, f16, q8, q4 };

// One [N,K] matrix in every format, and the two ways (fast, ref) of multiplying by it.
struct Matrix {
  int N, K;
  std::vector<float> w;
  std::vector<std::uint16_t> h;
  std::vector<std::int8_t> q;
  std::vector<std::uint8_t> q4;
  Matrix(std::vector<float> w_, int N_, int K_) : N(N_), K(K_), w(std::move(w_)) {
    for (float v : w) h.push_back(float_to_half(v));
    q.resize(q8_bytes(N, K));
    quantize_q8(w.data(), N, K, q.data());
    q4.resize(q4_bytes(N, K));
    quantize_q4(w.data(), N, K, q4.data());
  }
  void run(Format f, bool fast, const float* x, int M, float* y, bool acc, int ldx, int ldy) const {
    switch (f) {
      case Format::f32:
        return fast ? matvec(x, M, K, w.data(), N, y, acc, ldx, ldy) : matvec_ref(x, M, K, w.data(), N, y, acc, ldx, ldy);
      case Format::f16:
        return fast ? matvec_f16(x, M, K, h.data(), N, y, acc, ldx, ldy)
                    : matvec_f16_ref(x, M, K, h.data(), N, y, acc, ldx, ldy);
      case Format::q8:
        return fast ? matvec_q8(x, M, K, q.data(), N, y, acc, ldx, ldy)
                    : matvec_q8_ref(x, M, K, q.data(), N, y, acc, ldx, ldy);
      case Format::q4:
        return fast ? matvec_q4(x, M, K, q4.data(), N, y, acc, ldx, ldy)
                    : matvec_q4_ref(x, M, K, q4.data(), N, y, acc, ldx, ldy);
    }
  }
  // closeness of fast against ref on x [M, ldx = K + 3] into y [M, ldy = N + 2] starting at 0.5
  double compare(Format f, const std::vector<float>& x, int M, bool acc, double tol = 1e-5) const {
    const int ldx = K + 3, ldy = N + 2;
    std::vector<float> y1(std::size_t(M) * ldy, 0.5f), y2 = y1;
    run(f, true, x.data(), M, y1.data(), acc, ldx, ldy);
    run(f, false, x.data(), M, y2.data(), acc, ldx, ldy);
    return closeness(y1, y2, tol, tol);
  }
};

const Format kFormats[] = {Format::f32, Format::f16, Format::q8, Format::q4};
const char* name(Format f) {
  return f == Format::f32 ? "f32" : f == Format::f16 ? "f16" : f == Format::q8 ? "q8" : "q4";
}

}  // namespace

TEST_CASE("matvec (float32, float16, Q8, Q4) matches its reference for M = 1..8, K and N around the widths") {
  Rng rng(21);
  for (int M : {1, 2, 3, 5, 8})
    for (int K : widths())
      for (int N : {1, 3, 4, 5, 9}) {
        const Matrix W(rng.vec(std::size_t(N) * K), N, K);
        const std::vector<float> x = rng.vec(std::size_t(M) * (K + 3), -2, 2);
        for (Format f : kFormats)
          for (bool acc : {false, true}) {
            INFO(name(f) << " M=" << M << " K=" << K << " N=" << N << " acc=" << acc);
            CHECK(W.compare(f, x, M, acc) <= 1.0);
          }
      }
}

TEST_CASE("matvec on hostile values: huge and tiny magnitudes, zero blocks, exact zeros") {
  Rng rng(22);
  const int M = 3, K = 70, N = 6;
  std::vector<float> w = rng.vec(std::size_t(N) * K);
  for (int k = 32; k < 64; ++k) w[k] = 0.0f;                 // row 0: an all-zero block
  for (int k = 0; k < K; ++k) w[std::size_t(1) * K + k] *= 1e-3f;  // row 1: small (half: near subnormal)
  w[std::size_t(2) * K + 5] = 60000.0f;                        // near the half maximum
  const Matrix W(w, N, K);
  std::vector<float> x = rng.vec(std::size_t(M) * (K + 3), -1, 1);
  for (int k = 0; k < 32; ++k) x[k] = 0.0f;                    // x row 0: an all-zero block
  for (int k = 0; k < K; ++k) x[std::size_t(1) * (K + 3) + k] *= 1e30f;  // x row 1: huge
  x[std::size_t(2) * (K + 3) + 40] = 1e-30f;                   // x row 2: one tiny value in a block
  for (Format f : kFormats) {
    INFO(name(f));
    CHECK(W.compare(f, x, M, false, 1e-4) <= 1.0);
  }
}

TEST_CASE("matvec: NaN or Inf in a row of x gives NaN (Q8, Q4) or propagates (float) in that row only") {
  Rng rng(23);
  const int M = 3, K = 40, N = 5;
  const Matrix W(rng.vec(std::size_t(N) * K), N, K);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> x = rng.vec(std::size_t(M) * K);
    x[std::size_t(1) * K + 33] = bad;
    for (Format f : kFormats) {
      INFO(name(f) << " bad=" << bad);
      std::vector<float> y(std::size_t(M) * N), yr(y.size());
      W.run(f, true, x.data(), M, y.data(), false, 0, 0);
      W.run(f, false, x.data(), M, yr.data(), false, 0, 0);
      for (int n = 0; n < N; ++n) {
        CHECK(std::isfinite(y[n]));
        CHECK(std::isfinite(y[std::size_t(2) * N + n]));
        CHECK(!std::isfinite(y[std::size_t(1) * N + n]));
        if (f == Format::q8 || f == Format::q4) CHECK(std::isnan(y[std::size_t(1) * N + n]));
        CHECK(std::isnan(y[std::size_t(1) * N + n]) == std::isnan(yr[std::size_t(1) * N + n]));
      }
    }
  }
}

TEST_CASE("quantize_q8 keeps every weight within half a step of its block scale; Q8 and f16 stay near float") {
  Rng rng(24);
  const int N = 7, K = 77;  // a group of four rows and a last group of three; the last block 13 wide
  const std::vector<float> w = rng.vec(std::size_t(N) * K, -0.2f, 0.2f);
  const Matrix W(w, N, K);
  const int Kb = q8_blocks(K);
  std::vector<float> back(std::size_t(N) * K);
  dequantize_q8(W.q.data(), N, K, back.data());
  std::vector<int> seen(W.q.size(), 0);  // every byte of the buffer belongs to exactly one weight or scale
  for (int n = 0; n < N; ++n)
    for (int b = 0; b < Kb; ++b) {
      const Q8Offsets at = q8_offsets(N, K, n, b);
      const float s = q8_scale(W.q.data(), at.scale);
      float amax = 0;
      for (int k = b * kQ8Block; k < std::min(K, (b + 1) * kQ8Block); ++k) {
        const std::size_t i = std::size_t(n) * K + k;
        amax = std::max(amax, std::fabs(w[i]));
        CHECK(back[i] == s * W.q[at.weights + k - b * kQ8Block]);
        CHECK(std::fabs(back[i] - w[i]) <= 0.5f * s * 1.0001f);
      }
      CHECK(s == amax / 127.0f);
      for (int k = K; k < (b + 1) * kQ8Block; ++k) CHECK(W.q[at.weights + k - b * kQ8Block] == 0);  // padding
      for (std::size_t i = 0; i < std::size_t(kQ8Block); ++i) seen[at.weights + i]++;
      for (std::size_t i = 0; i < 4; ++i) seen[at.scale + i]++;
    }
  CHECK(std::count(seen.begin(), seen.end(), 1) == std::ptrdiff_t(seen.size()));
  // against the float32 product: relative to Σ|w||x|, Q8 within 1% and f16 within 0.1%
  const std::vector<float> x = rng.vec(K, -1, 1);
  std::vector<float> y(N), yq(N), yh(N);
  matvec_ref(x.data(), 1, K, w.data(), N, y.data(), false);
  W.run(Format::q8, true, x.data(), 1, yq.data(), false, 0, 0);
  W.run(Format::f16, true, x.data(), 1, yh.data(), false, 0, 0);
  for (int n = 0; n < N; ++n) {
    double mag = 0;
    for (int k = 0; k < K; ++k) mag += std::fabs(double(w[std::size_t(n) * K + k]) * x[k]);
    CHECK(std::fabs(yq[n] - y[n]) <= 0.01 * mag);
    CHECK(std::fabs(yh[n] - y[n]) <= 0.001 * mag);
  }
}

TEST_CASE("matvec (float32) agrees with linear() for the decoding shapes") {
  Rng rng(25);
  for (int T : {1, 2, 4, 8}) {
    const int K = 96, N = 37;
    const auto x = rng.vec(std::size_t(T) * K), w = rng.vec(std::size_t(N) * K);
    std::vector<float> y1(std::size_t(T) * N), y2(y1.size());
    matvec(x.data(), T, K, w.data(), N, y1.data(), false);
    linear(x.data(), T, K, w.data(), N, y2.data(), false);
    CHECK(closeness(y1, y2, 1e-5, 1e-5) <= 1.0);
  }
}

TEST_CASE("matrix-vector products one weight row at a time (stream) match the references (float32, float16)") {
  Rng rng(31);
  for (int M : {1, 2, 8})
    for (int K : widths())
      for (int N : {1, 3, 4, 5, 17}) {
        const int ldx = K + 2, ldy = N + 1;
        const auto W = rng.vec(std::size_t(N) * K), x = rng.vec(std::size_t(M) * ldx, -3, 3);
        const auto y0 = rng.vec(std::size_t(M) * ldy);
        std::vector<std::uint16_t> h(W.size());
        for (std::size_t i = 0; i < W.size(); ++i) h[i] = float_to_half(W[i]);
        for (bool acc : {false, true}) {
          INFO("M=" << M << " K=" << K << " N=" << N << " acc=" << acc);
          std::vector<float> a = y0, b = y0;
          matvec(x.data(), M, K, W.data(), N, a.data(), acc, ldx, ldy, true);
          matvec_ref(x.data(), M, K, W.data(), N, b.data(), acc, ldx, ldy);
          CHECK(closeness(a, b, 1e-5, 1e-4) <= 1.0);
          a = y0, b = y0;
          matvec_f16(x.data(), M, K, h.data(), N, a.data(), acc, ldx, ldy, true);
          matvec_f16_ref(x.data(), M, K, h.data(), N, b.data(), acc, ldx, ldy);
          CHECK(closeness(a, b, 1e-5, 1e-4) <= 1.0);
        }
      }
}

TEST_CASE("Q8: a row's product does not depend on the group of rows it is stored in") {
  // Rows 0-3 of a 6-row matrix form a full group (the vector kernel in WebAssembly), rows 4-5 a group of two; each
  // row quantised alone is a group of one. The block sums are exact integers and each row adds them in the same
  // order, so the outputs are equal bit for bit.
  Rng rng(32);
  for (int K : {31, 32, 33, 288}) {
    const int N = 6, M = 3;
    const auto w = rng.vec(std::size_t(N) * K), x = rng.vec(std::size_t(M) * K, -4, 4);
    std::vector<std::int8_t> q(q8_bytes(N, K));
    quantize_q8(w.data(), N, K, q.data());
    std::vector<float> y(std::size_t(M) * N);
    matvec_q8(x.data(), M, K, q.data(), N, y.data(), false);
    for (int n = 0; n < N; ++n) {
      std::vector<std::int8_t> one(q8_bytes(1, K));
      quantize_q8(w.data() + std::size_t(n) * K, 1, K, one.data());
      std::vector<float> y1(M);
      matvec_q8(x.data(), M, K, one.data(), 1, y1.data(), false);
      for (int m = 0; m < M; ++m) {
        INFO("K=" << K << " n=" << n << " m=" << m);
        CHECK(y1[m] == y[std::size_t(m) * N + n]);
      }
    }
  }
}

TEST_CASE("Q8: the rows from a multiple of four on are a Q8 matrix themselves (q8_rows), as the chunked products read them") {
  Rng rng(33);
  const int N = 67, K = 77;  // 16 full groups and a last group of three; the last block 13 wide
  const auto w = rng.vec(std::size_t(N) * K);
  std::vector<std::int8_t> q(q8_bytes(N, K));
  quantize_q8(w.data(), N, K, q.data());
  std::vector<float> all(std::size_t(N) * K);
  dequantize_q8(q.data(), N, K, all.data());
  for (const std::pair<int, int>& range : std::vector<std::pair<int, int>>{{0, 16}, {16, 16}, {32, 35}, {64, 3}, {60, 7}}) {
    const int n0 = range.first, rows = range.second;
    INFO("rows " << n0 << ".." << n0 + rows);
    std::vector<float> part(std::size_t(rows) * K);
    dequantize_q8(q8_rows(q.data(), K, n0), rows, K, part.data());
    CHECK(std::equal(part.begin(), part.end(), all.begin() + std::ptrdiff_t(n0) * K));
    const auto x = rng.vec(std::size_t(2) * K);
    std::vector<float> y_all(std::size_t(2) * N), y_part(std::size_t(2) * rows);
    matvec_q8(x.data(), 2, K, q.data(), N, y_all.data(), false);
    matvec_q8(x.data(), 2, K, q8_rows(q.data(), K, n0), rows, y_part.data(), false);
    for (int m = 0; m < 2; ++m)
      for (int r = 0; r < rows; ++r) CHECK(y_part[std::size_t(m) * rows + r] == y_all[std::size_t(m) * N + n0 + r]);
  }
}

// ---- Q4 -----------------------------------------------------------------------------------------------------

TEST_CASE("matvec_q4 matches matvec_q4_ref for M = 1..8, K around the block (1 to 273), N = 1..9, with strides") {
  Rng rng(41);
  for (int K : {1, 31, 32, 33, 64, 100, 256 + 17})
    for (int N = 1; N <= 9; ++N)
      for (int M = 1; M <= 8; ++M) {
        const Matrix W(rng.vec(std::size_t(N) * K), N, K);
        const std::vector<float> x = rng.vec(std::size_t(M) * (K + 3), -3, 3);
        for (bool acc : {false, true}) {
          INFO("M=" << M << " K=" << K << " N=" << N << " acc=" << acc);
          CHECK(W.compare(Format::q4, x, M, acc) <= 1.0);
        }
      }
}

TEST_CASE("matvec_q4 on hostile blocks: huge and tiny x blocks, zero blocks, nibbles at 0 and 15, a large min") {
  Rng rng(42);
  const int M = 4, K = 160, N = 7;  // five blocks along K
  std::vector<float> w = rng.vec(std::size_t(N) * K);
  for (int k = 32; k < 64; ++k) w[k] = 0.0f;                                        // row 0: an all-zero block
  for (int k = 0; k < K; ++k) w[std::size_t(1) * K + k] = k % 2 ? 1.0f : -1.0f;     // row 1: only q = 0 and 15
  for (int k = 0; k < K; ++k) w[std::size_t(2) * K + k] += 1000.0f;                 // row 2: min far from zero
  for (int k = 0; k < K; ++k) w[std::size_t(3) * K + k] *= 1e-30f;                  // row 3: tiny weights
  for (int k = 0; k < K; ++k) w[std::size_t(4) * K + k] = k < 64 ? 3e4f : -3e4f;   // row 4: constant blocks
  const Matrix W(w, N, K);
  for (int k = 0; k < K; ++k)
    CHECK(q4_nibble(W.q4.data() + q4_offsets(N, K, 1, k / 32).nibbles, k % 32) == (k % 2 ? 15 : 0));
  std::vector<float> x = rng.vec(std::size_t(M) * (K + 3), -1, 1);
  for (int k = 0; k < 32; ++k) x[k] *= 1e20f;                                      // x row 0: a huge block,
  for (int k = 32; k < 64; ++k) x[k] *= 1e-20f;                                    //   a tiny one,
  for (int k = 64; k < 96; ++k) x[k] = 0.0f;                                       //   a zero one
  for (int k = 0; k < K; ++k) x[std::size_t(1) * (K + 3) + k] = 0.0f;              // x row 1: all zero
  x[std::size_t(2) * (K + 3) + 100] = 1e-30f;                                      // x row 2: one tiny value
  for (bool acc : {false, true}) {
    INFO("acc=" << acc);
    CHECK(W.compare(Format::q4, x, M, acc, 1e-4) <= 1.0);
  }
  std::vector<float> y(std::size_t(M) * N, 7.0f);
  W.run(Format::q4, true, x.data(), M, y.data(), false, K + 3, N);
  for (int n = 0; n < N; ++n) CHECK(y[std::size_t(1) * N + n] == 0.0f);  // zero x: zero, whatever the min
}

TEST_CASE("quantize_q4 keeps every weight within half a step of its block (w = S·q − M); dequantize_q4 reads it") {
  Rng rng(43);
  for (int K : {1, 31, 33, 100, 273}) {
    const int N = 6;
    std::vector<float> w = rng.vec(std::size_t(N) * K, -2, 2);
    for (int k = 0; k < K; ++k) w[std::size_t(3) * K + k] = 50.0f + 0.01f * w[std::size_t(3) * K + k];
    std::vector<std::uint8_t> q(q4_bytes(N, K));
    quantize_q4(w.data(), N, K, q.data());
    std::vector<float> back(w.size());
    dequantize_q4(q.data(), N, K, back.data());
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const Q4Offsets at = q4_offsets(N, K, n, k / kQ4Block);
        const float S = q4_float(q.data(), at.scale), Mn = q4_float(q.data(), at.min);
        const std::size_t i = std::size_t(n) * K + k;
        INFO("K=" << K << " n=" << n << " k=" << k);
        CHECK(back[i] == S * float(q4_nibble(q.data() + at.nibbles, k % kQ4Block)) - Mn);
        CHECK(std::fabs(back[i] - w[i]) <= 0.5 * S + 1e-6 * (std::fabs(Mn) + 15 * S));
      }
  }
}

TEST_CASE("Q4 stays near float: the product of a quantised matrix is within a few steps of the float one") {
  Rng rng(44);
  const int K = 256, N = 16;
  const Matrix W(rng.vec(std::size_t(N) * K), N, K);
  const std::vector<float> x = rng.vec(K);
  std::vector<float> yf(N), yq(N);
  W.run(Format::f32, true, x.data(), 1, yf.data(), false, 0, 0);
  W.run(Format::q4, true, x.data(), 1, yq.data(), false, 0, 0);
  // each weight moves by at most S/2 = 1/15 here, independently: the sum of 256 such moves stays well inside 1.5
  for (int n = 0; n < N; ++n) CHECK(std::fabs(yq[n] - yf[n]) <= 1.5f);
}

TEST_CASE("Q4: the rows from a multiple of four on are a Q4 matrix themselves (q4_rows), as chunked products read them") {
  Rng rng(45);
  const int N = 11, K = 70;
  const auto w = rng.vec(std::size_t(N) * K);
  std::vector<std::uint8_t> q(q4_bytes(N, K));
  quantize_q4(w.data(), N, K, q.data());
  std::vector<float> all(w.size());
  dequantize_q4(q.data(), N, K, all.data());
  const auto x = rng.vec(std::size_t(2) * K);
  for (int n0 : {4, 8}) {
    const int rows = N - n0;
    std::vector<float> part(std::size_t(rows) * K);
    dequantize_q4(q4_rows(q.data(), K, n0), rows, K, part.data());
    CHECK(std::equal(part.begin(), part.end(), all.begin() + std::size_t(n0) * K));
    std::vector<float> y_all(std::size_t(2) * N), y_part(std::size_t(2) * rows);
    matvec_q4(x.data(), 2, K, q.data(), N, y_all.data(), false);
    matvec_q4(x.data(), 2, K, q4_rows(q.data(), K, n0), rows, y_part.data(), false);
    for (int m = 0; m < 2; ++m)
      for (int r = 0; r < rows; ++r) CHECK(y_part[std::size_t(m) * rows + r] == y_all[std::size_t(m) * N + n0 + r]);
  }
}
