// Head-score tests on hand-built attention patterns whose scores are known exactly: a previous-token head,
// a start-mark head, a uniform head (which must equal the even-spread baseline) and an induction head; and
// measure_heads on a random-weight model against plain loops over its attention.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "model/errors.hpp"
#include "model/head_scores.hpp"
#include "model/session.hpp"
#include "model_fixtures.hpp"

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
  CHECK(r.previous_token.score[0] == doctest::Approx(1.0));
  CHECK(r.previous_token.score[1] == doctest::Approx(0.0));
  CHECK(r.start_mark.score[1] == doctest::Approx(1.0));
  CHECK(r.start_mark.score[0] == doctest::Approx(0.0));
  CHECK(r.previous_token.score[2] == doctest::Approx(r.previous_token.even));
  CHECK(r.start_mark.score[2] == doctest::Approx(r.start_mark.even));
  CHECK(r.four_or_more_back.score[2] == doctest::Approx(r.four_or_more_back.even));
  CHECK(r.four_or_more_back.score[1] == doctest::Approx(0.0));  // the start mark is not "far back": it is its own habit
  CHECK(r.four_or_more_back.score[0] == doctest::Approx(0.0));
  CHECK(r.four_or_more_back.count == (5 - 5) + (12 - 5) + (30 - 5));  // queries t >= 5: at least one key 1..t-4
  double even = 0;
  for (int T : {12, 30}) for (int t = 5; t < T; ++t) even += (t - 4) / double(t + 1);
  CHECK(r.four_or_more_back.even == doctest::Approx(even / r.four_or_more_back.count));
  CHECK(r.previous_token.count == (5 - 2) + (12 - 2) + (30 - 2));
  const auto best = best_heads(r.previous_token, 3, 2);
  REQUIRE(best.size() == 2);
  CHECK(best[0].first == "0.0");
}

TEST_CASE("induction score: a head that looks at the token after the earlier copy scores 1") {
  const int n = 6, T = 2 * n + 1;
  std::vector<float> a(std::size_t(3) * T * T, 0.0f);  // L=3, H=1
  for (int t = 0; t < T; ++t) {
    const int target = t >= n + 1 ? t - n + 1 : t;
    a[(std::size_t(0) * T + t) * T + target] = 1.0f;               // layer 0: induction
    a[(std::size_t(1) * T + t) * T + (t ? t - 1 : 0)] = 1.0f;      // layer 1: previous token
    if (t <= n) a[(std::size_t(2) * T + t) * T + 0] = 1.0f;       // layer 2: start mark on the first copy,
    else a[(std::size_t(2) * T + t) * T + t] = 1.0f;               // itself on the second
  }
  HeadScoreAccumulator acc(3, 1);
  acc.add_repeat(a.data(), n);
  const HeadScores r = acc.result();
  CHECK(r.induction.score[0] == doctest::Approx(1.0));
  CHECK(r.induction.score[1] == doctest::Approx(0.0));
  CHECK(r.induction.score[2] == doctest::Approx(0.0));
  CHECK(r.induction.count == n);
  CHECK(r.induction.even < 0.15);
  CHECK(r.start_mark_on_random_tokens.score[2] == doctest::Approx(1.0));
  CHECK(r.start_mark_on_random_tokens.score[0] == doctest::Approx(0.0));
  CHECK(r.start_mark_on_random_tokens.score[1] == doctest::Approx(0.0));
  CHECK(r.start_mark_on_random_tokens.count == n - 1);  // queries 2..n
  double even = 0;
  for (int t = 2; t <= n; ++t) even += 1.0 / (t + 1);
  CHECK(r.start_mark_on_random_tokens.even == doctest::Approx(even / (n - 1)));
  CHECK(r.previous_token_on_random_tokens.score[1] == doctest::Approx(1.0));  // the previous-token head, on the first copy
  CHECK(r.previous_token_on_random_tokens.score[0] == doctest::Approx(0.0));  // the induction head looks at itself there
  CHECK(r.previous_token_on_random_tokens.score[2] == doctest::Approx(0.0));
  CHECK(r.previous_token_on_random_tokens.count == n - 1);
  CHECK(r.previous_token_on_random_tokens.even == doctest::Approx(r.start_mark_on_random_tokens.even));
  CHECK_THROWS_AS(HeadScoreAccumulator(0, 1), ModelError);
}

