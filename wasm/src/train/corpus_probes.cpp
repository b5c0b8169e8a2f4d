// The corpus's labelled probes: object recall (the story up to the recall, with a swapped-object twin),
// pronoun antecedents and made-up-name repeats, cut from probe-split stories; and their JSON form.
// Not the evaluation that runs them (evaluate.cpp).
#include <nlohmann/json.hpp>

#include "train/corpus.hpp"
#include "train/corpus_library.hpp"
#include "train/corpus_rng.hpp"
#include "train/corpus_words.hpp"

namespace lookback::corpus {

using namespace detail;

namespace {

int count_words(std::string_view s) {
  int n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

StoryOptions probe_options() {
  StoryOptions o;
  o.force_recall = true;
  o.force_creature = true;
  o.allow_object_repeat = false;
  o.allow_distractor = false;
  o.copy_practice = false;
  return o;
}

bool recall_probe(const Story& s, uint64_t seed, Probe& p) {
  if (s.recall_char < 1 || s.object_char < 0 || s.object_mentions != 2) return false;
  p.kind = "recall";
  p.text = s.text.substr(0, s.recall_char - 1);
  p.answer = " " + s.object;
  p.answer_char = s.object_char;
  p.distance_words = count_words(p.text.substr(s.object_char + s.object.size()));
  Rng rng(mix64(seed));
  // Another thing of the same kind (the cue's verb still fits) and the same article, if the kind has one.
  const auto& things = all_things();
  int kind = -1;
  for (const Thing& t : things)
    if (s.object == t.word) kind = t.kind;
  bool same_kind_exists = false;
  for (const Thing& t : things)
    same_kind_exists |= t.kind == kind && t.word != s.object && starts_with_vowel(t.word) == starts_with_vowel(s.object);
  std::string swap;
  const Thing* pick = nullptr;
  do pick = &things[rng.below(thing_count())];
  while (pick->word == s.object || starts_with_vowel(pick->word) != starts_with_vowel(s.object) ||
         (same_kind_exists && pick->kind != kind));
  swap = pick->word;
  p.swap_text = p.text;
  p.swap_text.replace(s.object_char, s.object.size(), swap);
  p.swap_answer = " " + swap;
  return p.distance_words >= 12;
}

bool pronoun_probe(const Story& s, uint64_t seed, Probe& p) {
  std::vector<const PronounUse*> clear;
  for (const auto& u : s.pronouns)
    if (u.subject && u.sole_of_gender && u.antecedent_char >= 0 && u.pronoun_char - u.antecedent_char >= 12)
      clear.push_back(&u);
  if (clear.empty()) return false;
  Rng rng(mix64(seed));
  const PronounUse& u = *clear[rng.below(static_cast<int>(clear.size()))];
  p.kind = "pronoun";
  p.text = s.text;
  p.pronoun_char = u.pronoun_char;
  p.antecedent_char = u.antecedent_char;
  p.pronoun = s.text.substr(u.pronoun_char, u.pronoun.size());
  p.name = u.name;
  return true;
}

bool name_probe(const Story& s, Probe& p) {
  if (s.name_chars.size() < 2) return false;
  p.kind = "name";
  p.text = s.text;
  p.name = s.made_up_name;
  p.first_char = s.name_chars[0];
  p.second_char = s.name_chars[1];
  return true;
}

}  // namespace

std::vector<Probe> make_probes(uint64_t seed, int per_kind) {
  std::vector<Probe> probes;
  const StoryOptions opt = probe_options();
  for (int kind = 0; kind < 3; ++kind) {
    int made = 0;
    for (uint64_t i = 0; made < per_kind; ++i) {
      const uint64_t index = (static_cast<uint64_t>(kind) << 40) + i;
      const Story s = make_story(seed, Split::probe, index, opt);
      Probe p;
      const uint64_t pseed = mix64(seed ^ mix64(index));
      const bool ok = kind == 0 ? recall_probe(s, pseed, p) : kind == 1 ? pronoun_probe(s, pseed, p) : name_probe(s, p);
      if (ok) {
        probes.push_back(std::move(p));
        ++made;
      }
    }
  }
  return probes;
}

std::string probe_to_json(const Probe& p) {
  nlohmann::ordered_json j;
  j["kind"] = p.kind;
  j["text"] = p.text;
  if (p.kind == "recall") {
    j["answer"] = p.answer;
    j["answer_char"] = p.answer_char;
    j["swap_text"] = p.swap_text;
    j["swap_answer"] = p.swap_answer;
    j["distance_words"] = p.distance_words;
  } else if (p.kind == "pronoun") {
    j["pronoun_char"] = p.pronoun_char;
    j["antecedent_char"] = p.antecedent_char;
    j["pronoun"] = p.pronoun;
    j["name"] = p.name;
  } else {
    j["name"] = p.name;
    j["first_char"] = p.first_char;
    j["second_char"] = p.second_char;
  }
  return j.dump();
}

}  // namespace lookback::corpus
