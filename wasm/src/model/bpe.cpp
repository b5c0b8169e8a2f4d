// Byte-level BPE tokenizer runtime: pre-tokenisation, rank-ordered merging, tokenizer.json I/O.
// Strings in, strings out: no file access and no threads, so the same code runs in the browser.
// Learning merges is the trainer's job (src/train/bpe_train.cpp).
#include "model/bpe.hpp"
#include "model/tokenizer.hpp"

#include <mutex>
#include <nlohmann/json.hpp>
#include <queue>
#include <stdexcept>

namespace lookback {

// ---- pre-tokenisation ------------------------------------------------------------------------

namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
bool is_letter(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// End (exclusive) of the run starting at i (letters, digits, or one other byte).
size_t run_end(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (!is_letter(c) && !is_digit(c)) return i + 1;
  const bool letters = is_letter(c);
  size_t j = i + 1;
  while (j < s.size()) {
    const auto d = static_cast<unsigned char>(s[j]);
    if (letters ? !is_letter(d) : !is_digit(d)) break;
    ++j;
  }
  return j;
}

}  // namespace

std::vector<std::string_view> bpe_chunks(std::string_view text) {
  std::vector<std::string_view> chunks;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t end;
    if (c == ' ' && i + 1 < text.size() && !is_space(static_cast<unsigned char>(text[i + 1])))
      end = run_end(text, i + 1);
    else if (is_space(c))
      end = i + 1;
    else
      end = run_end(text, i);
    chunks.push_back(text.substr(i, end - i));
    i = end;
  }
  return chunks;
}

// ---- construction ------------------------------------------------------------------------------

struct BpeTokenizer::ChunkCache {
  static constexpr size_t kMaxEntries = 1 << 16;  // cleared when full
  static constexpr size_t kMaxChunkBytes = 64;    // longer chunks are not cached
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int>> map;
};

