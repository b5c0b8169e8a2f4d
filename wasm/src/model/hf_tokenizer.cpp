// The Hugging Face BPE tokenizers: reading tokenizer.json's steps, GPT-2's byte-to-character table, added
// tokens, byte fallback, merges by rank. Not here: the split patterns (pretokenize.cpp), lookback's byte-BPE (bpe.cpp).
#include "model/hf_tokenizer.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <queue>
#include <nlohmann/json.hpp>

#include "model/errors.hpp"
#include "model/json_depth.hpp"
#include "model/pretokenize.hpp"

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


const std::string kMetaspace = "\u2581";

std::string type_of(const json& j) { return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "?"; }

// The steps of a Sequence (its key "normalizers" or "pretokenizers"), or the one step itself.
std::vector<json> steps_of(const json& j, const char* key) {
  if (j.is_null()) return {};
  if (type_of(j) == "Sequence" && j.contains(key) && j[key].is_array()) return j[key].get<std::vector<json>>();
  return {j};
}

[[noreturn]] void refuse(const char* what, const json& step, const char* why) {
  model_error("tokenizer.json: the ", what, " ", type_of(step), " ", step.dump().substr(0, 120), " ", why);
}

// A Replace of " " by "▁" (sentencepiece's space).
bool spaces_to_metaspace(const json& step) {
  return type_of(step) == "Replace" && step.contains("pattern") && step["pattern"] == json{{"String", " "}} &&
         step.value("content", "") == kMetaspace;
}

void read_normalizer(const json& j, HfTextSteps& s) {
  if (!j.contains("normalizer")) return;
  const std::vector<json> steps = steps_of(j["normalizer"], "normalizers");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const json& n = steps[i];
    if (type_of(n) == "NFC") s.nfc = true;
    else if (type_of(n) == "Prepend" && n.value("prepend", "") == kMetaspace && i == 0) s.prepend = 3;
    else if (spaces_to_metaspace(n)) s.spaces_to_metaspace = true;
    else refuse("normalizer", n, "changes the text before it is split (e.g. lowercasing, Unicode normalisation); "
                "lookback applies NFC and sentencepiece's Prepend/Replace of spaces only");
  }
}

void read_pre_tokenizer(const json& j, HfTextSteps& s) {
  const std::vector<json> steps = steps_of(j.contains("pre_tokenizer") ? j["pre_tokenizer"] : json(), "pretokenizers");
  bool byte_level = false, regex = false, digits = false;
  for (const json& p : steps) {
    const std::string type = type_of(p);
    if (type == "Digits" && p.value("individual_digits", false) == true && !byte_level && !regex) {
      digits = true;  // SmolLM's: every digit alone, before ByteLevel's own split
    } else if (type == "ByteLevel") {
      byte_level = true;
      const json prefix = p.value("add_prefix_space", json(false));
      if (!prefix.is_boolean()) model_error("tokenizer.json: \"add_prefix_space\" of the pre_tokenizer must be true or false");
      s.add_prefix_space = prefix.get<bool>();
      const bool use_regex = p.value("use_regex", true);
      if (use_regex && regex) refuse("pre_tokenizer", p, "splits twice (a Split regex and ByteLevel's own); lookback reads one split");
      if (!use_regex && !regex)
        refuse("pre_tokenizer", p, "has use_regex: false without a Split before it; lookback splits with GPT-2's or a Split's pattern");
      if (s.add_prefix_space && regex) refuse("pre_tokenizer", p, "adds a prefix space to every piece of a Split; lookback reads it alone");
      regex = regex || use_regex;
    } else if (type == "Split" && p.contains("pattern") && p["pattern"].is_object() && p["pattern"].contains("Regex")) {
      if (!p["pattern"]["Regex"].is_string() || !split_pattern_of(p["pattern"]["Regex"].get<std::string>(), s.pattern))
        refuse("pre_tokenizer", p, "splits with a regex lookback does not implement (it implements GPT-2's, Llama 3's and Qwen2's)");
      if (p.value("behavior", "") != "Isolated" || p.value("invert", false))
        refuse("pre_tokenizer", p, "is a Split whose matches are not isolated pieces");
      regex = true;
    } else if (type == "Split" && p.contains("pattern") && p["pattern"].is_object() && p["pattern"].contains("String") &&
               p["pattern"]["String"].is_string() && p.value("behavior", "") == "MergedWithPrevious" && !p.value("invert", false)) {
      s.split_after = p["pattern"]["String"].get<std::string>();
    } else if (type == "Metaspace" && p.value("replacement", "") == kMetaspace) {
      s.spaces_to_metaspace = true;
      const std::string scheme = p.value("prepend_scheme", p.value("add_prefix_space", true) ? "always" : "never");
      s.prepend = scheme == "always" ? 2 : scheme == "first" ? 1 : 0;
      s.metaspace_split = p.value("split", true);
    } else {
      refuse("pre_tokenizer", p, "is not one lookback reads (ByteLevel, a Split with GPT-2's, Llama 3's or Qwen2's regex, "
             "single Digits before ByteLevel, Metaspace, a Split on a string)");
    }
  }
  if (digits) {
    if (!byte_level || s.pattern != SplitPattern::gpt2 || s.add_prefix_space)
      model_error("tokenizer.json: a Digits split of single digits is read before ByteLevel's own split only");
    s.pattern = SplitPattern::smollm;
  }
  if (byte_level && !s.split_after.empty())
    model_error("tokenizer.json: a Split on the string \"", s.split_after, "\" before ByteLevel; lookback reads a Split on a string in sentencepiece-style tokenizers only");
  s.byte_level = byte_level;
  s.split = regex;
}

