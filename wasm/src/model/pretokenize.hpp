// The pre-tokenizer split patterns of byte-level BPE tokenizers, each one hand-written matcher over Unicode
// classes (unicode_classes.hpp): GPT-2's (the ByteLevel pre-tokenizer's own regex), SmolLM's (each digit alone,
// then GPT-2's), and the Split regexes of Llama 3 (digits in runs of up to 3) and Qwen2 (single digits).
// Leftmost-first alternation, as the regex engines do. Not here: any tokenizer file's parsing (hf_tokenizer.cpp) or the byte-level mapping.
#pragma once
#include <string>
#include <vector>

namespace lookback {

enum class SplitPattern {
  gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  llama3,  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  qwen2,   // the same with \p{N} one digit at a time
  smollm,  // every digit a piece of its own (a Digits split with individual_digits), the rest as gpt2
};

// The pattern a regex string is, or false when it is none of them (the text must be exactly the regex).
bool split_pattern_of(const std::string& regex, SplitPattern& out);

// The regex of a Split with the pattern (llama3, qwen2), or "" for the patterns that are no one regex (gpt2 is
// ByteLevel's own, smollm a Digits split before it).
std::string split_pattern_regex(SplitPattern pattern);

// text (UTF-8; invalid bytes count as other characters) cut into the pattern's matches, which cover it.
std::vector<std::string> pretokenize(SplitPattern pattern, const std::string& text);

}  // namespace lookback
