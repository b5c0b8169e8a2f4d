// Byte-level BPE trainer: chunk counting and merge learning with incremental pair counts.
// Only the words containing the merged pair are revisited at each step, and a max-heap with lazy
// deletion finds the next best pair, so ~2,000 merges over a large corpus take well under a second
// once the chunks are counted. Not the runtime encoder (model/bpe.cpp).
#include "train/bpe_train.hpp"

#include <queue>
#include <stdexcept>

namespace lookback {

void count_chunks(std::string_view text, ChunkCounts& counts, const ChunkFilter& keep) {
  std::unordered_map<std::string_view, int64_t> local;  // views into `text`, merged at the end
  for (std::string_view chunk : bpe_chunks(text))
    if (chunk != "\n" && (!keep || keep(chunk))) ++local[chunk];
  for (const auto& [chunk, n] : local) counts[std::string(chunk)] += n;
}

namespace {

using PairKey = uint64_t;  // left << 32 | right

PairKey key_of(int left, int right) { return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right); }
int left_of(PairKey k) { return static_cast<int>(k >> 32); }
int right_of(PairKey k) { return static_cast<int>(k & 0xFFFFFFFFu); }

struct HeapEntry {
  int64_t count;
  PairKey pair;
  // std::priority_queue pops the largest: higher count first, then the smaller pair key.
  bool operator<(const HeapEntry& o) const { return count != o.count ? count < o.count : pair > o.pair; }
};

// The training state: every distinct chunk as a symbol sequence with its count.
class MergeLearner {
 public:
  explicit MergeLearner(const ChunkCounts& counts) {
    for (const auto& [chunk, n] : counts) {
      if (chunk.size() < 2 || n <= 0) continue;
      std::vector<int> syms;
      for (unsigned char c : chunk) syms.push_back(BpeTokenizer::kFirstByte + c);
      words_.push_back(std::move(syms));
      counts_.push_back(n);
    }
    for (int w = 0; w < static_cast<int>(words_.size()); ++w) add_pairs(w, +1);
    for (const auto& [k, n] : pair_count_) heap_.push({n, k});
  }

  // Best pair with count >= min_count, or false when none is left.
  bool best(int64_t min_count, PairKey& out) {
    while (!heap_.empty()) {
      const HeapEntry e = heap_.top();
      const auto it = pair_count_.find(e.pair);
      if (it == pair_count_.end() || it->second != e.count) { heap_.pop(); continue; }  // stale
      if (e.count < min_count) return false;
      out = e.pair;
      return true;
    }
    return false;
  }

  // Replace every occurrence of `pair` by `new_id` and update the pair counts around it.
  void merge(PairKey pair, int new_id) {
    heap_.pop();
    std::vector<int> affected = std::move(where_[pair]);
    where_.erase(pair);
    delta_.clear();
    for (int w : affected) merge_word(w, left_of(pair), right_of(pair), new_id);
    for (const auto& [k, d] : delta_) {
      if (d == 0) continue;
      int64_t& n = pair_count_[k];
      n += d;
      if (n <= 0) pair_count_.erase(k);
      else heap_.push({n, k});
    }
  }

 private:
  void add_pairs(int w, int sign) {
    const auto& s = words_[w];
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      const PairKey k = key_of(s[i], s[i + 1]);
      pair_count_[k] += sign * counts_[w];
      auto& list = where_[k];
      if (list.empty() || list.back() != w) list.push_back(w);
    }
  }

  void merge_word(int w, int left, int right, int new_id) {
    auto& s = words_[w];
    bool found = false;
    for (size_t i = 0; i + 1 < s.size() && !found; ++i) found = s[i] == left && s[i + 1] == right;
    if (!found) return;  // stale entry in where_
    for (size_t i = 0; i + 1 < s.size(); ++i) delta_[key_of(s[i], s[i + 1])] -= counts_[w];
    std::vector<int> merged;
    merged.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      if (i + 1 < s.size() && s[i] == left && s[i + 1] == right) {
        merged.push_back(new_id);
        ++i;
      } else {
        merged.push_back(s[i]);
      }
    }
    s = std::move(merged);
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      const PairKey k = key_of(s[i], s[i + 1]);
      delta_[k] += counts_[w];
      if (s[i] == new_id || s[i + 1] == new_id) {
        auto& list = where_[k];
        if (list.empty() || list.back() != w) list.push_back(w);
      }
    }
  }

  std::vector<std::vector<int>> words_;               // [words] symbol ids
  std::vector<int64_t> counts_;                       // [words] occurrences
  std::unordered_map<PairKey, int64_t> pair_count_;   // weighted count of each live pair
  std::unordered_map<PairKey, std::vector<int>> where_;  // pair -> words that may contain it
  std::unordered_map<PairKey, int64_t> delta_;        // count changes of the current merge
  std::priority_queue<HeapEntry> heap_;               // may hold stale entries
};

}  // namespace

std::vector<std::pair<int, int>> train_bpe_merges(const ChunkCounts& counts, const BpeTrainOptions& options) {
  if (options.vocab_size < BpeTokenizer::kFirstMerge)
    throw std::invalid_argument("BPE vocab_size must be at least 258 (marks and bytes), got " +
                                std::to_string(options.vocab_size));
  MergeLearner learner(counts);
  std::vector<std::pair<int, int>> merges;
  PairKey pair;
  while (static_cast<int>(merges.size()) + BpeTokenizer::kFirstMerge < options.vocab_size &&
         learner.best(std::max<int64_t>(1, options.min_pair_count), pair)) {
    const int new_id = BpeTokenizer::kFirstMerge + static_cast<int>(merges.size());
    merges.emplace_back(left_of(pair), right_of(pair));
    learner.merge(pair, new_id);
  }
  return merges;
}

}  // namespace lookback
