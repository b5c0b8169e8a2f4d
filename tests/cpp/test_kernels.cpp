// Kernel tests: every vectorised kernel against its scalar `_ref` twin at sizes around the vector width,
// plus inputs built to break naive code (logits near 100, -inf, fully masked rows, T = 1, odd D).
// Runs natively and in WebAssembly under Node (the same file, two builds).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "lookback/kernels.hpp"
#include "lookback/scan.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;
using lookback::testing::sizes_around;

namespace {
const float NINF = -std::numeric_limits<float>::infinity();
int W() { return int(simd_width()); }
}  // namespace

TEST_CASE("simd width is a power of two of at least 4") {
  const int w = W();
  MESSAGE("simd width: " << w << " floats");
  CHECK(w >= 4);
  CHECK((w & (w - 1)) == 0);
}

TEST_CASE("gemm_nn, gemm_nt and gemm_tn match their references around the vector width and the tile height") {
  Rng rng(1);
  for (int M : {1, 3, 7, 13, 25}) {
    for (int N : sizes_around(W())) {
      for (int K : {1, W() - 1, W() + 3, 300}) {
        for (bool acc : {false, true}) {
          const int lda = K + 2, ldb_nn = N + 1, ldb_nt = K + 3, ldc = N + 5;
          auto A = rng.vec(std::size_t(M) * lda), Bn = rng.vec(std::size_t(K) * ldb_nn),
               Bt = rng.vec(std::size_t(N) * ldb_nt), C0 = rng.vec(std::size_t(M) * ldc);
          auto c1 = C0, c2 = C0;
          gemm_nn(M, N, K, A.data(), lda, Bn.data(), ldb_nn, c1.data(), ldc, acc);
          gemm_nn_ref(M, N, K, A.data(), lda, Bn.data(), ldb_nn, c2.data(), ldc, acc);
          INFO("nn M=" << M << " N=" << N << " K=" << K << " acc=" << acc);
          CHECK(closeness(c1, c2, 1e-4, 1e-4) <= 1.0);  // includes the untouched padding columns
          c1 = C0, c2 = C0;
          gemm_nt(M, N, K, A.data(), lda, Bt.data(), ldb_nt, c1.data(), ldc, acc);
          gemm_nt_ref(M, N, K, A.data(), lda, Bt.data(), ldb_nt, c2.data(), ldc, acc);
          CHECK(closeness(c1, c2, 1e-4, 1e-4) <= 1.0);
          // tn: A is [K, M] with leading dimension M + 3
          const int lda_tn = M + 3;
          auto At = rng.vec(std::size_t(K) * lda_tn);
          c1 = C0, c2 = C0;
          gemm_tn(M, N, K, At.data(), lda_tn, Bn.data(), ldb_nn, c1.data(), ldc, acc);
          gemm_tn_ref(M, N, K, At.data(), lda_tn, Bn.data(), ldb_nn, c2.data(), ldc, acc);
          CHECK(closeness(c1, c2, 1e-4, 1e-4) <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("gemm with K = 0 writes zeros, or leaves C alone when accumulating") {
  std::vector<float> C(6, 5.0f), A(1), B(1);
  gemm_nn(2, 3, 0, A.data(), 1, B.data(), 3, C.data(), 3, true);
  CHECK(C[0] == 5.0f);
  gemm_nn(2, 3, 0, A.data(), 1, B.data(), 3, C.data(), 3, false);
  CHECK(std::accumulate(C.begin(), C.end(), 0.0f) == 0.0f);
}

TEST_CASE("dot matches its reference around the vector width") {
  Rng rng(2);
  for (int n : sizes_around(W())) {
    auto a = rng.vec(n), b = rng.vec(n);
    CHECK(dot(a.data(), b.data(), n) == doctest::Approx(dot_ref(a.data(), b.data(), n)).epsilon(1e-5));
  }
  CHECK(dot(nullptr, nullptr, 0) == 0.0f);
}

TEST_CASE("the argument scans match their references around the vector width, wherever a bad value sits") {
  Rng rng(21);
  const float PINF = std::numeric_limits<float>::infinity(), NAN_ = std::numeric_limits<float>::quiet_NaN();
  auto sizes = sizes_around(W());
  for (int n : sizes_around(4 * W())) sizes.push_back(n);  // the scan checks blocks of 4 vectors
  for (int n : sizes) {
    auto x = rng.vec(n, -3.0f, 3.0f);
    CHECK(first_nonfinite(x.data(), n, false) == std::size_t(n));
    CHECK(max_abs_finite(x.data(), n) == max_abs_finite_ref(x.data(), n));
    bool fine = false;
    CHECK(max_abs_finite(x.data(), n, &fine) == max_abs_finite_ref(x.data(), n));
    CHECK(fine);
    for (int at : {0, n / 2, n - 1}) {
      if (at < 0 || at >= n) continue;
      for (float bad : {NAN_, PINF, NINF, 3.0e38f, -3.0e38f}) {
        auto y = x;
        y[at] = bad;
        if (n > 1) y[(at + 1) % n] = NINF;  // a second bad value elsewhere: the first index must win
        INFO("n=" << n << " at=" << at << " bad=" << bad);
        for (bool allow : {false, true})
          CHECK(first_nonfinite(y.data(), n, allow) == first_nonfinite_ref(y.data(), n, allow));
        CHECK(max_abs_finite(y.data(), n) == max_abs_finite_ref(y.data(), n));
        bool fine = true, fine_ref = true;
        CHECK(max_abs_finite(y.data(), n, &fine) == max_abs_finite_ref(y.data(), n, &fine_ref));
        CHECK(fine == fine_ref);
        CHECK(fine == (std::isfinite(bad) && n == 1));  // n > 1 holds a second, -Inf
      }
    }
  }
  // Every value finite, the largest anywhere and of either sign, or tiny (subnormal, -0): the same maximum.
  for (int n : sizes) {
    for (int at : {0, n / 2, n - 1}) {
      for (float big : {3.0e38f, -3.0e38f, std::numeric_limits<float>::max(), -4.5f}) {
        auto y = rng.vec(n, -3.0f, 3.0f);
        y[at] = big;
        bool fine = false;
        INFO("n=" << n << " at=" << at << " big=" << big);
        CHECK(max_abs_finite(y.data(), n, &fine) == std::fabs(big));
        CHECK(fine);
      }
      std::vector<float> tiny(std::size_t(n), -0.0f);
      tiny[std::size_t(at)] = -1.0e-40f;
      CHECK(max_abs_finite(tiny.data(), n) == max_abs_finite_ref(tiny.data(), n));
      CHECK(max_abs_finite(tiny.data(), n) == 1.0e-40f);
    }
  }
  const float all_bad[] = {NAN_, PINF, NINF};
  CHECK(max_abs_finite(all_bad, 3) == 0.0f);
  CHECK(first_nonfinite(all_bad, 3, true) == 0);
  CHECK(first_nonfinite(nullptr, 0, false) == 0);
  CHECK(max_abs_finite(nullptr, 0) == 0.0f);
  bool fine = true;
  CHECK(max_abs_finite(all_bad, 3, &fine) == 0.0f);
  CHECK(!fine);
  CHECK(max_abs_finite(nullptr, 0, &fine) == 0.0f);
  CHECK(fine);
}

TEST_CASE("softmax_rows matches its reference, including logits near 100 and -inf") {
  Rng rng(3);
  for (int C : sizes_around(W())) {
    for (float lo : {-3.0f, 95.0f}) {
      const int R = 5;
      auto x = rng.vec(std::size_t(R) * C, lo, lo + 6.0f);
      x[0] = NINF;                                  // one masked entry in row 0
      for (int c = 0; c < C; ++c) x[C + c] = NINF;  // row 1 fully masked
      for (float temp : {1.0f, 0.3f, 4.0f}) {
        auto a = x, b = x;
        const int ea = softmax_rows(a.data(), R, C, temp), eb = softmax_rows_ref(b.data(), R, C, temp);
        INFO("C=" << C << " lo=" << lo << " T=" << temp);
        const int expected_empty = C == 1 ? 2 : 1;  // with one column, row 0's -inf masks it fully
        CHECK(ea == expected_empty);
        CHECK(eb == expected_empty);
        CHECK(closeness(a, b, 1e-6, 1e-5) <= 1.0);
        CHECK(a[0] == 0.0f);                          // exact zero at -inf
        for (int c = 0; c < C; ++c) CHECK(a[C + c] == 0.0f);
        for (int r = 0; r < R; ++r) {
          if (r == 1) continue;
          double s = 0;
          for (int c = 0; c < C; ++c) {
            REQUIRE(std::isfinite(a[std::size_t(r) * C + c]));
            s += a[std::size_t(r) * C + c];
          }
          if (!(r == 0 && C == 1)) CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
        }
      }
    }
  }
}

TEST_CASE("softmax of equal logits is uniform; of huge logits has no NaN") {
  std::vector<float> x(7, 100.0f);
  softmax_rows(x.data(), 1, 7, 1.0f);
  for (float v : x) CHECK(v == doctest::Approx(1.0 / 7));
  std::vector<float> y = {1e30f, -1e30f, 3e38f, 0.0f};
  softmax_rows(y.data(), 1, 4, 1.0f);
  CHECK(y[2] == 1.0f);
  CHECK(y[0] == 0.0f);
}

TEST_CASE("masks: causal with offset, padding, apply") {
  std::vector<std::uint8_t> m(2 * 4);
  causal_mask(m.data(), 2, 4);  // queries at positions 2 and 3
  CHECK(m == std::vector<std::uint8_t>{1, 1, 1, 0, 1, 1, 1, 1});
  padding_mask(m.data(), 2, 4, 3);
  CHECK(m == std::vector<std::uint8_t>{1, 1, 1, 0, 1, 1, 1, 0});
  std::vector<float> x(8, 2.0f);
  apply_mask(x.data(), m.data(), 2, 4);
  CHECK(x[3] == NINF);
  CHECK(x[2] == 2.0f);
}

TEST_CASE("scores and blend match their references") {
  Rng rng(4);
  for (int D : {1, 3, W(), W() + 1, 32}) {
    for (int T : {1, 5, 33}) {
      const int S = T + 2, H = 3;
      auto q = rng.vec(std::size_t(T) * H * D), k = rng.vec(std::size_t(S) * H * D), v = rng.vec(std::size_t(S) * H * D);
      std::vector<float> s1(std::size_t(H) * T * S), s2 = s1;
      scores(q.data(), k.data(), s1.data(), T, S, H, D, 0.5f);
      scores_ref(q.data(), k.data(), s2.data(), T, S, H, D, 0.5f);
      CHECK(closeness(s1, s2, 1e-5, 1e-4) <= 1.0);
      std::vector<float> o1(std::size_t(T) * H * D), o2 = o1;
      blend(s1.data(), v.data(), o1.data(), T, S, H, D);
      blend_ref(s1.data(), v.data(), o2.data(), T, S, H, D);
      CHECK(closeness(o1, o2, 1e-5, 1e-4) <= 1.0);
    }
  }
}

TEST_CASE("attention matches its reference: causal or not, grouped heads, strides, masks, offsets") {
  Rng rng(5);
  for (int D : {1, 3, W(), W() + 1, 32, 64}) {
    for (int T : {1, 2, W() + 1, 31, 32, 33, 70}) {
      for (int extra : {0, 5}) {        // keys before the queries (a cache): S = T + extra
        for (int Hkv : {1, 2}) {
          AttentionShape a;
          a.T = T, a.S = T + extra, a.H = 4, a.Hkv = Hkv, a.D = D, a.causal = (extra % 2 == 0) || T > 1;
          a.ldq = a.H * D + 3;  // token stride larger than the row (q lives inside a wider buffer)
          a.scale = 1.0f / std::sqrt(float(D));
          a.temperature = extra ? 0.7f : 1.0f;
          auto q = rng.vec(std::size_t(T) * a.ldq, -2, 2), k = rng.vec(std::size_t(a.S) * Hkv * D, -2, 2),
               v = rng.vec(std::size_t(a.S) * Hkv * D);
          std::vector<float> o1(std::size_t(T) * a.H * D), o2 = o1, w1(std::size_t(a.H) * T * a.S, 7.0f), w2 = w1;
          const int e1 = attention(q.data(), k.data(), v.data(), o1.data(), w1.data(), a);
          const int e2 = attention_ref(q.data(), k.data(), v.data(), o2.data(), w2.data(), a);
          INFO("D=" << D << " T=" << T << " S=" << a.S << " Hkv=" << Hkv << " causal=" << a.causal);
          CHECK(e1 == e2);
          CHECK(closeness(o1, o2, 1e-5, 1e-4) <= 1.0);
          CHECK(closeness(w1, w2, 1e-6, 1e-4) <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("attention with logits near 100, a caller mask and fully masked rows") {
  Rng rng(6);
  AttentionShape a;
  a.T = 9, a.S = 9, a.H = 2, a.Hkv = 2, a.D = 5, a.causal = true, a.scale = 1.0f;
  auto q = rng.vec(9 * 10, 4.0f, 4.5f), k = rng.vec(9 * 10, 4.0f, 4.5f), v = rng.vec(9 * 10);  // scores ~ 100
  std::vector<std::uint8_t> mask(81, 1);
  for (int s = 0; s < 9; ++s) mask[3 * 9 + s] = 0;  // query 3 sees nothing
  mask[5 * 9 + 0] = 0;
  std::vector<float> o1(90), o2(90), w1(2 * 81), w2(2 * 81);
  const int e1 = attention(q.data(), k.data(), v.data(), o1.data(), w1.data(), a, mask.data());
  const int e2 = attention_ref(q.data(), k.data(), v.data(), o2.data(), w2.data(), a, mask.data());
  CHECK(e1 == 2);  // query 3 in both heads
  CHECK(e2 == 2);
  CHECK(closeness(o1, o2, 1e-5, 1e-4) <= 1.0);
  CHECK(closeness(w1, w2, 1e-6, 1e-4) <= 1.0);
  for (int h = 0; h < 2; ++h)
    for (int s = 0; s < 9; ++s) CHECK(w1[(h * 9 + 3) * 9 + s] == 0.0f);
  for (int d = 0; d < 10; ++d) CHECK(o1[3 * 10 + d] == 0.0f);
  for (int h = 0; h < 2; ++h) {
    CHECK(w1[(h * 9 + 5) * 9 + 0] == 0.0f);
    CHECK(w1[(h * 9 + 4) * 9 + 5] == 0.0f);  // the future is exactly zero
  }
}

TEST_CASE("attention for one or two queries (decoding): long caches, logits near 100, rows with nothing visible") {
  Rng rng(16);
  for (int T : {1, 2})
    for (int S : {T, T + 1, 3 * W() + 1, 257})
      for (int D : {1, W() - 1, 8, 48, 64}) {
        AttentionShape a;
        a.T = T, a.S = S, a.H = 4, a.Hkv = 2, a.D = D, a.causal = true, a.scale = 1.0f;
        a.ldk = a.ldv = 2 * D + 1;  // the cache's rows are wider than the heads
        auto q = rng.vec(std::size_t(T) * 4 * D, 4.0f, 4.5f), k = rng.vec(std::size_t(S) * a.ldk, 4.0f, 4.5f),
             v = rng.vec(std::size_t(S) * a.ldv);
        if (D == 1) a.scale = 100.0f / 18.0f;  // scores near 100 at every width
        else a.scale = 100.0f / (18.0f * float(D));
        std::vector<std::uint8_t> mask(std::size_t(T) * S, 1);
        for (int s = 0; s < S; ++s) mask[s] = 0;  // query 0 sees nothing
        if (T == 2) mask[std::size_t(S) + std::size_t(S - 1)] = 0;
        std::vector<float> o1(std::size_t(T) * 4 * D, 5.0f), o2 = o1, w1(std::size_t(4) * T * S, 7.0f), w2 = w1;
        INFO("T=" << T << " S=" << S << " D=" << D);
        const int e1 = attention(q.data(), k.data(), v.data(), o1.data(), w1.data(), a, mask.data());
        const int e2 = attention_ref(q.data(), k.data(), v.data(), o2.data(), w2.data(), a, mask.data());
        CHECK(e1 == 4);  // query 0 in every head
        CHECK(e2 == 4);
        CHECK(closeness(o1, o2, 1e-5, 1e-4) <= 1.0);
        CHECK(closeness(w1, w2, 1e-6, 1e-4) <= 1.0);
        for (int h = 0; h < 4; ++h)
          for (int d = 0; d < D; ++d) CHECK(o1[std::size_t(h) * D + d] == 0.0f);
      }
}

TEST_CASE("causal attention: editing a later token never changes an earlier output") {
  Rng rng(7);
  AttentionShape a;
  a.T = a.S = 12, a.H = 2, a.Hkv = 2, a.D = 4, a.causal = true, a.scale = 0.5f;
  auto q = rng.vec(12 * 8), k = rng.vec(12 * 8), v = rng.vec(12 * 8);
  std::vector<float> o1(96), o2(96);
  attention(q.data(), k.data(), v.data(), o1.data(), nullptr, a);
  for (int d = 0; d < 8; ++d) k[10 * 8 + d] += 3.0f, v[10 * 8 + d] -= 2.0f, q[10 * 8 + d] *= -1.0f;
  attention(q.data(), k.data(), v.data(), o2.data(), nullptr, a);
  for (int i = 0; i < 10 * 8; ++i) CHECK(o1[i] == o2[i]);
  bool changed = false;
  for (int i = 10 * 8; i < 96; ++i) changed |= o1[i] != o2[i];
  CHECK(changed);
}
