// Where each token of an encoded text sits in the text: byte ranges from the tokens' own bytes, so labelled
// character positions (a pronoun, a name) can be mapped to token positions. Not a tokenizer.
#pragma once
#include <utility>
#include <vector>

#include "model/tokenizer.hpp"

namespace lookback {

// [begin, end) byte offsets of every id in the decoded text; marks have empty ranges.
std::vector<std::pair<int, int>> token_spans(const Tokenizer& tok, const std::vector<int>& ids);
// Positions of the tokens that overlap bytes [begin, end); empty when none.
std::vector<int> tokens_in(const std::vector<std::pair<int, int>>& spans, int begin, int end);

}  // namespace lookback
