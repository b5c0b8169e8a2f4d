// Byte-level BPE trainer: counts pre-tokenisation chunks over a corpus and learns merges with
// incremental pair-count updates. Native only (part of the trainer library).
// It is not the runtime tokenizer (model/bpe.hpp), which only applies the learned merges.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/bpe.hpp"

namespace lookback {

// chunk bytes -> number of occurrences
using ChunkCounts = std::unordered_map<std::string, int64_t>;

// Decides whether a chunk takes part in training (e.g. leave out invented names).
using ChunkFilter = std::function<bool(std::string_view chunk)>;

// Add the chunks of `text` (see bpe_chunks) to `counts`; chunks rejected by `keep` are skipped.
void count_chunks(std::string_view text, ChunkCounts& counts, const ChunkFilter& keep = {});

struct BpeTrainOptions {
  int vocab_size = 3072;        // 258 + number of merges; training stops earlier if pairs run out
  int64_t min_pair_count = 2;   // a pair seen fewer times than this is never merged
};

// Learn merges from chunk counts. Each step merges the most frequent adjacent pair; ties go to
// the smaller (left id, right id), so the result depends only on the counts.
std::vector<std::pair<int, int>> train_bpe_merges(const ChunkCounts& counts, const BpeTrainOptions& options);

inline BpeTokenizer train_bpe(const ChunkCounts& counts, const BpeTrainOptions& options) {
  return BpeTokenizer(train_bpe_merges(counts, options));
}

}  // namespace lookback
