// llama2.c's sentencepiece-style tokenizer: .bin reading, run.c-exact encoding (with a priority queue
// in place of run.c's quadratic rescans, choosing the same pair at every step), decoding and display.
// Not here: the byte-level BPE.
#include "model/sp_tokenizer.hpp"

#include <cstring>
#include <queue>

#include "model/errors.hpp"

namespace lookback {
namespace {

std::uint32_t read_u32(const std::uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t(p[3]) << 24; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

constexpr float kNoMerge = -1e10f;  // run.c merges only pairs scoring above this

}  // namespace

SpTokenizer SpTokenizer::from_bin(const std::uint8_t* bytes, std::size_t size) {
  if (size < 4) model_error("tokenizer .bin: the file is ", size, " bytes; it must start with a 4-byte max_token_length");
  const std::uint32_t max_len = read_u32(bytes);
  if (max_len == 0 || max_len > 4096) model_error("tokenizer .bin: max_token_length ", max_len, " at byte 0 is not in [1, 4096]");
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::size_t at = 4;
  while (at < size) {
    const std::size_t id = pieces.size();
    if (size - at < 8) model_error("tokenizer .bin: truncated entry for id ", id, " at byte ", at, " (", size - at, " bytes left, need 8)");
    float score;
    std::memcpy(&score, bytes + at, 4);
    const std::int32_t len = std::int32_t(read_u32(bytes + at + 4));
    if (len < 0 || std::uint32_t(len) > max_len)
      model_error("tokenizer .bin: id ", id, " at byte ", at, " has length ", len, ", outside [0, max_token_length = ", max_len, "]");
    if (size - at - 8 < std::size_t(len))
      model_error("tokenizer .bin: id ", id, " at byte ", at, " needs ", len, " bytes but the file ends after ", size - at - 8);
    pieces.emplace_back(reinterpret_cast<const char*>(bytes + at + 8), std::size_t(len));
    scores.push_back(score);
    at += 8 + std::size_t(len);
  }
  return SpTokenizer(std::move(pieces), std::move(scores));
}

SpTokenizer::SpTokenizer(std::vector<std::string> pieces, std::vector<float> scores, int bos, int eos)
    : pieces_(std::move(pieces)), scores_(std::move(scores)), bos_(bos), eos_(eos) {
  if (pieces_.size() != scores_.size()) model_error("tokenizer: ", pieces_.size(), " pieces but ", scores_.size(), " scores");
  if (pieces_.size() < 259) model_error("tokenizer: ", pieces_.size(), " pieces; a llama2.c vocabulary has at least 259 (<unk>, <s>, </s>, 256 bytes)");
  for (int mark : {bos_, eos_})
    if (mark < 0 || mark >= int(pieces_.size())) model_error("tokenizer: mark id ", mark, " is outside the ", pieces_.size(), " pieces");
  for (int b = 0; b < 256; ++b)
    if (byte_value(b + 3) != b)
      model_error("tokenizer: id ", b + 3, " must be the byte piece <0x", "0123456789ABCDEF"[b >> 4], "0123456789ABCDEF"[b & 15],
                  "> (got \"", valid_utf8(pieces_[std::size_t(b + 3)]), "\")");
  for (std::size_t i = 0; i < pieces_.size(); ++i) index_.emplace(pieces_[i], int(i));  // keeps the lowest id
}

int SpTokenizer::lookup(const std::string& s) const {
  const auto it = index_.find(s);
  return it == index_.end() ? -1 : it->second;
}

int SpTokenizer::byte_value(int id) const {
  const std::string& p = pieces_[std::size_t(id)];
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
  const int hi = hex_digit(p[3]), lo = hex_digit(p[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::vector<int> SpTokenizer::encode(const std::string& text, bool bos) const {
  std::vector<int> ids;
  if (bos) ids.push_back(bos_id());
  if (!text.empty()) {
    const int space = lookup(" ");
    if (space >= 0) ids.push_back(space);
  }
  // one piece per code point (at most 4 bytes, as run.c groups them), else its bytes
  std::string buf;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = std::uint8_t(text[i]);
    if ((c & 0xC0) != 0x80) buf.clear();
    buf += char(c);
    const bool next_continues = i + 1 < text.size() && (std::uint8_t(text[i + 1]) & 0xC0) == 0x80;
    if (next_continues && buf.size() < 4) continue;
    const int id = lookup(buf);
    if (id >= 0) {
      ids.push_back(id);
    } else {
      for (char b : buf) ids.push_back(int(std::uint8_t(b)) + 3);
    }
    buf.clear();
  }
  merge(ids);
  return ids;
}

// Repeatedly merges the best pair. A max-heap of candidate pairs keyed by (score, leftmost position) over a
// linked list of symbols; entries that no longer match the list are skipped when popped.
void SpTokenizer::merge(std::vector<int>& ids) const {
  const int n = int(ids.size());
  if (n < 2) return;
  std::vector<int> next(n), prev(n);
  std::vector<char> alive(n, 1);
  for (int i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : -1, prev[i] = i - 1;
  struct Cand {
    float score;
    int left, right, left_id, right_id, merged;
    bool operator<(const Cand& o) const { return score != o.score ? score < o.score : left > o.left; }
  };
  std::priority_queue<Cand> heap;
  auto consider = [&](int l) {
    if (l < 0 || next[l] < 0) return;
    const int r = next[l];
    const int id = lookup(pieces_[std::size_t(ids[l])] + pieces_[std::size_t(ids[r])]);
    if (id >= 0 && scores_[std::size_t(id)] > kNoMerge) heap.push({scores_[std::size_t(id)], l, r, ids[l], ids[r], id});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    const Cand c = heap.top();
    heap.pop();
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || ids[c.left] != c.left_id ||
        ids[c.right] != c.right_id)
      continue;
    ids[c.left] = c.merged;
    alive[c.right] = 0;
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = c.left;
    consider(prev[c.left]);
    consider(c.left);
  }
  std::vector<int> out;
  for (int i = 0; i >= 0; i = next[i]) out.push_back(ids[i]);
  ids.swap(out);
}

std::string SpTokenizer::decode_piece(int prev, int id) const {
  if (id == bos_id() || id == eos_id()) return "";
  const int b = byte_value(id);
  if (b >= 0) return std::string(1, char(b));
  const std::string& p = pieces_[std::size_t(id)];
  return prev == bos_id() && !p.empty() && p[0] == ' ' ? p.substr(1) : p;
}

std::vector<std::string> SpTokenizer::decode_each(const std::vector<int>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      model_error("token id ", ids[i], " at index ", i, " is outside the vocabulary [0, ", vocab_size(), ")");
    out.push_back(decode_piece(i > 0 ? ids[i - 1] : -1, ids[i]));
  }
  return out;
}

std::string SpTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  for (const std::string& piece : decode_each(ids)) out += piece;
  return out;
}

std::string SpTokenizer::token_text(int id) const {
  if (id < 0 || id >= vocab_size()) model_error("token id ", id, " is outside the vocabulary [0, ", vocab_size(), ")");
  if (id == bos_id()) return "◆";
  if (id == eos_id()) return "◇";
  const int b = byte_value(id);
  if (b >= 0) return b < 0x80 ? std::string(1, char(b)) : pieces_[std::size_t(id)];
  const std::string& p = pieces_[std::size_t(id)];
  if (valid_utf8(p) == p) return p;
  std::string hex = "<0x";
  for (char c : p) hex += "0123456789ABCDEF"[std::uint8_t(c) >> 4], hex += "0123456789ABCDEF"[std::uint8_t(c) & 15];
  return hex + ">";
}

}  // namespace lookback
