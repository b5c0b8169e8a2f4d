// Wraps a story written elsewhere (a sampled TinyStories-like story) around an object recall: after the first
// sentence that names a child (a known first name, else "the girl" or "the boy"), the child gets a thing ("Lily had
// a little red kite.", sometimes beside a thing of another kind); at the end the child, by name or as she/he,
// reaches for it again ("Then she flew her kite."). The text between is the sample's own, so the gap a recall must
// bridge reads like plain stories, not like the generator's templates. Not a story generator (corpus.cpp).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "train/corpus.hpp"
#include "train/corpus_library.hpp"
#include "train/corpus_rng.hpp"
#include "train/corpus_words.hpp"

namespace lookback::corpus {

using namespace detail;

namespace {

// Sentence ends: a '.', '!' or '?' (and any closing quote) followed by a space.
std::vector<size_t> sentence_ends(const std::string& s) {
  std::vector<size_t> ends;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != '.' && s[i] != '!' && s[i] != '?') continue;
    size_t j = i + 1;
    if (j < s.size() && s[j] == '"') ++j;
    if (j < s.size() && s[j] == ' ') ends.push_back(j);  // the space after the sentence
  }
  return ends;
}

bool word_at(const std::string& s, size_t at, const std::string& w) {
  if (s.compare(at, w.size(), w) != 0) return false;
  const bool left = at == 0 || !std::isalpha(static_cast<unsigned char>(s[at - 1]));
  const size_t r = at + w.size();
  return left && (r >= s.size() || !std::isalpha(static_cast<unsigned char>(s[r])));
}

// The first known first name in `s` and where it is, or -1.
int first_name(const std::string& s, size_t& at) {
  at = std::string::npos;
  int best = -1;
  for (int n = 0; n < kNameCount; ++n) {
    const std::string w = kNames[n].name;
    for (size_t p = s.find(w); p != std::string::npos && p < at; p = s.find(w, p + 1)) {
      if (word_at(s, p, w)) {
        at = p;
        best = n;
        break;
      }
    }
  }
  return best;
}

}  // namespace

// True when a sentence of three or more words occurs twice in `s` (a sampled story stuck in a loop).
bool repeats_a_sentence(const std::string& s) {
  std::set<std::string> seen;
  size_t from = 0;
  std::vector<size_t> ends = sentence_ends(s);
  ends.push_back(s.size());
  for (size_t e : ends) {
    std::string one = s.substr(from, e - from);
    from = e + 1;
    while (!one.empty() && one.front() == ' ') one.erase(0, 1);
    if (std::count(one.begin(), one.end(), ' ') >= 2 && !seen.insert(one).second) return true;
  }
  return false;
}

