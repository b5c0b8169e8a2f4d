// Where each token of an encoded text sits in the text its ids decode to: byte ranges from the tokens' bytes in
// that decoding (so labelled character positions, a pronoun or a name, map to token positions), and the same as
// places in UTF-16 units as JavaScript counts them (the JS API's tokens()). Not a tokenizer.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "model/tokenizer.hpp"

namespace lookback {

// [begin, end) byte offsets of every id in decode(ids); marks have empty ranges.
std::vector<std::pair<int, int>> token_spans(const Tokenizer& tok, const std::vector<int>& ids);
// [start, end) of every id in valid_utf8(decode(ids)) in UTF-16 units: from the start of the character its first
// byte falls in to the end of the character its last byte falls in (a byte of a longer character reaches that
// character's whole); marks have empty places.
std::vector<std::pair<int, int>> token_places(const Tokenizer& tok, const std::vector<int>& ids);
// The same from the ids' bytes in their decoding (tok.decode_each(ids)); `whole`, when given, receives that
// decoding (the bytes joined once, for a caller that needs the text too).
std::vector<std::pair<int, int>> token_places(const std::vector<std::string>& bytes, std::string* whole = nullptr);
// Positions of the tokens that overlap bytes [begin, end); empty when none.
std::vector<int> tokens_in(const std::vector<std::pair<int, int>>& spans, int begin, int end);

}  // namespace lookback
