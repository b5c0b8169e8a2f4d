// Byte ranges of tokens (see token_spans.hpp).
#include "model/token_spans.hpp"

namespace lookback {

std::vector<std::pair<int, int>> token_spans(const Tokenizer& tok, const std::vector<int>& ids) {
  std::vector<std::pair<int, int>> spans;
  spans.reserve(ids.size());
  int at = 0;
  for (int id : ids) {
    const int n = int(tok.decode({id}).size());
    spans.emplace_back(at, at + n);
    at += n;
  }
  return spans;
}

std::vector<int> tokens_in(const std::vector<std::pair<int, int>>& spans, int begin, int end) {
  std::vector<int> out;
  for (int i = 0; i < int(spans.size()); ++i)
    if (spans[i].first < end && spans[i].second > begin && spans[i].second > spans[i].first) out.push_back(i);
  return out;
}

}  // namespace lookback
