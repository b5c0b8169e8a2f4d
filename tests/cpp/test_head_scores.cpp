// Head-score tests on hand-built attention patterns whose scores are known exactly: a previous-token head,
// a start-mark head, a uniform head (which must equal the even-spread baseline) and an induction head.
#include <doctest/doctest.h>

#include <vector>

#include "model/errors.hpp"
#include "model/head_scores.hpp"

using namespace lookback;

namespace {
// attention [L=1, H=3, T, T]: head 0 looks at t-1 (t>=1), head 1 at position 0, head 2 uniformly.
std::vector<float> patterned(int T) {
  std::vector<float> a(std::size_t(3) * T * T, 0.0f);
  for (int t = 0; t < T; ++t) {
    a[(std::size_t(0) * T + t) * T + (t ? t - 1 : 0)] = 1.0f;
    a[(std::size_t(1) * T + t) * T + 0] = 1.0f;
    for (int s = 0; s <= t; ++s) a[(std::size_t(2) * T + t) * T + s] = 1.0f / (t + 1);
  }
  return a;
}
}  // namespace

TEST_CASE("head scores of known patterns") {
  HeadScoreAccumulator acc(1, 3);
  for (int T : {5, 12, 30}) acc.add_text(patterned(T).data(), T);
  const HeadScores r = acc.result();
  CHECK(r.previous.score[0] == doctest::Approx(1.0));
  CHECK(r.previous.score[1] == doctest::Approx(0.0));
  CHECK(r.first.score[1] == doctest::Approx(1.0));
  CHECK(r.first.score[0] == doctest::Approx(0.0));
  CHECK(r.previous.score[2] == doctest::Approx(r.previous.even));
  CHECK(r.first.score[2] == doctest::Approx(r.first.even));
  CHECK(r.far.score[2] == doctest::Approx(r.far.even));
  CHECK(r.far.score[1] == doctest::Approx(1.0));  // position 0 is at least 4 back from every t >= 4
  CHECK(r.far.score[0] == doctest::Approx(0.0));
  CHECK(r.previous.count == (5 - 2) + (12 - 2) + (30 - 2));
  const auto best = best_heads(r.previous, 3, 2);
  REQUIRE(best.size() == 2);
  CHECK(best[0].first == "0.0");
}

TEST_CASE("induction score: a head that looks at the token after the earlier copy scores 1") {
  const int n = 6, T = 2 * n + 1;
  std::vector<float> a(std::size_t(2) * T * T, 0.0f);  // L=2, H=1
  for (int t = 0; t < T; ++t) {
    const int target = t >= n + 1 ? t - n + 1 : t;
    a[(std::size_t(0) * T + t) * T + target] = 1.0f;               // layer 0: induction
    a[(std::size_t(1) * T + t) * T + (t ? t - 1 : 0)] = 1.0f;      // layer 1: previous token
  }
  HeadScoreAccumulator acc(2, 1);
  acc.add_repeat(a.data(), n);
  const HeadScores r = acc.result();
  CHECK(r.induction.score[0] == doctest::Approx(1.0));
  CHECK(r.induction.score[1] == doctest::Approx(0.0));
  CHECK(r.induction.count == n);
  CHECK(r.induction.even < 0.15);
  CHECK_THROWS_AS(HeadScoreAccumulator(0, 1), ModelError);
}
