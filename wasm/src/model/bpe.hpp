// Byte-level BPE tokenizer, runtime side: pre-tokenisation, encoding, decoding, tokenizer.json I/O.
// Works on strings only (no files, no threads of its own), so it builds natively and for WebAssembly.
// It is not the trainer: merges are learned by src/train/bpe_train.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lookback {

// Split text into pre-tokenisation chunks; BPE merges never cross a chunk boundary.
// At byte i: a ' ' followed by a non-whitespace byte starts a chunk " " + run(i+1); any other
// whitespace byte (' ', '\n', '\t', '\r') is a chunk of its own; anything else starts run(i).
// A run is a maximal run of letters (A-Z, a-z, bytes >= 0x80), a maximal run of digits, or one
// other byte. The returned views point into `text`.
std::vector<std::string_view> bpe_chunks(std::string_view text);

// Token ids: 0 = <s> (start mark, shown "◆"), 1 = </s> (end mark, shown "◇"), 2..257 = the single
// bytes 0..255, 258 + i = merge i (the bytes of its left id followed by the bytes of its right id).
class BpeTokenizer {
 public:
  static constexpr int kBos = 0;
  static constexpr int kEos = 1;
  static constexpr int kFirstByte = 2;
  static constexpr int kFirstMerge = 258;
  // The longest token a merge may make (GPT-2's longest is 128 bytes; a file's merges can double a token's
  // length each, so this bounds what a small file can make the tokenizer hold).
  static constexpr std::size_t kMaxTokenBytes = 1024;

  // No merges: vocabulary of the two marks and the 256 bytes.
  BpeTokenizer();
  // merges[i] = (left id, right id) of token 258 + i; throws std::runtime_error if an id is a
  // mark, not yet defined (>= 258 + i) or a pair repeats an earlier merge.
  explicit BpeTokenizer(std::vector<std::pair<int, int>> merges);

  // Parse and validate tokenizer.json text; every problem throws std::runtime_error naming
  // the key and index at fault. The "tokens" array is optional but must match when present.
  static BpeTokenizer from_json(const std::string& json);
  // {"type":"byte-bpe","version":1,"vocab_size":N,"bos_id":0,"eos_id":1,"merges":[[l,r],...],
  //  "tokens":[display text of each id]}, one merge and one token per line.
  std::string to_json() const;

  // ids of `text` ([<s>] + chunk encodings); no end mark is appended.
  std::vector<int> encode(const std::string& text, bool bos = true) const;
  // Concatenated bytes of the ids; the marks <s> and </s> produce no text. Throws
  // std::out_of_range for an id outside [0, vocab_size).
  std::string decode(const std::vector<int>& ids) const;
  // Display text: "◆" for <s>, "◇" for </s>, the token's bytes when they are valid UTF-8,
  // otherwise "<0x" + the bytes in upper-case hex + ">" (e.g. "<0xE2>", "<0x20E2>").
  std::string token_text(int id) const;
  // Raw bytes of a token ("" for the marks).
  const std::string& token_bytes(int id) const;
  int vocab_size() const { return static_cast<int>(bytes_.size()); }
  const std::vector<std::pair<int, int>>& merges() const { return merges_; }

 private:
  struct ChunkCache;
  void encode_chunk(std::string_view chunk, std::vector<int>& out) const;
  void encode_chunk_uncached(std::string_view chunk, std::vector<int>& out) const;
  int merge_rank(int left, int right) const;  // merge index, or -1 when (left, right) is no merge
  const std::string& checked_bytes(int id) const;

  std::vector<std::pair<int, int>> merges_;
  std::vector<std::string> bytes_;            // [vocab_size] bytes of each id
  std::unordered_map<uint64_t, int> ranks_;   // (left << 32 | right) -> merge index
  std::shared_ptr<ChunkCache> cache_;         // chunk -> ids; shared by copies (same merges)
};

}  // namespace lookback