namespace {

uint64_t pair_key(int left, int right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

std::string hex_bytes(std::string_view s) {
  static const char* digits = "0123456789ABCDEF";
  std::string out = "<0x";
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out + ">";
}

}  // namespace

BpeTokenizer::BpeTokenizer() : BpeTokenizer(std::vector<std::pair<int, int>>{}) {}

BpeTokenizer::BpeTokenizer(std::vector<std::pair<int, int>> merges)
    : merges_(std::move(merges)), cache_(std::make_shared<ChunkCache>()) {
  bytes_.resize(kFirstMerge + merges_.size());
  for (int b = 0; b < 256; ++b) bytes_[kFirstByte + b] = std::string(1, static_cast<char>(b));
  ranks_.reserve(merges_.size() * 2);
  for (size_t i = 0; i < merges_.size(); ++i) {
    const auto [l, r] = merges_[i];
    const int limit = kFirstMerge + static_cast<int>(i);
    for (int id : {l, r})
      if (id < kFirstByte || id >= limit)
        throw std::runtime_error("merges[" + std::to_string(i) + "] uses id " + std::to_string(id) +
                                 ": ids must be in [2, " + std::to_string(limit) +
                                 ") (a byte or an earlier merge, never a mark)");
    const auto [it, fresh] = ranks_.emplace(pair_key(l, r), static_cast<int>(i));
    if (!fresh)
      throw std::runtime_error("merges[" + std::to_string(i) + "] = [" + std::to_string(l) + ", " +
                               std::to_string(r) + "] repeats merges[" + std::to_string(it->second) + "]");
    // each merge can double the longest token: 30 merges would make one of a gigabyte from a file of 300 bytes
    if (bytes_[l].size() + bytes_[r].size() > kMaxTokenBytes)
      throw std::runtime_error("merges[" + std::to_string(i) + "] makes a token of " +
                               std::to_string(bytes_[l].size() + bytes_[r].size()) + " bytes; a token holds at most " +
                               std::to_string(kMaxTokenBytes));
    bytes_[limit] = bytes_[l] + bytes_[r];
  }
}

// ---- encoding ----------------------------------------------------------------------------------

int BpeTokenizer::merge_rank(int left, int right) const {
  const auto it = ranks_.find(pair_key(left, right));
  return it == ranks_.end() ? -1 : it->second;
}

// Standard BPE on one chunk: repeatedly merge the adjacent pair of lowest merge index (leftmost
// first). Symbols live in a linked list over byte positions; a min-heap holds (rank, position)
// candidates, stale ones are skipped when popped. O(n log n) for a chunk of n bytes.
void BpeTokenizer::encode_chunk_uncached(std::string_view chunk, std::vector<int>& out) const {
  const int n = static_cast<int>(chunk.size());
  std::vector<int> sym(n), next(n), prev(n);  // [n] symbol id at a live position; list links
  for (int i = 0; i < n; ++i) {
    sym[i] = kFirstByte + static_cast<unsigned char>(chunk[i]);
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  using Candidate = std::pair<int, int>;  // (merge rank, left position)
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  auto consider = [&](int i) {
    if (i < 0 || next[i] >= n) return;
    const int r = merge_rank(sym[i], sym[next[i]]);
    if (r >= 0) heap.push({r, i});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    const auto [r, i] = heap.top();
    heap.pop();
    if (sym[i] < 0 || next[i] >= n) continue;
    const int j = next[i];
    if (merges_[r].first != sym[i] || merges_[r].second != sym[j]) continue;  // stale
    sym[i] = kFirstMerge + r;
    sym[j] = -1;
    next[i] = next[j];
    if (next[j] < n) prev[next[j]] = i;
    consider(prev[i]);
    consider(i);
  }
  for (int i = 0; i < n; i = next[i]) out.push_back(sym[i]);
}

void BpeTokenizer::encode_chunk(std::string_view chunk, std::vector<int>& out) const {
  if (chunk.size() == 1) {
    out.push_back(kFirstByte + static_cast<unsigned char>(chunk[0]));
    return;
  }
  if (chunk.size() > ChunkCache::kMaxChunkBytes) {
    encode_chunk_uncached(chunk, out);
    return;
  }
  const std::string key(chunk);
  {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    const auto it = cache_->map.find(key);
    if (it != cache_->map.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int> ids;
  encode_chunk_uncached(chunk, ids);
  out.insert(out.end(), ids.begin(), ids.end());
  std::lock_guard<std::mutex> lock(cache_->mutex);
  if (cache_->map.size() >= ChunkCache::kMaxEntries) cache_->map.clear();
  cache_->map.emplace(key, std::move(ids));
}

std::vector<int> BpeTokenizer::encode(const std::string& text, bool bos) const {
  std::vector<int> ids;
  ids.reserve(text.size() / 3 + 2);
  if (bos) ids.push_back(kBos);
  for (std::string_view chunk : bpe_chunks(text)) encode_chunk(chunk, ids);
  return ids;
}

// ---- decoding and display -----------------------------------------------------------------------

const std::string& BpeTokenizer::checked_bytes(int id) const {
  if (id < 0 || id >= vocab_size())
    throw std::out_of_range("token id " + std::to_string(id) + " is out of range [0, " +
                            std::to_string(vocab_size()) + ")");
  return bytes_[id];
}

const std::string& BpeTokenizer::token_bytes(int id) const { return checked_bytes(id); }

std::string BpeTokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  for (int id : ids) text += checked_bytes(id);
  return text;
}

std::string BpeTokenizer::token_text(int id) const {
  const std::string& b = checked_bytes(id);
  if (id == kBos) return "\xE2\x97\x86";  // ◆
  if (id == kEos) return "\xE2\x97\x87";  // ◇
  return is_valid_utf8(b) ? b : hex_bytes(b);
}

// ---- tokenizer.json ----------------------------------------------------------------------------

std::string BpeTokenizer::to_json() const {
  std::string s = "{\n\"type\": \"byte-bpe\",\n\"version\": 1,\n";
  s += "\"vocab_size\": " + std::to_string(vocab_size()) + ",\n";
  s += "\"bos_id\": 0,\n\"eos_id\": 1,\n\"merges\": [";
  for (size_t i = 0; i < merges_.size(); ++i)
    s += std::string(i ? ",\n" : "\n") + "[" + std::to_string(merges_[i].first) + ", " +
         std::to_string(merges_[i].second) + "]";
  s += "\n],\n\"tokens\": [";
  for (int id = 0; id < vocab_size(); ++id)
    s += std::string(id ? ",\n" : "\n") + nlohmann::json(token_text(id)).dump();
  return s + "\n]\n}\n";
}

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("tokenizer.json: " + what); }

const nlohmann::json& require(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) fail(std::string("missing key \"") + key + "\"");
  return *it;
}

int64_t require_int(const nlohmann::json& j, const std::string& where) {
  if (!j.is_number_integer()) fail(where + " must be an integer, got " + j.dump());
  return j.get<int64_t>();
}

void expect_int(const nlohmann::json& root, const char* key, int64_t want) {
  const int64_t got = require_int(require(root, key), std::string("\"") + key + "\"");
  if (got != want)
    fail(std::string("\"") + key + "\" must be " + std::to_string(want) + ", got " + std::to_string(got));
}

std::vector<std::pair<int, int>> parse_merges(const nlohmann::json& j) {
  if (!j.is_array()) fail("\"merges\" must be an array of [left, right] id pairs");
  std::vector<std::pair<int, int>> merges;
  merges.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = "merges[" + std::to_string(i) + "]";
    const auto& m = j[i];
    if (!m.is_array() || m.size() != 2) fail(where + " must be an array of two ids, got " + m.dump());
    const int64_t limit = BpeTokenizer::kFirstMerge + static_cast<int64_t>(i);
    int ids[2];
    for (int k = 0; k < 2; ++k) {
      const int64_t id = require_int(m[k], where + "[" + std::to_string(k) + "]");
      if (id < BpeTokenizer::kFirstByte || id >= limit)
        fail(where + "[" + std::to_string(k) + "] = " + std::to_string(id) + " is out of range: must be in [2, " +
             std::to_string(limit) + ") (a byte or an earlier merge)");
      ids[k] = static_cast<int>(id);
    }
    merges.emplace_back(ids[0], ids[1]);
  }
  return merges;
}

