// The Unicode classes the pre-tokenizer patterns use, as sorted code point ranges (unicode_classes.cpp, written
// by .scripts/unicode-classes.mjs). Not the patterns themselves (pretokenize.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace lookback {

struct CodeRange {
  std::uint32_t first, last;
};

extern const CodeRange kLetters[];  // \p{L}
extern const std::size_t kLettersCount;
extern const CodeRange kNumbers[];  // \p{N}
extern const std::size_t kNumbersCount;
extern const CodeRange kSpaces[];  // White_Space (\s)
extern const std::size_t kSpacesCount;

}  // namespace lookback
