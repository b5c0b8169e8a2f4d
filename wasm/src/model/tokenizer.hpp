// The common face of the tokenizers a model can come with: llama2.c's sentencepiece-style vocabulary
// (sp_tokenizer.hpp) and the project's byte-level BPE (model/bpe.hpp, adapted in bpe_tokenizer.cpp).
// Encode text to ids, decode ids to text (whole, or each id's bytes in it), and the display text of one token (start
// mark "◆", end "◇").
// Not here: how either one splits text (their own files).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lookback {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::string kind() const = 0;  // "llama2c" or "byte-bpe"
  virtual int vocab_size() const = 0;
  virtual int bos_id() const = 0;
  virtual int eos_id() const = 0;
  // ids of text, with the start mark first when bos.
  virtual std::vector<int> encode(const std::string& text, bool bos = true) const = 0;
  // The bytes the ids stand for (the marks produce none). May end inside a UTF-8 sequence; see
  // valid_utf8(). Throws ModelError for an id outside [0, vocab_size).
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  // The bytes each id adds to decode(ids), in order: together they are decode(ids). A token's bytes may depend on
  // the one before (after sentencepiece's start mark a piece loses its leading space). Throws as decode() does.
  virtual std::vector<std::string> decode_each(const std::vector<int>& ids) const = 0;
  // The end of encode(text, bos): the start mark (when bos) and at least the last `n` tokens (all of them when
  // there are fewer), the same ids as the full encoding's. Lets a sliding window skip most of a long text; the
  // default encodes it all.
  virtual std::vector<int> encode_tail(const std::string& text, bool bos, std::size_t n) const {
    (void)n;
    return encode(text, bos);
  }
  // Display text of one id, always valid UTF-8: "◆" start, "◇" end, bytes that are not text as "<0xE2>".
  virtual std::string token_text(int id) const = 0;
  // A Unicode normalization the caller applies to text before encode ("NFC"), or "" for none.
  virtual std::string normalization() const { return ""; }
};

// The tokenizer of a bundle from tokenizer.json text (the byte-BPE format); ModelError when malformed.
std::unique_ptr<Tokenizer> bpe_tokenizer_from_json(const std::string& json_text);

// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view bytes);

// text with every ill-formed UTF-8 sequence replaced by U+FFFD (as the web's TextDecoder does).
std::string valid_utf8(const std::string& text);

// For every byte offset b of `bytes` (0 to its size): where the character b falls in sits in valid_utf8(bytes), in
// UTF-16 units as JavaScript counts them: {its start, its end}; {b's place, the same} where a character starts or
// at the end. An ill-formed subpart is one character (its U+FFFD).
std::vector<std::pair<int, int>> utf16_places(std::string_view bytes);

}  // namespace lookback
