// The corpus generator's story writer: renders templates into one story, filling each slot from the cast and
// the story's state, and tracks mentions so that "he"/"she" is written only when clear; it records where the
// object, the made-up name and each pronoun stand (the probes' labels). Internal to the generator; the plan of
// a story (which beats, in what order) is StoryPlanner in corpus.cpp.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "train/corpus_library.hpp"
#include "train/corpus_words.hpp"

namespace lookback::corpus::detail {

enum class Case { kSubject, kObject, kPossessive };

struct Entity {
  std::string name;
  int gender = -1;  // 0 female, 1 male, -1 none (creatures)
};

// Renders templates into one story, tracking mentions so that a pronoun is written only when
// it is clear: the character was already named in this sentence with no other of its gender, or
// is the only one of its gender so far, or was in the previous sentence with no other of its gender.
class StoryWriter {
 public:
  StoryWriter(Rng& rng, Story& story) : rng_(rng), st_(story) {}

  int add_entity(const std::string& name, int gender) {
    ents_.push_back({name, gender});
    seen_.push_back(false);
    last_name_char_.push_back(-1);
    return static_cast<int>(ents_.size()) - 1;
  }

  // Cast and story state the slots read.
  int hero = -1, other = -1, creature = -1;
  std::string object, distractor, object_adj, distractor_adj, place, creature_kind, creature_adj,
      creature_motion, song;
  int object_kind = -1, distractor_kind = -1;
  std::vector<int> clutter;  // indices into all_things(): other things in the scene
  int clutter_now = 0;       // which of them {K}/{KU} name in this sentence
  int clutter_said = 0;      // how many of them have been named so far
  bool in_recall = false;
  int creature_mentions = 0;

  void sentence(int template_id, int subject, int other_child) {
    subj_ = subject;
    oth_ = other_child;
    if (!st_.text.empty()) st_.text += ' ';
    const size_t start = st_.text.size();
    cur_.clear();
    last_act_ = -1;
    render(library().templates[template_id].segs);
    const char c = st_.text[start];
    if (c >= 'a' && c <= 'z') st_.text[start] = static_cast<char>(c - 'a' + 'A');
    prev_ = cur_;
    st_.templates.push_back(template_id);
    for (size_t i = start; i < st_.text.size(); ++i) words_ += st_.text[i] == ' ';
    ++words_;
    tokens_ += estimate_tokens(std::string_view(st_.text).substr(start > 0 ? start - 1 : 0));
  }

  int words() const { return words_; }
  int tokens() const { return tokens_; }
  bool seen(int e) const { return e >= 0 && seen_[e]; }

 private:
  void render(const std::vector<Segment>& segs) {
    for (const auto& seg : segs) write_slot(seg);
  }

  void write_slot(const Segment& seg) {
    std::string& out = st_.text;
    const Library& lib = library();
    switch (seg.slot) {
      case Slot::kLiteral: out += seg.text; break;
      case Slot::kS: ref(subj_, Case::kSubject); break;
      case Slot::kSn: name(subj_); break;
      case Slot::kSo: ref(subj_, Case::kObject); break;
      case Slot::kSp: ref(subj_, Case::kPossessive); break;
      case Slot::kX: ref(oth_, Case::kSubject); break;
      case Slot::kXn: name(oth_); break;
      case Slot::kXo: ref(oth_, Case::kObject); break;
      case Slot::kXp: ref(oth_, Case::kPossessive); break;
      case Slot::kSX: name(subj_); out += " and "; name(oth_); break;
      case Slot::kThey: out += "they"; break;
      case Slot::kKid: out += ents_[subj_].gender == 0 ? "girl" : "boy"; break;
      case Slot::kXKid: out += ents_[oth_].gender == 0 ? "girl" : "boy"; break;
      case Slot::kParent: parent(); break;
      case Slot::kO: object_word(); break;
      case Slot::kaO: out += a_phrase(object_kind, "", object); object_word(); break;
      case Slot::kAO: out += object_adj + " "; object_word(); break;
      case Slot::kaAO: out += a_phrase(object_kind, object_adj, object); object_word(); break;
      case Slot::kOA: out += object_adj; break;
      case Slot::kOUse: out += rng_.pick(kinds()[object_kind].uses).past; break;
      case Slot::kOUseBase: out += rng_.pick(kinds()[object_kind].uses).base; break;
      case Slot::kD: out += distractor; break;
      case Slot::kaD: out += a_phrase(distractor_kind, "", distractor) + distractor; break;
      case Slot::kAD: out += distractor_adj + " " + distractor; break;
      case Slot::kaAD: out += a_phrase(distractor_kind, distractor_adj, distractor) + distractor; break;
      case Slot::kaK: clutter_said = std::max(clutter_said, 1); out += a_thing(clutter[0]); break;
      case Slot::kaK2: clutter_said = 2; out += a_thing(clutter[1]); break;
      case Slot::kK: out += all_things()[clutter[clutter_now]].word; break;
      case Slot::kKUse: out += rng_.pick(kinds()[all_things()[clutter[clutter_now]].kind].uses).past; break;
      case Slot::kPlace: place = rng_.pick(kPlaces); out += place; break;
      case Slot::kPlaceNow: out += place; break;
      case Slot::kC: creature_name(); break;
      case Slot::kCK: out += creature_kind; break;
      case Slot::kaCA: out += with_article(creature_adj); break;
      case Slot::kCM: out += creature_motion; break;
      case Slot::kCV: out += rng_.pick(kCreatureVerb); break;
      case Slot::kCT: out += rng_.pick(kCreatureTrait); break;
      case Slot::kSHabit: out += habit_of(ents_[subj_].name); break;
      case Slot::kXHabit: out += habit_of(ents_[oth_].name); break;
      case Slot::kSong: out += song; break;
      case Slot::kAct: out += activity().past; break;
      case Slot::kAct2: out += activity().past; break;
      case Slot::kActBase: out += activity().base; break;
      case Slot::kLine: render(rng_.pick(lib.lines).segs); break;
      case Slot::kExclaim: render(rng_.pick(lib.exclaims).segs); break;
      case Slot::kQuestion: render(rng_.pick(lib.questions).segs); break;
      case Slot::kList: out += rng_.pick(*seg.list); break;
    }
  }

