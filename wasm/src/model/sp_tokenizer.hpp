// llama2.c's tokenizer (sentencepiece-style pieces with scores and byte fallback), read from its .bin
// file and applied exactly as llama2.c's run.c does: start mark, a dummy " " prefix, one piece per UTF-8
// code point (else its bytes as ids byte+3), then repeated merging of the adjacent pair whose
// concatenation is the highest-scoring piece (ties: leftmost). Not here: the byte-level BPE (bpe.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/tokenizer.hpp"

namespace lookback {

class SpTokenizer final : public Tokenizer {
 public:
  // The file: uint32 max_token_length, then per id: float32 score, int32 length, that many bytes, to the
  // end of the file. Ids 0 <unk>, 1 <s>, 2 </s>, 3..258 the byte pieces <0x00>..<0xFF> are required.
  static SpTokenizer from_bin(const std::uint8_t* bytes, std::size_t size);
  // bos, eos: the start and end marks' ids (llama2.c's 1 and 2; a GGUF file names its own).
  SpTokenizer(std::vector<std::string> pieces, std::vector<float> scores, int bos = 1, int eos = 2);

  std::string kind() const override { return "llama2c"; }
  int vocab_size() const override { return int(pieces_.size()); }
  int bos_id() const override { return bos_; }
  int eos_id() const override { return eos_; }
  std::vector<int> encode(const std::string& text, bool bos = true) const override;
  // As run.c's decode(): after the start mark a piece loses one leading space; byte pieces become bytes.
  std::string decode(const std::vector<int>& ids) const override;
  std::vector<std::string> decode_each(const std::vector<int>& ids) const override;
  std::string token_text(int id) const override;
  // The bytes of one id after `prev` (run.c's decode(prev, id)); marks give "". Ids must be in range.
  std::string decode_piece(int prev, int id) const;
  const std::string& piece(int id) const { return pieces_.at(std::size_t(id)); }

 private:
  int lookup(const std::string& s) const;  // -1 when absent
  int byte_value(int id) const;            // 0..255 for a byte piece "<0xXX>", else -1
  void merge(std::vector<int>& ids) const;

  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  int bos_ = 1, eos_ = 2;
  std::unordered_map<std::string, int> index_;  // piece -> lowest id
};

}  // namespace lookback
