// Measured habits of attention heads, accumulated over texts: the average weight each head puts on the
// previous token, on the start mark, on tokens 4 or more back (the start mark not counted), and an induction score on a random sequence
// repeated twice, and the weights on the start mark and on the previous token while reading that sequence the
// first time (nothing before it can be copied); each beside what an even spread over the visible tokens would
// give. Works on attention weights [L, H, T, T] (row t = query t, zero above the diagonal; position 0 holds the
// start mark).
// Also: measure_heads, the same scores for a model over given texts plus random repeated sequences.
// Not here: the forward pass itself (session.hpp) or choosing the texts (the caller).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lookback {

struct HeadHabit {
  std::vector<double> score;  // [L*H], head h of layer l at l*H + h
  double even = 0;            // the same average for a uniform spread over the visible tokens
  long count = 0;             // query positions averaged over
};

struct HeadScores {
  int L = 0, H = 0;
  // One name per measure, the same in the bindings (camelCase), the JS API and the model card.
  HeadHabit previous_token;     // weight on position t-1, queries t >= 2
  HeadHabit start_mark;         // weight on position 0 (the start mark), queries t >= 2
  HeadHabit four_or_more_back;  // weight on positions 1..t-4 (the start mark not counted), queries t >= 5
  HeadHabit induction;          // second copy of a repeat: weight on the token after the earlier copy of the current token
  HeadHabit start_mark_on_random_tokens;      // first copy of a repeat: weight on position 0, queries t >= 2 (nothing to copy yet)
  HeadHabit previous_token_on_random_tokens;  // first copy of a repeat: weight on position t-1, queries t >= 2
};

// Sums over `count` query positions -> their averages (unchanged when count is 0).
HeadHabit average(const HeadHabit& sums);

class HeadScoreAccumulator {
 public:
  HeadScoreAccumulator(int L, int H);
  // Previous-token, start-mark and far scores of one text's attention [L,H,T,T].
  void add_text(const float* attention, int T);
  // Induction score, and start mark and previous token on the first copy, of a text laid out as
  // [start mark, R (n tokens), R again] (T = 2n + 1).
  void add_repeat(const float* attention, int n);
  HeadScores result() const;

 private:
  void add(HeadHabit& h, const float* attention, int T, int t, int s_from, int s_to, double even);
  // Query t's weight on the token before it and on the start mark (t >= 2, so the two are distinct keys).
  void add_previous_and_start(HeadHabit& previous_token, HeadHabit& start_mark, const float* attention, int T, int t);
  int L_, H_;
  HeadScores sums_;
};

// A random sequence of `len` ids drawn uniformly from [lo, hi), then the same sequence again: [2 * len].
// The same seed gives the same ids everywhere (the model's Rng).
std::vector<int> random_repeat(std::uint64_t seed, int len, int lo, int hi);

class Session;
class Tokenizer;

// Runs the session's model on every text (token ids, the start mark first, each at most the context) and on
// `repeats` random repeated sequences (start mark, then random_repeat(seed + r, repeat_len, lo, V)), and
// returns the averaged habits of every head. The session's cache is reset first.
HeadScores measure_heads(Session& session, const std::vector<std::vector<int>>& texts, int repeats,
                         int repeat_len, std::uint64_t seed, int lo);

// The first id of random tokens for the induction test with this tokenizer: past its marks (byte-level BPE:
// start and end; llama2.c: unknown, start, end) and, when at least 64 others remain, past the 256 byte
// tokens after them (rare as whole tokens in text).
int random_token_floor(const Tokenizer& tokenizer, int V);

// Indices l*H + h of the k heads with the highest scores, best first (ties: the lower index first).
std::vector<int> ranked_heads(const HeadHabit& h, int k);

// The same k heads as "layer.head" labels with their scores.
std::vector<std::pair<std::string, double>> best_heads(const HeadHabit& h, int H, int k);

}  // namespace lookback
