// The byte-level BPE tokenizer of a Hugging Face tokenizer.json (the tokenizers library's format, as GPT-2,
// SmolLM and many Llama-architecture checkpoints ship it): model "BPE" with a vocab and ranked merges, the
// ByteLevel pre-tokenizer (GPT-2's split pattern; letters are ASCII letters and every non-ASCII character)
// and decoder, and added tokens (special ones decode to nothing). Anything else (sentencepiece-style BPE with
// byte fallback, other pre-tokenizers, Unigram, WordPiece) is a ModelError saying so.
// Not here: lookback's own byte-BPE format (bpe.hpp) or the model's weights (hf_model.hpp).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/tokenizer.hpp"

namespace lookback {

class HfByteBpeTokenizer final : public Tokenizer {
 public:
  // vocab_size, bos and eos come from the model's config (a config's vocabulary may be larger than the
  // tokenizer's: ids without a token decode to nothing). ModelError for a malformed or unsupported file.
  HfByteBpeTokenizer(const std::string& json_text, int vocab_size, int bos, int eos);

  std::string kind() const override { return "hf-byte-bpe"; }
  int vocab_size() const override { return vocab_size_; }
  int bos_id() const override { return bos_; }
  int eos_id() const override { return eos_; }
  std::vector<int> encode(const std::string& text, bool bos = true) const override;
  std::string decode(const std::vector<int>& ids) const override;
  std::string token_text(int id) const override;

 private:
  void encode_chunk(const std::string& chunk, std::vector<int>& out) const;
  std::string token_bytes(int id) const;  // the bytes a token stands for ("" for special tokens)

  int vocab_size_, bos_, eos_;
  bool add_prefix_space_ = false;
  std::unordered_map<std::string, int> vocab_;  // byte-level string -> id
  std::vector<std::string> tokens_;             // id -> byte-level string ("" when unused)
  std::vector<bool> special_;                   // id -> an added special token
  std::unordered_map<std::string, int> ranks_;  // "left right" -> merge rank
};

// GPT-2's pre-tokenisation pattern: 's 't 're 've 'm 'll 'd | ?letters+ | ?digits+ | ?others+ | spaces not
// before a non-space | spaces. Letters: A-Z, a-z and every byte >= 0x80.
std::vector<std::string> gpt2_chunks(const std::string& text);

}  // namespace lookback
