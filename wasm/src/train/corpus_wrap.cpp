// Wraps a story written elsewhere (a sampled TinyStories-like story) around an object recall: after the first
// sentence that names a known first name, that child gets a thing ("Lily had a little red kite."); at the end the
// child reaches for it again with a verb of its kind ("Then Lily flew her kite."). The text between is the
// sample's own, so the gap a recall must bridge reads like plain stories, not like the generator's templates.
// Not a story generator (corpus.cpp) and not a tokenizer step.
#include <cctype>
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

std::string fill(std::string t, const std::string& name, bool female, const std::string& thing) {
  auto put = [&](const std::string& key, const std::string& v) {
    for (size_t p; (p = t.find(key)) != std::string::npos;) t.replace(p, key.size(), v);
  };
  put("{N}", name);
  put("{P}", female ? "her" : "his");
  put("{M}", female ? "her" : "him");
  put("{T}", thing);
  return t;
}

}  // namespace

std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index) {
  Rng rng(story_seed(seed, Split::train, index, 7));
  size_t at;
  const int n = first_name(sample, at);
  const std::vector<size_t> ends = sentence_ends(sample);
  if (n < 0 || ends.size() < 3) return sample;
  size_t cut = 0;  // the end of the sentence naming the child
  for (size_t e : ends)
    if (e > at) {
      cut = e;
      break;
    }
  if (cut == 0 || cut == ends.back()) return sample;
  const Thing& th = rng.pick(all_things());
  const Kind& kind = kinds()[th.kind];
  std::string word = rng.chance(0.08) ? made_up_thing(rng) : th.word;
  std::string adj;
  if (!kind.adjectives.empty()) adj = rng.pick(kind.adjectives);
  else if (rng.chance(0.3)) adj = std::string(rng.pick(word_lists().at("SIZE"))) + " " + rng.pick(word_lists().at("COLOR"));
  else if (rng.chance(0.7)) adj = rng.pick(word_lists().at("OADJ"));
  std::string a_thing = kind.measure ? std::string(kind.measure) + " " : "";
  a_thing += adj.empty() ? word : adj + " " + word;
  a_thing = with_article(a_thing);
  static const char* const kIntro[] = {
      "{N} had {A}.", "{N} got {A} from {P} mom.", "{N} found {A} in the garden.", "{N} always carried {A} with {M}.",
      "{N} had {A} that {N} loved very much.", "Grandma gave {N} {A}.", "{N} had a new thing: {A}.",
      "{N} saw {A} on a bench and took it home.", "That morning, {N} got {A} for {P} birthday.",
      "{N} kept {A} in {P} room."};
  static const char* const kIt[] = {"{N} loved it very much.", "It was {N}'s favorite thing.",
                                    "{N} took it everywhere.", "It was very special to {M}."};
  static const char* const kRecall[] = {
      "Then {N} {U} {P} {T}.", "At the end of the day, {N} {U} the {T}.", "Later, {N} went home and {U} {P} {T}.",
      "{N} smiled and {U} {P} {T}.", "Before bed, {N} {U} the {T}.", "{N} looked for {P} {T}.",
      "{N} showed {P} mom the {T}.", "{N} picked up {P} {T} and held it tight.", "Then {N} remembered {P} {T}.",
      "After that, {N} {U} {P} {T} again."};
  const bool female = kNames[n].female;
  const std::string name = kNames[n].name;
  std::string intro = fill(rng.pick(kIntro), name, female, word);
  for (size_t p; (p = intro.find("{A}")) != std::string::npos;) intro.replace(p, 3, a_thing);
  if (rng.chance(0.4)) intro += " " + fill(rng.pick(kIt), name, female, word);
  std::string recall = fill(rng.pick(kRecall), name, female, word);
  for (size_t p; (p = recall.find("{U}")) != std::string::npos;) recall.replace(p, 3, rng.pick(kind.uses).past);
  return sample.substr(0, cut) + " " + intro + sample.substr(cut) + " " + recall;
}

}  // namespace lookback::corpus
