// Byte ranges and UTF-16 places of tokens (see token_spans.hpp).
#include "model/token_spans.hpp"

#include <string>

namespace lookback {
namespace {

std::vector<std::pair<int, int>> spans_of(const std::vector<std::string>& bytes) {
  std::vector<std::pair<int, int>> spans;
  spans.reserve(bytes.size());
  int at = 0;
  for (const std::string& b : bytes) {
    spans.emplace_back(at, at + int(b.size()));
    at += int(b.size());
  }
  return spans;
}

}  // namespace

std::vector<std::pair<int, int>> token_spans(const Tokenizer& tok, const std::vector<int>& ids) {
  return spans_of(tok.decode_each(ids));
}

std::vector<std::pair<int, int>> token_places(const Tokenizer& tok, const std::vector<int>& ids) {
  return token_places(tok.decode_each(ids));
}

std::vector<std::pair<int, int>> token_places(const std::vector<std::string>& bytes, std::string* whole) {
  std::string joined;
  for (const std::string& b : bytes) joined += b;
  const std::vector<std::pair<int, int>> at = utf16_places(joined);
  std::vector<std::pair<int, int>> places = spans_of(bytes);
  for (auto& [begin, end] : places) begin = at[std::size_t(begin)].first, end = at[std::size_t(end)].second;
  if (whole) *whole = std::move(joined);
  return places;
}

std::vector<int> tokens_in(const std::vector<std::pair<int, int>>& spans, int begin, int end) {
  std::vector<int> out;
  for (int i = 0; i < int(spans.size()); ++i)
    if (spans[i].first < end && spans[i].second > begin && spans[i].second > spans[i].first) out.push_back(i);
  return out;
}

}  // namespace lookback