  // "a ", "a glass of ", "a red ", "a glass of warm ": what comes before a thing of this kind.
  static std::string a_phrase(int kind, const std::string& adj, const std::string& word) {
    const char* measure = kinds()[kind].measure;
    const std::string first = measure ? measure : adj.empty() ? word : adj;
    std::string out = starts_with_vowel(first) ? "an " : "a ";
    if (measure) out += std::string(measure) + " ";
    if (!adj.empty()) out += adj + " ";
    return out;
  }
  static std::string a_thing(int t) {
    const Thing& th = all_things()[t];
    return a_phrase(th.kind, "", th.word) + th.word;
  }

  const Activity& activity() {  // a different activity each time within one sentence
    int a;
    do a = rng_.below(static_cast<int>(sizeof(kActivities) / sizeof(kActivities[0])));
    while (a == last_act_);
    last_act_ = a;
    return kActivities[a];
  }

  void object_word() {
    const int at = static_cast<int>(st_.text.size());
    st_.text += object;
    ++st_.object_mentions;
    if (in_recall && st_.recall_char < 0) st_.recall_char = at;  // the first recall is the labelled one
    else if (st_.object_char < 0) st_.object_char = at;
  }

  void creature_name() {
    st_.name_chars.push_back(static_cast<int>(st_.text.size()));
    st_.text += ents_[creature].name;
    ++creature_mentions;
    mention(creature);
  }

  void parent() {
    const Parent& p = rng_.pick(kParents);
    ref(subj_, Case::kPossessive);
    st_.text += std::string(" ") + p.word;
    const std::string key = ents_[subj_].name + "'s " + p.word;
    auto it = parents_.find(key);
    if (it == parents_.end()) it = parents_.emplace(key, add_entity(key, p.female ? 0 : 1)).first;
    mention(it->second);
  }

  void name(int e) {
    last_name_char_[e] = static_cast<int>(st_.text.size());
    st_.text += ents_[e].name;
    mention(e);
  }

  void mention(int e) {
    seen_[e] = true;
    cur_.push_back(e);
  }

  bool other_of_gender(const std::vector<int>& list, int e) const {
    for (int x : list)
      if (x != e && ents_[x].gender == ents_[e].gender) return true;
    return false;
  }

  bool sole_of_gender(int e) const {
    for (size_t x = 0; x < ents_.size(); ++x)
      if (static_cast<int>(x) != e && seen_[x] && ents_[x].gender == ents_[e].gender) return false;
    return true;
  }

  bool in_sentence(int e) const { return std::find(cur_.begin(), cur_.end(), e) != cur_.end(); }

  bool pronoun_clear(int e) const {
    if (!seen_[e] || ents_[e].gender < 0 || other_of_gender(cur_, e)) return false;
    if (in_sentence(e) || sole_of_gender(e)) return true;
    return std::find(prev_.begin(), prev_.end(), e) != prev_.end() && !other_of_gender(prev_, e);
  }

  // A reference to a character: pronoun when clear (and chosen), otherwise the name.
  void ref(int e, Case c) {
    const bool here = in_sentence(e);
    const double p = here ? 1.0 : c == Case::kSubject ? 0.5 : 0.85;  // same sentence: always a pronoun
    if (!pronoun_clear(e) || !rng_.chance(p)) {
      name(e);
      if (c == Case::kPossessive) st_.text += "'s";
      return;
    }
    static const char* const forms[2][3] = {{"she", "her", "her"}, {"he", "him", "his"}};
    const char* word = forms[ents_[e].gender][static_cast<int>(c)];
    PronounUse use;
    use.pronoun_char = static_cast<int>(st_.text.size());
    use.antecedent_char = last_name_char_[e];
    use.pronoun = word;
    use.name = ents_[e].name;
    use.subject = c == Case::kSubject;
    use.sole_of_gender = sole_of_gender(e);
    st_.pronouns.push_back(use);
    st_.text += word;
    cur_.push_back(e);
  }

  Rng& rng_;
  Story& st_;
  std::vector<Entity> ents_;
  std::vector<bool> seen_;
  std::vector<int> last_name_char_;
  std::unordered_map<std::string, int> parents_;
  std::vector<int> cur_, prev_;  // characters mentioned in this / the previous sentence
  int subj_ = -1, oth_ = -1, last_act_ = -1, words_ = 0, tokens_ = 0;
};

}  // namespace lookback::corpus::detail
