// Tests of attention_row_ref (one row of the reference attention with its intermediates, shown by the chapter's
// code walk) and of the order blindness the chapter's shuffle widget shows: one causal attention layer gives a
// later query the same output when the keys before it are shuffled. Runs natively and in WebAssembly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "lookback/attention_row.hpp"
#include "lookback/kernels.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;

TEST_CASE("attention_row_ref: its intermediates agree with each other and with attention") {
  Rng rng(11);
  AttentionShape a;
  a.T = 6, a.S = 8, a.H = 4, a.Hkv = 2, a.D = 5, a.causal = true, a.scale = 0.4f, a.temperature = 0.8f;
  auto q = rng.vec(6 * 4 * 5, -2, 2), k = rng.vec(8 * 2 * 5, -2, 2), v = rng.vec(8 * 2 * 5);
  std::vector<float> out(6 * 4 * 5), w(4 * 6 * 8);
  attention(q.data(), k.data(), v.data(), out.data(), w.data(), a);
  AttentionRow r;
  for (int h = 0; h < a.H; ++h)
    for (int t = 0; t < a.T; ++t) {
      REQUIRE(attention_row_ref(q.data(), k.data(), v.data(), a, nullptr, h, t, r));
      const int seen = t + (a.S - a.T) + 1;
      double sum = 0, total = 0;
      for (int s = 0; s < a.S; ++s) {
        if (s >= seen) {
          CHECK(std::isinf(r.score[s]));
          CHECK(r.e[s] == 0.0);
          CHECK(r.weight[s] == 0.0);
          continue;
        }
        CHECK(r.score[s] <= r.max);
        CHECK(r.e[s] == std::exp(r.score[s] - r.max));
        sum += r.e[s];
        total += r.weight[s];
        CHECK(r.weight[s] == doctest::Approx(w[(h * a.T + t) * a.S + s]).epsilon(1e-5));
      }
      CHECK(r.sum == doctest::Approx(sum));
      CHECK(total == doctest::Approx(1.0));
      CHECK(*std::max_element(r.score.begin(), r.score.end()) == r.max);
      for (int d = 0; d < a.D; ++d) CHECK(r.out[d] == doctest::Approx(out[(t * a.H + h) * a.D + d]).epsilon(1e-4));
    }
}

TEST_CASE("attention_row_ref: a row that sees nothing is all zeros and says so") {
  AttentionShape a;
  a.T = a.S = 3, a.H = a.Hkv = 1, a.D = 2;
  std::vector<float> q(6, 1.0f), k(6, 1.0f), v(6, 2.0f);
  std::vector<std::uint8_t> mask(9, 1);
  mask[3] = mask[4] = mask[5] = 0;
  AttentionRow r;
  CHECK_FALSE(attention_row_ref(q.data(), k.data(), v.data(), a, mask.data(), 0, 1, r));
  CHECK(r.sum == 0.0);
  for (double x : r.weight) CHECK(x == 0.0);
  for (double x : r.out) CHECK(x == 0.0);
  CHECK(attention_row_ref(q.data(), k.data(), v.data(), a, mask.data(), 0, 2, r));
}

TEST_CASE("one causal attention layer: shuffling the keys before a query leaves its output unchanged") {
  Rng rng(12);
  AttentionShape a;
  a.T = a.S = 9, a.H = 2, a.Hkv = 2, a.D = 7, a.causal = true, a.scale = 0.5f;
  const int C = a.H * a.D;
  auto q = rng.vec(9 * C, -2, 2), k = rng.vec(9 * C, -2, 2), v = rng.vec(9 * C);
  // tokens 1..6 reversed; token 0 and the queries 7, 8 stay where they are
  std::vector<int> order(9);
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin() + 1, order.begin() + 7);
  std::vector<float> q2(q.size()), k2(k.size()), v2(v.size());
  for (int i = 0; i < 9; ++i)
    for (int c = 0; c < C; ++c) {
      q2[i * C + c] = q[order[i] * C + c];
      k2[i * C + c] = k[order[i] * C + c];
      v2[i * C + c] = v[order[i] * C + c];
    }
  std::vector<float> o1(9 * C), o2(9 * C);
  attention(q.data(), k.data(), v.data(), o1.data(), nullptr, a);
  attention(q2.data(), k2.data(), v2.data(), o2.data(), nullptr, a);
  for (int t : {7, 8})
    for (int c = 0; c < C; ++c) CHECK(o2[t * C + c] == doctest::Approx(o1[t * C + c]).epsilon(1e-5));
  // an earlier token sees a different set of keys, so its output moves
  double moved = 0;
  for (int c = 0; c < C; ++c) moved = std::max(moved, double(std::fabs(o2[2 * C + c] - o1[order[2] * C + c])));
  CHECK(moved > 1e-3);
}