void check_tokens(const nlohmann::json& j, const BpeTokenizer& tok) {
  if (!j.is_array()) fail("\"tokens\" must be an array of strings");
  if (static_cast<int64_t>(j.size()) != tok.vocab_size())
    fail("\"tokens\" has " + std::to_string(j.size()) + " entries but vocab_size is " +
         std::to_string(tok.vocab_size()));
  for (int id = 0; id < tok.vocab_size(); ++id) {
    const std::string where = "tokens[" + std::to_string(id) + "]";
    if (!j[id].is_string()) fail(where + " must be a string, got " + j[id].dump());
    const std::string want = tok.token_text(id);
    if (j[id].get<std::string>() != want)
      fail(where + " is " + j[id].dump() + " but the merges give " + nlohmann::json(want).dump());
  }
}

}  // namespace

BpeTokenizer BpeTokenizer::from_json(const std::string& text) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_object()) fail("the top level must be an object");
  const auto& type = require(root, "type");
  if (!type.is_string() || type.get<std::string>() != "byte-bpe")
    fail("\"type\" must be \"byte-bpe\", got " + type.dump());
  expect_int(root, "version", 1);
  expect_int(root, "bos_id", kBos);
  expect_int(root, "eos_id", kEos);
  const auto merges = parse_merges(require(root, "merges"));
  const int64_t vocab = require_int(require(root, "vocab_size"), "\"vocab_size\"");
  if (vocab != kFirstMerge + static_cast<int64_t>(merges.size()))
    fail("\"vocab_size\" is " + std::to_string(vocab) + " but 258 + " + std::to_string(merges.size()) +
         " merges = " + std::to_string(kFirstMerge + merges.size()));
  BpeTokenizer tok;
  try {
    tok = BpeTokenizer(merges);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  if (const auto it = root.find("tokens"); it != root.end()) check_tokens(*it, tok);
  return tok;
}

}  // namespace lookback
