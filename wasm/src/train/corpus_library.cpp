// The template compiler, the lexicon, articles, the token estimate and the made-up names; see
// corpus_library.hpp. Also the public lexicon and template queries of corpus.hpp.
#include "train/corpus_library.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <unordered_map>

#include "model/bpe.hpp"
#include "train/corpus_words.hpp"

namespace lookback::corpus {
namespace detail {
namespace {

Slot slot_of(const std::string& name) {
  static const std::unordered_map<std::string, Slot> slots = {
      {"S", Slot::kS}, {"Sn", Slot::kSn}, {"So", Slot::kSo}, {"Sp", Slot::kSp}, {"X", Slot::kX},
      {"Xn", Slot::kXn}, {"Xo", Slot::kXo}, {"Xp", Slot::kXp}, {"SX", Slot::kSX}, {"THEY", Slot::kThey},
      {"KID", Slot::kKid}, {"XKID", Slot::kXKid}, {"PAR", Slot::kParent}, {"O", Slot::kO},
      {"aO", Slot::kaO}, {"AO", Slot::kAO}, {"aAO", Slot::kaAO}, {"OA", Slot::kOA}, {"OU", Slot::kOUse},
      {"OUI", Slot::kOUseBase}, {"aK", Slot::kaK}, {"aK2", Slot::kaK2}, {"K", Slot::kK}, {"KU", Slot::kKUse},
      {"D", Slot::kD}, {"aD", Slot::kaD},
      {"AD", Slot::kAD}, {"aAD", Slot::kaAD}, {"PL", Slot::kPlace}, {"PLc", Slot::kPlaceNow},
      {"C", Slot::kC}, {"CK", Slot::kCK}, {"aCA", Slot::kaCA}, {"CM", Slot::kCM}, {"CV", Slot::kCV},
      {"CT", Slot::kCT}, {"SH", Slot::kSHabit}, {"XH", Slot::kXHabit}, {"SONG", Slot::kSong},
      {"ACT", Slot::kAct}, {"ACT2", Slot::kAct2}, {"ACTI", Slot::kActBase},
      {"LINE", Slot::kLine}, {"EXCL", Slot::kExclaim}, {"QUES", Slot::kQuestion}};
  const auto it = slots.find(name);
  if (it != slots.end()) return it->second;
  if (word_lists().count(name)) return Slot::kList;
  throw std::logic_error("corpus template uses unknown slot {" + name + "}");
}

Compiled compile(const char* text) {
  Compiled c;
  const std::string s = text;
  bool owner_seen = false;
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '{') {
      const size_t j = std::min(s.find('{', i), s.size());
      c.segs.push_back({Slot::kLiteral, s.substr(i, j - i), nullptr});
      i = j;
      continue;
    }
    const size_t close = s.find('}', i);
    const std::string name = s.substr(i + 1, close - i - 1);
    Segment seg{slot_of(name), "", nullptr};
    if (seg.slot == Slot::kList) seg.list = &word_lists().at(name);
    const char k = name[0];
    if (name == "SX" || name == "THEY" || name == "XKID" || (k == 'X' && name.size() <= 2)) c.needs_friend = true;
    if (name == "C") c.needs_creature = true;
    if (seg.slot == Slot::kS || seg.slot == Slot::kSn || seg.slot == Slot::kSp || seg.slot == Slot::kParent ||
        seg.slot == Slot::kSX)
      owner_seen = true;
    if (seg.slot == Slot::kO || seg.slot == Slot::kaO || seg.slot == Slot::kAO || seg.slot == Slot::kaAO) {
      c.needs_object = true;
      c.owner_before_object = owner_seen;
    }
    if (seg.slot == Slot::kD || seg.slot == Slot::kaD || seg.slot == Slot::kAD || seg.slot == Slot::kaAD)
      c.needs_distractor = true;
    if (seg.slot == Slot::kaK || seg.slot == Slot::kK || seg.slot == Slot::kKUse) c.needs_clutter = std::max(c.needs_clutter, 1);
    if (seg.slot == Slot::kaK2) c.needs_clutter = 2;
    if (seg.slot == Slot::kOUse || seg.slot == Slot::kOUseBase) c.typed_use = true;
    c.segs.push_back(std::move(seg));
    i = close + 1;
  }
  return c;
}

void add_words(Library& lib, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {  // slot names are not words
      i = text.find('}', i) + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) { ++i; continue; }
    size_t j = i;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    const std::string w(text.substr(i, j - i));
    lib.words.insert(w);
    lib.lower_words.insert(lower(w));
    i = j;
  }
}