// Settings of the BPE model that change which ids a text gets and that lookback does not implement: each is
// refused by name (reading the file without them would give other ids than the model was trained on, silently).
void refuse_id_changing_settings(const json& model) {
  if (model.contains("dropout") && !model["dropout"].is_null() && !(model["dropout"].is_number() && model["dropout"].get<double>() == 0))
    model_error("tokenizer.json: the BPE has dropout ", model["dropout"].dump().substr(0, 40), " (random merges); lookback merges deterministically");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(key) && !model[key].is_null() && model[key] != "")
      model_error("tokenizer.json: the BPE has ", key, " ", model[key].dump().substr(0, 40), "; lookback reads BPE without one");
}

}  // namespace

std::vector<std::string> gpt2_chunks(const std::string& text) { return pretokenize(SplitPattern::gpt2, text); }

HfBpeTokenizer::HfBpeTokenizer(const std::string& json_text, int vocab_size, int bos, int eos)
    : HfBpeTokenizer(&static_cast<const json&>(parsed(json_text)), vocab_size, bos, eos) {}

std::shared_ptr<const HfBpeTokenizer> HfBpeTokenizer::from_json(const nlohmann::json& j, int vocab_size, int bos, int eos) {
  return std::shared_ptr<const HfBpeTokenizer>(new HfBpeTokenizer(&j, vocab_size, bos, eos));
}

nlohmann::json HfBpeTokenizer::parsed(const std::string& json_text) {
  check_json_depth(json_text, "tokenizer.json");
  try {
    return json::parse(json_text);
  } catch (const json::exception& e) {
    model_error("tokenizer.json is not well-formed JSON: ", e.what());
  }
}