TEST_CASE("random repeated sequences for the induction test") {
  const auto ids = random_repeat(5, 50, 258, 2048);
  REQUIRE(ids.size() == 100);
  CHECK(std::equal(ids.begin(), ids.begin() + 50, ids.begin() + 50));
  CHECK(std::all_of(ids.begin(), ids.end(), [](int id) { return id >= 258 && id < 2048; }));
  CHECK(ids == random_repeat(5, 50, 258, 2048));
  CHECK(ids != random_repeat(6, 50, 258, 2048));
  CHECK(std::set<int>(ids.begin(), ids.end()).size() > 40);
  CHECK(random_repeat(1, 0, 0, 1).empty());
  CHECK_THROWS_AS(random_repeat(1, 10, 5, 5), ModelError);
  CHECK_THROWS_AS(random_repeat(1, -1, 0, 10), ModelError);
}

TEST_CASE("measure_heads equals the scores read straight off the model's attention") {
  const ModelConfig c = testing::test_configs()[0].config;
  Session s(testing::random_model(c, 77));
  const std::vector<std::vector<int>> texts = {{c.bos_id, 5, 9, 12, 7, 3, 8}, {c.bos_id, 4, 4, 4, 10, 11}};
  const int n = 5, repeats = 3;
  const HeadScores r = measure_heads(s, texts, repeats, n, 9, 2);
  const int LH = c.n_layers * c.n_heads;
  std::vector<double> prev(LH), first(LH), far(LH), ind(LH), idle(LH), idle_prev(LH);
  long rows = 0, far_rows = 0, ind_rows = 0, idle_rows = 0;
  StepOptions o;
  o.attention = true;
  for (const auto& ids : texts) {  // reference: plain loops over the attention of a fresh session
    Session fresh(testing::random_model(c, 77));
    fresh.process(ids, o);
    const int T = int(ids.size());
    const std::vector<float> attention = fresh.attention();  // [L*H, T, T]
    const float* a = attention.data();
    for (int t = 2; t < T; ++t, ++rows) {
      if (t >= 5) ++far_rows;
      for (int lh = 0; lh < LH; ++lh) {
        const float* row = a + (std::size_t(lh) * T + t) * T;
        prev[lh] += row[t - 1], first[lh] += row[0];
        if (t >= 5) for (int k = 1; k <= t - 4; ++k) far[lh] += row[k];
      }
    }
  }
  for (int rep = 0; rep < repeats; ++rep) {
    std::vector<int> ids = {c.bos_id};
    for (int id : random_repeat(9 + rep, n, 2, c.vocab_size)) ids.push_back(id);
    Session fresh(testing::random_model(c, 77));
    fresh.process(ids, o);
    const int T = int(ids.size());
    const std::vector<float> attention = fresh.attention();  // [L*H, T, T]
    for (int t = n + 1; t < T; ++t, ++ind_rows)
      for (int lh = 0; lh < LH; ++lh) ind[lh] += attention[(std::size_t(lh) * T + t) * T + (t - n + 1)];
    for (int t = 2; t <= n; ++t, ++idle_rows)
      for (int lh = 0; lh < LH; ++lh) {
        const float* row = attention.data() + (std::size_t(lh) * T + t) * T;
        idle[lh] += row[0], idle_prev[lh] += row[t - 1];
      }
  }
  REQUIRE(r.previous_token.count == rows);
  REQUIRE(r.induction.count == ind_rows);
  REQUIRE(r.start_mark_on_random_tokens.count == idle_rows);
  for (int lh = 0; lh < LH; ++lh) {
    CHECK(r.previous_token.score[lh] == doctest::Approx(prev[lh] / rows).epsilon(1e-5));
    CHECK(r.start_mark.score[lh] == doctest::Approx(first[lh] / rows).epsilon(1e-5));
    CHECK(r.four_or_more_back.score[lh] == doctest::Approx(far[lh] / far_rows).epsilon(1e-5));
    CHECK(r.induction.score[lh] == doctest::Approx(ind[lh] / ind_rows).epsilon(1e-5));
    CHECK(r.start_mark_on_random_tokens.score[lh] == doctest::Approx(idle[lh] / idle_rows).epsilon(1e-5));
    CHECK(r.previous_token_on_random_tokens.score[lh] == doctest::Approx(idle_prev[lh] / idle_rows).epsilon(1e-5));
  }
  CHECK_THROWS_AS(measure_heads(s, texts, 1, c.max_seq_len, 9, 2), ModelError);  // cannot fit twice
}
