// The BPE tokenizers of a Hugging Face tokenizer.json (the tokenizers library's format). Byte-level BPE (GPT-2,
// Qwen2/3, Llama 3, SmolLM): the ByteLevel pre-tokenizer, alone (GPT-2's split pattern), after a Digits split of
// single digits (SmolLM's) or after a Split with one of pretokenize.hpp's patterns. Sentencepiece-style BPE with byte_fallback (Llama 2, TinyLlama, Gemma):
// spaces as "▁" (the Prepend/Replace normalizers or the Metaspace pre-tokenizer), a character without a token
// as its bytes' <0xXX> tokens. Both: merges by rank, ignore_merges, added tokens found in the text first (longest
// first), special ones decoding to nothing. The NFC normalizer is reported (normalization()) and applied by the
// caller (the JS API, with String.prototype.normalize): the core has no Unicode composition tables. Any other
// setting that would change the ids (normalizers, pre-tokenizers, regexes, dropout, subword prefixes, Unigram,
// WordPiece) is a ModelError naming it.
// Not here: lookback's own byte-BPE format (bpe.hpp) or the model's weights (hf_model.hpp).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/pretokenize.hpp"
#include "model/tokenizer.hpp"

namespace lookback {

// How tokenizer.json turns text into the pieces BPE merges within (its normalizer and pre_tokenizer).
struct HfTextSteps {
  bool byte_level = true;            // bytes as GPT-2's characters; false: sentencepiece-style ("▁", byte fallback)
  bool nfc = false;                  // the NFC normalizer (applied by the caller)
  bool split = true;                 // byte-level: split with `pattern` (false: one piece per stretch)
  SplitPattern pattern = SplitPattern::gpt2;
  bool add_prefix_space = false;     // byte-level: a space before the text when it has none
  bool spaces_to_metaspace = false;  // sentencepiece: " " -> "▁"
  int prepend = 0;                   // sentencepiece: "▁" before 0: nothing; Metaspace's 1: the first stretch, 2: every
                                     // stretch (when it has none); 3: every stretch (the Prepend normalizer)
  bool metaspace_split = false;      // sentencepiece: pieces start at each "▁"
  std::string split_after;           // a Split on this string, the string kept with the piece before it
};

class HfBpeTokenizer final : public Tokenizer {
 public:
  // vocab_size, bos and eos come from the model's config (a config's vocabulary may be larger than the
  // tokenizer's: ids without a token decode to nothing). ModelError for a malformed or unsupported file.
  HfBpeTokenizer(const std::string& json_text, int vocab_size, int bos, int eos);
  // The same from tokenizer.json already parsed (or put together from another format's fields: GGUF's).
  static std::shared_ptr<const HfBpeTokenizer> from_json(const nlohmann::json& tokenizer_json, int vocab_size, int bos, int eos);

  std::string kind() const override { return steps_.byte_level ? "hf-byte-bpe" : "hf-sentencepiece-bpe"; }
  int vocab_size() const override { return vocab_size_; }
  int bos_id() const override { return bos_; }
  int eos_id() const override { return eos_; }
  std::string normalization() const override { return steps_.nfc ? "NFC" : ""; }
  std::vector<int> encode(const std::string& text, bool bos = true) const override;
  std::string decode(const std::vector<int>& ids) const override;
  std::vector<std::string> decode_each(const std::vector<int>& ids) const override;
  std::string token_text(int id) const override;

 private:
  HfBpeTokenizer(const nlohmann::json* tokenizer_json, int vocab_size, int bos, int eos);
  static nlohmann::json parsed(const std::string& json_text);
  std::vector<std::string> pieces(std::string text, bool first) const;  // one stretch between added tokens
  void encode_piece(const std::string& piece, std::vector<int>& out) const;
  std::vector<std::string> merge_by_rank(std::vector<std::string> parts) const;
  std::string token_bytes(int id) const;  // the bytes a token stands for ("" for special tokens)

  int vocab_size_, bos_, eos_;
  HfTextSteps steps_;
  bool ignore_merges_ = false;
  int unk_ = -1;
  std::unordered_map<std::string, int> vocab_;  // token string (byte-level or "▁" form) -> id
  std::vector<std::string> tokens_;             // id -> token string ("" when unused)
  std::vector<bool> special_;                   // id -> an added special token
  std::map<unsigned char, std::vector<std::pair<std::string, int>>> added_;  // first byte -> added tokens, longest first
  std::unordered_map<std::string, int> ranks_;  // "left right" -> merge rank
  int byte_token_[256] = {};                    // sentencepiece: the id of <0xXX>
};

// GPT-2's pre-tokenisation (pretokenize(SplitPattern::gpt2, text)).
std::vector<std::string> gpt2_chunks(const std::string& text);

}  // namespace lookback
