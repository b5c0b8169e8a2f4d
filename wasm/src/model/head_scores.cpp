// Accumulates per-head attention habits over texts (see head_scores.hpp).
#include "model/head_scores.hpp"

#include <algorithm>
#include <numeric>

#include "model/errors.hpp"
#include "model/rng.hpp"
#include "model/session.hpp"
#include "model/tokenizer.hpp"

namespace lookback {
namespace {

void init(HeadHabit& h, int n) { h.score.assign(n, 0.0); }

}  // namespace

HeadHabit average(const HeadHabit& h) {
  HeadHabit out = h;
  if (h.count == 0) return out;
  for (double& s : out.score) s /= double(h.count);
  out.even = h.even / double(h.count);
  return out;
}

HeadScoreAccumulator::HeadScoreAccumulator(int L, int H) : L_(L), H_(H) {
  if (L < 1 || H < 1) model_error("head scores: need at least one layer and one head");
  sums_.L = L, sums_.H = H;
  for (HeadHabit* h : {&sums_.previous_token, &sums_.start_mark, &sums_.four_or_more_back, &sums_.induction, &sums_.start_mark_on_random_tokens,
                      &sums_.previous_token_on_random_tokens})
    init(*h, L * H);
}

// Adds, for every head, the weight of query t on keys [s_from, s_to] (inclusive).
void HeadScoreAccumulator::add(HeadHabit& h, const float* a, int T, int t, int s_from, int s_to, double even) {
  for (int lh = 0; lh < L_ * H_; ++lh) {
    const float* row = a + (std::size_t(lh) * T + t) * T;
    double w = 0;
    for (int s = s_from; s <= s_to; ++s) w += row[s];
    h.score[lh] += w;
  }
  h.even += even;
  ++h.count;
}

void HeadScoreAccumulator::add_previous_and_start(HeadHabit& previous, HeadHabit& first, const float* a, int T,
                                                  int t) {
  add(previous, a, T, t, t - 1, t - 1, 1.0 / (t + 1));
  add(first, a, T, t, 0, 0, 1.0 / (t + 1));
}

void HeadScoreAccumulator::add_text(const float* a, int T) {
  for (int t = 2; t < T; ++t) {
    add_previous_and_start(sums_.previous_token, sums_.start_mark, a, T, t);
    // far back: keys 1..t-4; the start mark (key 0) is its own habit and would pass for long-range attention here
    if (t >= 5) add(sums_.four_or_more_back, a, T, t, 1, t - 4, (t - 4) / double(t + 1));
  }
}

void HeadScoreAccumulator::add_repeat(const float* a, int n) {
  const int T = 2 * n + 1;
  // the second copy's i-th token sits at t = n + 1 + i; its earlier copy at 1 + i, followed by position 2 + i
  for (int i = 0; i < n; ++i) {
    const int t = n + 1 + i, target = t - n + 1;
    add(sums_.induction, a, T, t, target, target, 1.0 / (t + 1));
  }
  for (int t = 2; t <= n; ++t) add_previous_and_start(sums_.previous_token_on_random_tokens, sums_.start_mark_on_random_tokens, a, T, t);
}

HeadScores HeadScoreAccumulator::result() const {
  HeadScores r = sums_;
  r.previous_token = average(sums_.previous_token);
  r.start_mark = average(sums_.start_mark);
  r.four_or_more_back = average(sums_.four_or_more_back);
  r.induction = average(sums_.induction);
  r.start_mark_on_random_tokens = average(sums_.start_mark_on_random_tokens);
  r.previous_token_on_random_tokens = average(sums_.previous_token_on_random_tokens);
  return r;
}

std::vector<int> random_repeat(std::uint64_t seed, int len, int lo, int hi) {
  if (len < 0 || hi <= lo)
    model_error("random_repeat: need len >= 0 and lo < hi, got len " + std::to_string(len) + ", range [" +
                std::to_string(lo) + ", " + std::to_string(hi) + ")");
  Rng rng(seed ^ 0x5851F42D4C957F2Dull);
  std::vector<int> ids(2 * std::size_t(len));
  for (int i = 0; i < len; ++i) ids[i] = ids[i + len] = lo + int(rng.next() % std::uint64_t(hi - lo));
  return ids;
}

HeadScores measure_heads(Session& s, const std::vector<std::vector<int>>& texts, int repeats, int repeat_len,
                         std::uint64_t seed, int lo) {
  const ModelConfig& c = s.model().config();
  HeadScoreAccumulator acc(c.n_layers, c.n_heads);
  StepOptions o;
  o.attention = true;
  s.reset();
  for (const auto& ids : texts) {
    s.process(ids, o);
    acc.add_text(s.attention().data(), int(ids.size()));
  }
  if (repeats > 0 && (repeat_len < 1 || 2 * repeat_len + 1 > c.max_seq_len))
    model_error("head scores: a repeated sequence of " + std::to_string(repeat_len) +
                " tokens does not fit twice (after the start mark) in the context of " +
                std::to_string(c.max_seq_len));
  for (int r = 0; r < repeats; ++r) {
    std::vector<int> ids = {c.bos_id};
    for (int id : random_repeat(seed + std::uint64_t(r), repeat_len, lo, c.vocab_size)) ids.push_back(id);
    s.process(ids, o);
    acc.add_repeat(s.attention().data(), repeat_len);
  }
  return acc.result();
}

int random_token_floor(const Tokenizer& tokenizer, int V) {
  const int marks = tokenizer.kind() == "llama2c" ? 3 : 2;
  return V - (marks + 256) >= 64 ? marks + 256 : std::min(marks, V - 1);
}

std::vector<int> ranked_heads(const HeadHabit& h, int k) {
  std::vector<int> order(h.score.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return h.score[a] > h.score[b]; });
  order.resize(std::min<std::size_t>(std::size_t(std::max(k, 0)), order.size()));
  return order;
}

std::vector<std::pair<std::string, double>> best_heads(const HeadHabit& h, int H, int k) {
  std::vector<std::pair<std::string, double>> out;
  for (int i : ranked_heads(h, k)) out.emplace_back(std::to_string(i / H) + "." + std::to_string(i % H), h.score[i]);
  return out;
}

}  // namespace lookback