namespace {

std::string fill(std::string t, const std::map<std::string, std::string>& slots) {
  for (const auto& [key, v] : slots)
    for (size_t p; (p = t.find(key)) != std::string::npos;) t.replace(p, key.size(), v);
  if (!t.empty()) t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

// "a small red box", "a glass of milk", "an old pli": a thing of `kind` with its adjectives and article.
std::string described(Rng& rng, const Kind& kind, const std::string& word) {
  std::string adj;
  if (!kind.adjectives.empty()) adj = rng.pick(kind.adjectives);
  else if (rng.chance(0.3)) adj = std::string(rng.pick(word_lists().at("SIZE"))) + " " + rng.pick(word_lists().at("COLOR"));
  else if (rng.chance(0.7)) adj = rng.pick(word_lists().at("OADJ"));
  std::string phrase = kind.measure ? std::string(kind.measure) + " " : "";
  phrase += adj.empty() ? word : adj + " " + word;
  return with_article(phrase);
}

// {N}/{n}: the child's name (or "the girl"), {S}/{s}: she/he, {P}: her/his, {M}: her/him, {A}: the thing with its
// article, {D}: another thing of another kind, {T}: the thing's word, {U}: a verb of its kind.
const char* const kIntro[] = {
    "{N} had {A}.", "{N} got {A} from {P} mom.", "{N} found {A} in the garden.", "{N} always carried {A} with {M}.",
    "{N} had {A} that {s} loved very much.", "Grandma gave {n} {A}.", "{N} saw {A} on a bench and took it home.",
    "That morning, {n} got {A} for {P} birthday.", "{N} kept {A} in {P} room.", "Dad gave {n} {A}.",
    "{N} had {A} under {P} bed.", "{N} found {A} near the door.", "{N} got {A} from a friend.",
    "For {P} birthday, {n} got {A}.", "{N} made {A} with {P} dad."};
const char* const kIntroWith[] = {  // the thing beside another thing of another kind
    "{N} had {A} and {D}.", "Mom gave {n} {A} and {D}.", "{N} found {A} next to {D}.",
    "In {P} room, {n} had {D} and {A}.", "{N} put {A} and {D} in {P} bag.", "Grandpa gave {n} {D} and {A}."};
const char* const kIt[] = {
    "{N} loved it very much.", "It was {n}'s favorite thing.", "{S} took it everywhere.", "It was very special to {M}.",
    "{S} kept it close all day.", "{S} looked at it and smiled.", "{S} put it down on the table.",
    "{S} did not want to lose it."};
const char* const kRecallUse[] = {  // the verb fits only the thing's kind
    "Then {n} {U} {P} {T}.", "At the end of the day, {n} {U} the {T}.", "Later, {n} went home and {U} {P} {T}.",
    "{N} smiled and {U} {P} {T}.", "Before bed, {n} {U} the {T}.", "After that, {n} {U} {P} {T} again.",
    "{N} sat down and {U} the {T}.", "{N} was happy, so {s} {U} {P} {T}.", "At last, {n} {U} the {T}.",
    "{N} ran back and {U} {P} {T}.", "{N} took a deep breath and {U} the {T}.", "Then {n} carefully {U} the {T}."};
const char* const kRecallAny[] = {  // any verb: only the one thing fits
    "{N} looked for {P} {T}.", "{N} showed {P} mom the {T}.", "{N} picked up {P} {T} and held it tight.",
    "Then {n} remembered {P} {T}.", "{N} found {P} {T} under the bed.", "{N} reached for {P} {T}.",
    "{N} ran home and grabbed {P} {T}.", "{N} looked everywhere for {P} {T}."};

// Who the thing belongs to: the first known first name, else the first "girl" or "boy"; false if neither.
bool owner(const std::string& s, size_t& at, std::string& name, bool& female) {
  const int n = first_name(s, at);
  if (n >= 0) {
    name = kNames[n].name;
    female = kNames[n].female;
    return true;
  }
  for (const char* w : {"girl", "boy"})
    for (size_t p = s.find(w); p != std::string::npos; p = s.find(w, p + 1))
      if (word_at(s, p, w) && p < at) {
        at = p;
        name = std::string("the ") + w;
        female = w[0] == 'g';
        break;
      }
  return at != std::string::npos;
}

}  // namespace

std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index) {
  Rng rng(story_seed(seed, Split::train, index, 7));
  size_t at;
  std::string name;
  bool female;
  const std::vector<size_t> ends = sentence_ends(sample);
  if (!owner(sample, at, name, female) || ends.size() < 3) return sample;
  size_t cut = 0;  // the end of the sentence naming the child
  for (size_t e : ends)
    if (e > at) {
      cut = e;
      break;
    }
  if (cut == 0 || cut == ends.back()) return sample;
  const Thing& th = rng.pick(all_things());
  const Kind& kind = kinds()[th.kind];
  const std::string word = rng.chance(0.15) ? made_up_thing(rng) : th.word;
  const bool with_other = rng.chance(0.35);
  std::string other;
  if (with_other) {
    const Thing* o = &rng.pick(all_things());
    while (o->kind == th.kind) o = &rng.pick(all_things());
    other = described(rng, kinds()[o->kind], o->word);
  }
  std::map<std::string, std::string> slots = {
      {"{N}", name}, {"{n}", name}, {"{S}", female ? "she" : "he"}, {"{s}", female ? "she" : "he"},
      {"{P}", female ? "her" : "his"}, {"{M}", female ? "her" : "him"}, {"{T}", word},
      {"{A}", described(rng, kind, word)}, {"{D}", other}};
  std::string intro = fill(with_other ? rng.pick(kIntroWith) : rng.pick(kIntro), slots);
  if (!with_other && rng.chance(0.4)) intro += " " + fill(rng.pick(kIt), slots);  // "it" only when one thing
  // The recall names the owner or says she/he (as most hand-written stories would by then).
  if (rng.chance(0.6)) slots["{N}"] = slots["{n}"] = slots["{S}"];
  slots["{U}"] = rng.pick(kind.uses).past;
  const std::string recall = fill(with_other || rng.chance(0.6) ? rng.pick(kRecallUse) : rng.pick(kRecallAny), slots);
  return sample.substr(0, cut) + " " + intro + sample.substr(cut) + " " + recall;
}

}  // namespace lookback::corpus
