// The Hugging Face byte-level BPE tokenizer: GPT-2's byte-to-character table, pre-tokenisation, merges by
// rank. Not here: lookback's byte-BPE (bpe.cpp).
#include "model/hf_tokenizer.hpp"

#include <climits>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/errors.hpp"
#include "model/json_depth.hpp"

namespace lookback {
namespace {

using nlohmann::json;

std::string utf8(int cp) {
  std::string s;
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xC0 | (cp >> 6)), s += char(0x80 | (cp & 0x3F));
  } else {
    s += char(0xE0 | (cp >> 12)), s += char(0x80 | ((cp >> 6) & 0x3F)), s += char(0x80 | (cp & 0x3F));
  }
  return s;
}

// GPT-2's table: printable bytes stand for themselves, the others for code points from 256 on.
struct ByteTable {
  std::string to_char[256];
  std::unordered_map<std::string, unsigned char> to_byte;
  ByteTable() {
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
      to_char[b] = utf8(printable ? b : next++);
      to_byte[to_char[b]] = static_cast<unsigned char>(b);
    }
  }
};

const ByteTable& bytes_table() {
  static const ByteTable t;
  return t;
}

// The code points of a UTF-8 string as separate strings (the byte-level strings are valid UTF-8).
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

bool letter(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c >= 0x80; }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

const json& need(const json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key)) model_error("tokenizer.json: ", where, " has no \"", key, "\"");
  return j.at(key);
}

// A string field, or a ModelError naming the key and what it must be.
const std::string& string_field(const json& j, const char* key, const char* where) {
  const json& v = need(j, key, where);
  if (!v.is_string()) model_error("tokenizer.json: \"", key, "\" of ", where, " must be a string (got ", v.dump().substr(0, 40), ")");
  return v.get_ref<const std::string&>();
}

// Settings of tokenizer.json that change which ids a text gets and that lookback does not implement: each is
// refused by name (reading the file without them would give other ids than the model was trained on, silently).
void refuse_id_changing_settings(const json& j, const json& model, const json& pre) {
  if (j.contains("normalizer") && !j["normalizer"].is_null())
    model_error("tokenizer.json: the normalizer ", j["normalizer"].is_object() ? j["normalizer"].value("type", "?") : j["normalizer"].dump().substr(0, 40),
                " changes the text before it is split (e.g. lowercasing, Unicode normalisation); lookback applies no normalizer");
  if (pre.is_object() && pre.contains("use_regex") && pre["use_regex"] == false)
    model_error("tokenizer.json: the ByteLevel pre_tokenizer has use_regex: false; lookback always splits with GPT-2's pattern");
  if (model.contains("dropout") && !model["dropout"].is_null() && !(model["dropout"].is_number() && model["dropout"].get<double>() == 0))
    model_error("tokenizer.json: the BPE has dropout ", model["dropout"].dump().substr(0, 40), " (random merges); lookback merges deterministically");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(key) && !model[key].is_null() && model[key] != "")
      model_error("tokenizer.json: the BPE has ", key, " ", model[key].dump().substr(0, 40), "; lookback reads byte-level BPE without one");
  if (model.contains("ignore_merges") && model["ignore_merges"] == true)
    model_error("tokenizer.json: the BPE has ignore_merges: true (whole words looked up first); lookback applies every merge");
}

// The ByteLevel step of a pre_tokenizer (alone or in a Sequence); ModelError for anything else.
const json& byte_level(const json& pre) {
  if (pre.is_object() && pre.value("type", "") == "ByteLevel") return pre;
  if (pre.is_object() && pre.value("type", "") == "Sequence" && pre.contains("pretokenizers") &&
      pre["pretokenizers"].is_array() && pre["pretokenizers"].size() == 1)
    return byte_level(pre["pretokenizers"][0]);
  model_error("tokenizer.json: the pre_tokenizer is ", pre.dump().substr(0, 120),
              "; lookback reads byte-level BPE tokenizers whose pre_tokenizer is ByteLevel (GPT-2's split pattern)");
}

}  // namespace

std::vector<std::string> gpt2_chunks(const std::string& text) {
  std::vector<std::string> out;
  const std::size_t n = text.size();
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < n) {
    if (text[i] == '\'') {  // contractions
      for (const char* c : {"s", "t", "re", "ve", "m", "ll", "d"}) {
        const std::string k(c);
        if (text.compare(i + 1, k.size(), k) == 0) {
          out.push_back(text.substr(i, 1 + k.size()));
          i += 1 + k.size();
          goto next;
        }
      }
    }
    {
      const std::size_t start = i;
      std::size_t j = i + (text[i] == ' ' && i + 1 < n && !space(at(i + 1)) ? 1 : 0);
      if (letter(at(j)) || digit(at(j)) || !space(at(j))) {
        const auto same = letter(at(j)) ? letter : digit(at(j)) ? digit : nullptr;
        if (same) {
          while (j < n && same(at(j))) ++j;
        } else {
          while (j < n && !space(at(j)) && !letter(at(j)) && !digit(at(j))) ++j;
        }
        out.push_back(text.substr(start, j - start));
        i = j;
        goto next;
      }
      // whitespace: a run, leaving its last space to the next word when a non-space follows
      while (j < n && space(at(j))) ++j;
      if (j < n && j - start > 1) --j;
      out.push_back(text.substr(start, j - start));
      i = j;
    }
  next:;
  }
  return out;
}