HfBpeTokenizer::HfBpeTokenizer(const nlohmann::json* tokenizer_json, int vocab_size, int bos, int eos)
    : vocab_size_(vocab_size), bos_(bos), eos_(eos) {
  const json& j = *tokenizer_json;
  const json& model = need(j, "model", "the file");
  if (!model.is_object()) model_error("tokenizer.json: \"model\" must be an object");
  const std::string type = model.contains("type") && model["type"].is_string() ? model["type"].get<std::string>() : "";
  if (type != "BPE") model_error("tokenizer.json: model type \"", type, "\"; lookback reads BPE tokenizers (byte-level or with byte_fallback)");
  read_normalizer(j, steps_);
  read_pre_tokenizer(j, steps_);
  refuse_id_changing_settings(model);
  const bool byte_fallback = model.value("byte_fallback", false) == true;
  if (steps_.byte_level && (byte_fallback || steps_.spaces_to_metaspace || steps_.prepend))
    model_error("tokenizer.json: a ByteLevel pre_tokenizer with sentencepiece's byte_fallback or \"\u2581\" spaces; lookback reads one or the other");
  if (!steps_.byte_level && !byte_fallback)
    model_error("tokenizer.json: a BPE with neither a ByteLevel pre_tokenizer nor byte_fallback; lookback reads those two kinds");
  ignore_merges_ = model.value("ignore_merges", false) == true;
  tokens_.assign(vocab_size, "");
  special_.assign(vocab_size, false);
  auto add = [&](const std::string& s, const json& id_json) {
    if (!id_json.is_number_integer()) model_error("tokenizer.json: the id of \"", s, "\" is not an integer");
    const long long id = id_json.get<long long>();
    if (id < 0 || id >= vocab_size)
      model_error("tokenizer.json: token \"", s, "\" has id ", id, ", outside the model's vocabulary of ", vocab_size);
    tokens_[id] = s;
    vocab_[s] = int(id);
    return int(id);
  };
  const json& vocab = need(model, "vocab", "model");
  if (!vocab.is_object()) model_error("tokenizer.json: model.vocab must be an object");
  for (const auto& [s, id] : vocab.items()) add(s, id);
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& t : j["added_tokens"]) {
      const std::string& content = string_field(t, "content", "an added token");
      for (const char* flag : {"lstrip", "rstrip", "single_word"})
        if (t.value(flag, false) == true)
          model_error("tokenizer.json: the added token \"", content, "\" has ", flag, ": true; lookback matches added tokens as written");
      if (t.value("normalized", false) == true && (steps_.nfc || steps_.spaces_to_metaspace || steps_.prepend))
        model_error("tokenizer.json: the added token \"", content, "\" is matched in the normalized text; lookback matches added tokens as written");
      const int id = add(content, need(t, "id", "an added token"));
      special_[id] = t.value("special", false);
      if (!content.empty()) added_[static_cast<unsigned char>(content[0])].emplace_back(content, id);
    }
  }
  for (auto& [first, list] : added_)
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  if (model.contains("unk_token") && model["unk_token"].is_string()) {
    const auto it = vocab_.find(model["unk_token"].get<std::string>());
    if (it != vocab_.end()) unk_ = it->second;
  }
  char hex[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    const std::string& name = steps_.byte_level ? bytes_table().to_char[b] : std::string(hex);
    const auto it = vocab_.find(name);
    if (it == vocab_.end())
      model_error("tokenizer.json: byte ", b, " has no token (\"", name, "\"); ",
                  steps_.byte_level ? "not a byte-level BPE" : "byte_fallback needs <0x00> to <0xFF>");
    byte_token_[b] = it->second;
  }
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

// One stretch of text between added tokens, normalized and pre-tokenized into the pieces merged separately.
std::vector<std::string> HfBpeTokenizer::pieces(std::string text, bool first) const {
  const HfTextSteps& s = steps_;
  if (s.byte_level) {
    // ByteLevel's add_prefix_space: before every stretch (the tokenizers library pre-tokenizes each stretch between
    // added tokens alone); Metaspace's "first" below is the text's first stretch only
    if (s.add_prefix_space && !text.empty() && text[0] != ' ') text = " " + text;
    if (!s.split) return {text};
    return pretokenize(s.pattern, text);
  }
  if (text.empty()) return {};
  if (s.spaces_to_metaspace) {
    std::string t;
    for (char ch : text) t += ch == ' ' ? kMetaspace : std::string(1, ch);
    text = std::move(t);
  }
  // the Prepend normalizer always; Metaspace's prepend_scheme when the text does not start with "▁" already
  const bool starts = text.compare(0, kMetaspace.size(), kMetaspace) == 0;
  if (s.prepend == 3 || ((s.prepend == 2 || (s.prepend == 1 && first)) && !starts)) text = kMetaspace + text;
  std::vector<std::string> out{text};
  // cut each piece before (Metaspace's split) or after (MergedWithPrevious) every occurrence of mark
  const auto cut = [&](const std::string& mark, bool before) {
    std::vector<std::string> next;
    for (const std::string& p : out) {
      std::size_t start = 0;
      for (std::size_t at = p.find(mark); at != std::string::npos; at = p.find(mark, at + mark.size())) {
        const std::size_t end = before ? at : at + mark.size();
        if (end > start) next.push_back(p.substr(start, end - start)), start = end;
      }
      if (start < p.size()) next.push_back(p.substr(start));
    }
    out = std::move(next);
  };
  if (s.metaspace_split) cut(kMetaspace, true);
  if (!s.split_after.empty()) cut(s.split_after, false);
  return out;
}

void HfBpeTokenizer::encode_piece(const std::string& piece, std::vector<int>& out) const {
  std::string word;
  if (steps_.byte_level)
    for (unsigned char b : piece) word += bytes_table().to_char[b];
  else
    word = piece;
  if (ignore_merges_) {  // a piece that is a token is that token
    const auto it = vocab_.find(word);
    if (it != vocab_.end()) return out.push_back(it->second);
  }
  std::vector<std::string> parts;
  for (const std::string& ch : characters(word)) {
    if (steps_.byte_level || vocab_.count(ch)) {
      parts.push_back(ch);
      continue;
    }
    for (unsigned char b : ch) parts.push_back(tokens_[byte_token_[b]]);  // byte fallback: <0xXX> each
  }
  for (const std::string& p : merge_by_rank(std::move(parts))) {
    const auto it = vocab_.find(p);
    if (it != vocab_.end()) out.push_back(it->second);
    else if (unk_ >= 0) out.push_back(unk_);
    else model_error("tokenizer.json: the merged token \"", p, "\" is not in the vocabulary");
  }
}