void build_lexicon(Library& lib) {
  for (const auto& t : kTemplates) add_words(lib, t.text);
  for (const auto& n : kNames) add_words(lib, n.name);
  for (const char* w : kPlaces) add_words(lib, w);
  for (const auto& c : kCreatures) { add_words(lib, c.kind); add_words(lib, c.motion); }
  for (const char* w : kCreatureAdj) add_words(lib, w);
  for (const char* w : kCreatureVerb) add_words(lib, w);
  for (const char* w : kCreatureTrait) add_words(lib, w);
  for (const char* w : kHabits) add_words(lib, w);
  for (const auto& a : kActivities) { add_words(lib, a.past); add_words(lib, a.base); }
  for (const auto& p : kParents) add_words(lib, p.word);
  for (const auto& [name, list] : word_lists())
    for (const char* w : list) add_words(lib, w);
  for (const char* w : kLines) add_words(lib, w);
  for (const char* w : kExclaims) add_words(lib, w);
  for (const char* w : kQuestions) add_words(lib, w);
  for (const char* w : {"a", "an", "and", "she", "he", "her", "him", "his", "they", "girl", "boy", "s"})
    add_words(lib, w);
  for (const Kind& k : kinds()) {
    for (const Use& u : k.uses) { add_words(lib, u.past); add_words(lib, u.base); }
    for (const char* w : k.adjectives) add_words(lib, w);
    if (k.measure) add_words(lib, k.measure);
  }
  // The things last: none may be a word of any other list or template (else a recall could be guessed).
  for (const Thing& t : all_things()) {
    if (lib.lower_words.count(lower(t.word)))
      throw std::logic_error(std::string("corpus: the thing \"") + t.word + "\" is also a word elsewhere");
    add_words(lib, t.word);
  }
}

std::string made_up_word(Rng& rng, int syllables) {
  std::string w;
  for (int i = 0; i < syllables; ++i) {
    if (i > 0 || rng.chance(0.85)) w += rng.pick(kOnsets);
    w += rng.pick(kVowels);
    if (i + 1 == syllables || rng.chance(0.5)) w += rng.pick(kCodas);
  }
  w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
  return w;
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const Library& library() {
  static const Library lib = [] {
    Library l;
    for (int i = 0; i < kTemplateCount; ++i) {
      l.templates.push_back(compile(kTemplates[i].text));
      l.by_beat[kTemplates[i].beat].push_back(i);
    }
    for (const char* t : kLines) l.lines.push_back(compile(t));
    for (const char* t : kExclaims) l.exclaims.push_back(compile(t));
    for (const char* t : kQuestions) l.questions.push_back(compile(t));
    build_lexicon(l);
    return l;
  }();
  return lib;
}

bool starts_with_vowel(std::string_view w) {
  return !w.empty() && std::string_view("aeiouAEIOU").find(w[0]) != std::string_view::npos;
}
std::string with_article(const std::string& phrase) { return (starts_with_vowel(phrase) ? "an " : "a ") + phrase; }

std::string made_up_name(Rng& rng, Split split) {
  const Library& lib = library();
  for (;;) {
    const int shape = rng.below(10);
    std::vector<std::string> words;
    if (shape < 3) words = {made_up_word(rng, 2)};
    else if (shape < 6) words = {made_up_word(rng, 3)};
    else if (shape < 8) words = {made_up_word(rng, 2), made_up_word(rng, 1)};
    else words = {made_up_word(rng, 1), made_up_word(rng, 2)};
    bool ok = true;
    for (const auto& w : words) ok = ok && w.size() >= 3 && !lib.lower_words.count(lower(w));
    if (!ok) continue;
    const std::string name = words.size() == 1 ? words[0] : words[0] + " " + words[1];
    if ((name_bucket(name) == 0) == (split == Split::probe)) return name;
  }
}

std::string made_up_thing(Rng& rng) {
  const Library& lib = library();
  for (;;) {
    std::string w = lower(made_up_word(rng, rng.between(1, 2)));
    if (w.size() >= 3 && !lib.lower_words.count(w)) return w;
  }
}

std::string made_up_song(Rng& rng) {
  const Library& lib = library();
  std::string song;
  for (int i = 0, n = rng.between(3, 5); i < n;) {
    std::string w = lower(made_up_word(rng, rng.between(1, 2)));
    if (lib.lower_words.count(w)) continue;
    song += (i++ ? " " : "") + w;
  }
  song[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(song[0])));
  return song;
}

bool pair_allowed(Split split, int bucket) {
  switch (split) {
    case Split::probe: return bucket == 0;
    case Split::validation: return bucket == 1;
    default: return bucket >= 2;
  }
}

// Estimate of the BPE token count of `text`, independent of any trained tokenizer: one token per
// pre-tokenisation chunk of a known word written after a space (such words become single tokens),
// two for a known word without the space (story start, after a quote), and for an invented word
// one per byte of its chunk (the tokenizer keeps those in pieces; this is an upper bound).
int estimate_tokens(std::string_view text) {
  int n = 0;
  for (std::string_view chunk : bpe_chunks(text)) {
    const bool spaced = chunk.size() > 1 && chunk[0] == ' ';
    std::string_view word = spaced ? chunk.substr(1) : chunk;
    if (!std::isalpha(static_cast<unsigned char>(word[0]))) n += 1;
    else if (!is_lexicon_word(word)) n += static_cast<int>(chunk.size());
    else n += spaced ? 1 : 2;
  }
  return n;
}

}  // namespace detail

using namespace detail;

bool is_lexicon_word(std::string_view word) {
  const Library& lib = library();
  const std::string w(word);
  return lib.words.count(w) || lib.lower_words.count(lower(w));
}

int lexicon_size() { return static_cast<int>(library().words.size()); }
int template_count() { return kTemplateCount; }
std::string template_text(int id) {
  if (id < 0 || id >= kTemplateCount) throw std::out_of_range("template id " + std::to_string(id));
  return kTemplates[id].text;
}

}  // namespace lookback::corpus