HfByteBpeTokenizer::HfByteBpeTokenizer(const std::string& json_text, int vocab_size, int bos, int eos)
    : vocab_size_(vocab_size), bos_(bos), eos_(eos) {
  check_json_depth(json_text, "tokenizer.json");
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    model_error("tokenizer.json is not well-formed JSON: ", e.what());
  }
  const json& model = need(j, "model", "the file");
  if (!model.is_object()) model_error("tokenizer.json: \"model\" must be an object");
  const std::string type = model.contains("type") && model["type"].is_string() ? model["type"].get<std::string>() : "";
  if (type != "BPE") model_error("tokenizer.json: model type \"", type, "\"; lookback reads byte-level BPE tokenizers");
  if (model.contains("byte_fallback") && model["byte_fallback"] == true)
    model_error("tokenizer.json: a BPE with byte_fallback (sentencepiece style); lookback reads byte-level BPE tokenizers");
  const json& pre = byte_level(need(j, "pre_tokenizer", "the file"));
  refuse_id_changing_settings(j, model, pre);
  const json& prefix = pre.contains("add_prefix_space") ? pre["add_prefix_space"] : json(false);
  if (!prefix.is_boolean()) model_error("tokenizer.json: \"add_prefix_space\" of the pre_tokenizer must be true or false");
  add_prefix_space_ = prefix.get<bool>();
  tokens_.assign(vocab_size, "");
  special_.assign(vocab_size, false);
  auto add = [&](const std::string& s, const json& id_json) {
    if (!id_json.is_number_integer()) model_error("tokenizer.json: the id of \"", s, "\" is not an integer");
    const long long id = id_json.get<long long>();
    if (id < 0 || id >= vocab_size)
      model_error("tokenizer.json: token \"", s, "\" has id ", id, ", outside the model's vocabulary of ", vocab_size);
    tokens_[id] = s;
    vocab_[s] = int(id);
  };
  const json& vocab = need(model, "vocab", "model");
  if (!vocab.is_object()) model_error("tokenizer.json: model.vocab must be an object");
  for (const auto& [s, id] : vocab.items()) add(s, id);
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& t : j["added_tokens"]) {
      add(string_field(t, "content", "an added token"), need(t, "id", "an added token"));
      special_[t["id"].get<int>()] = t.value("special", false);
    }
  }
  for (int b = 0; b < 256; ++b)
    if (!vocab_.count(bytes_table().to_char[b]))
      model_error("tokenizer.json: byte ", b, " has no token (\"", bytes_table().to_char[b], "\"); not a byte-level BPE");
  const json& merges = need(model, "merges", "model");
  if (!merges.is_array()) model_error("tokenizer.json: model.merges must be an array");
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const json& m = merges[r];
    std::string key;
    if (m.is_string()) key = m.get<std::string>();
    else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
      key = m[0].get<std::string>() + " " + m[1].get<std::string>();
    else model_error("tokenizer.json: merge ", r, " is neither \"left right\" nor [left, right]");
    ranks_.emplace(key, int(r));
  }
}

void HfByteBpeTokenizer::encode_chunk(const std::string& chunk, std::vector<int>& out) const {
  std::string mapped;
  for (unsigned char b : chunk) mapped += bytes_table().to_char[b];
  std::vector<std::string> parts = characters(mapped);
  for (;;) {  // merge the lowest-ranked adjacent pair, everywhere it occurs
    int best = INT_MAX;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      const auto it = ranks_.find(parts[k] + " " + parts[k + 1]);
      if (it != ranks_.end() && it->second < best) best = it->second;
    }
    if (best == INT_MAX) break;
    std::vector<std::string> merged;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (k + 1 < parts.size()) {
        const auto it = ranks_.find(parts[k] + " " + parts[k + 1]);
        if (it != ranks_.end() && it->second == best) {
          merged.push_back(parts[k] + parts[k + 1]);
          ++k;
          continue;
        }
      }
      merged.push_back(parts[k]);
    }
    parts = std::move(merged);
  }
  for (const std::string& p : parts) {
    const auto it = vocab_.find(p);
    if (it == vocab_.end()) model_error("tokenizer.json: the merged token \"", p, "\" is not in the vocabulary");
    out.push_back(it->second);
  }
}

std::vector<int> HfByteBpeTokenizer::encode(const std::string& text, bool bos) const {
  std::vector<int> ids;
  if (bos) ids.push_back(bos_);
  const std::string t = add_prefix_space_ && !text.empty() && text[0] != ' ' ? " " + text : text;
  for (const std::string& chunk : gpt2_chunks(t)) encode_chunk(chunk, ids);
  return ids;
}

std::string HfByteBpeTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size_) model_error("token id ", id, " is outside [0, ", vocab_size_, ")");
  if (special_[id] || id == bos_ || id == eos_) return "";
  std::string out;
  for (const std::string& c : characters(tokens_[id])) {
    const auto it = bytes_table().to_byte.find(c);
    out += it == bytes_table().to_byte.end() ? c : std::string(1, char(it->second));  // added tokens: as written
  }
  return out;
}

std::string HfByteBpeTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  for (int id : ids) out += token_bytes(id);
  return out;
}

std::string HfByteBpeTokenizer::token_text(int id) const {
  if (id == bos_) return "\u25C6";
  if (id == eos_) return "\u25C7";
  const std::string b = token_bytes(id);
  if (special_[id]) return tokens_[id];
  if (b.empty() && tokens_[id].empty()) return "<unused " + std::to_string(id) + ">";
  if (valid_utf8(b) == b) return b;
  std::string hex = "<0x";
  char buf[3];
  for (unsigned char c : b) std::snprintf(buf, sizeof buf, "%02X", c), hex += buf;
  return hex + ">";
}

}  // namespace lookback