// Merges the adjacent pair of lowest rank, the leftmost first, until no pair has a rank (the tokenizers library's
// order): the parts as a linked list and the candidate pairs in a heap, so a piece of n parts takes O(n log n)
// look-ups, not a pass over the piece per merge. A candidate whose parts have changed since it was pushed is
// skipped when it comes up.
std::vector<std::string> HfBpeTokenizer::merge_by_rank(std::vector<std::string> parts) const {
  const int n = static_cast<int>(parts.size());
  std::vector<int> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
  struct Candidate { int rank, left, right; };
  const auto later = [](const Candidate& a, const Candidate& b) { return a.rank != b.rank ? a.rank > b.rank : a.left > b.left; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> heap(later);
  const auto rank_of = [&](int l, int r) {
    const auto it = ranks_.find(parts[l] + " " + parts[r]);
    return it == ranks_.end() ? -1 : it->second;
  };
  const auto push = [&](int l) {
    if (l < 0 || next[l] < 0) return;
    const int rank = rank_of(l, next[l]);
    if (rank >= 0) heap.push({rank, l, next[l]});
  };
  for (int i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || rank_of(c.left, c.right) != c.rank) continue;
    parts[c.left] += parts[c.right];
    alive[c.right] = false;
    next[c.left] = next[c.right];
    if (next[c.left] >= 0) prev[next[c.left]] = c.left;
    push(prev[c.left]);
    push(c.left);
  }
  std::vector<std::string> merged;
  for (int i = 0; i < n; ++i)
    if (alive[i]) merged.push_back(std::move(parts[i]));
  return merged;
}

std::vector<int> HfBpeTokenizer::encode(const std::string& text, bool bos) const {
  std::vector<int> ids;
  if (bos) ids.push_back(bos_);
  // added tokens are found in the text as written, the longest at the leftmost place first; the stretches
  // between them are normalized and split on their own
  std::size_t from = 0;
  bool first = true;
  const auto stretch = [&](std::size_t end) {
    if (end > from)
      for (const std::string& p : pieces(text.substr(from, end - from), first)) encode_piece(p, ids);
    first = false;
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto list = added_.find(static_cast<unsigned char>(text[i]));
    const std::pair<std::string, int>* hit = nullptr;
    if (list != added_.end())
      for (const auto& a : list->second)
        if (text.compare(i, a.first.size(), a.first) == 0) {
          hit = &a;
          break;
        }
    if (!hit) {
      ++i;
      continue;
    }
    stretch(i);
    ids.push_back(hit->second);
    i += hit->first.size();
    from = i;
  }
  stretch(text.size());
  return ids;
}

std::string HfBpeTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size_) model_error("token id ", id, " is outside [0, ", vocab_size_, ")");
  if (special_[id] || id == bos_ || id == eos_) return "";
  const std::string& t = tokens_[id];
  if (!steps_.byte_level) {
    unsigned b;
    if (t.size() == 6 && std::sscanf(t.c_str(), "<0x%2X>", &b) == 1) return std::string(1, char(b));
    std::string out;
    for (std::size_t i = 0; i < t.size();) {
      if (t.compare(i, kMetaspace.size(), kMetaspace) == 0) out += ' ', i += kMetaspace.size();
      else out += t[i++];
    }
    return out;
  }
  std::string out;
  for (const std::string& c : characters(t)) {
    const auto it = bytes_table().to_byte.find(c);
    out += it == bytes_table().to_byte.end() ? c : std::string(1, char(it->second));  // added tokens: as written
  }
  return out;
}

std::vector<std::string> HfBpeTokenizer::decode_each(const std::vector<int>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int id : ids) out.push_back(token_bytes(id));
  // sentencepiece's decoders take off the space the "▁" before the text became (the text's first byte)
  if (steps_.prepend)
    for (std::string& piece : out)
      if (!piece.empty()) {
        if (piece[0] == ' ') piece.erase(0, 1);
        break;
      }
  return out;
}

std::string HfBpeTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  for (const std::string& piece : decode_each(ids)) out += piece;
  return out;
}

std::string HfBpeTokenizer::token_text(int id) const {
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
