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

// The child a sampled story is about (owner()) and where its sentences end; false when it has no child or fewer
// than three sentences (a wrapper then keeps the story as it is). Wrappers name its fields by plain references, which
// their lambdas may capture (a structured binding they may not, in C++17).
struct Child {
  size_t at = 0;
  std::string name;
  bool female = false;
  std::vector<size_t> ends;
};
bool child_of(const std::string& sample, Child& c) {
  c.ends = sentence_ends(sample);
  return owner(sample, c.at, c.name, c.female) && c.ends.size() >= 3;
}

}  // namespace

std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index) {
  Rng rng(story_seed(seed, Split::train, index, 7));
  Child who;
  if (!child_of(sample, who)) return sample;
  const size_t at = who.at;
  const std::string& name = who.name;
  const bool female = who.female;
  const std::vector<size_t>& ends = who.ends;
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

// ---- Frames 2: the same recall in many more surface forms --------------------------------------------------------
// The thing is got by many verbs (put, hid, left, dropped, packed, found, bought, won, carried, ...) in many places,
// sometimes described again ("It was red."); other things of other kinds come beside it, in the middle of the story
// or just before the recall, so the most recent thing is often not the answer; now and then the thing recalled is
// the second of two named together. The recall ends on the thing behind one of many cues: a use of its kind after a
// varied lead-in ("She sat down, took a deep breath and opened her"), a verb any thing takes when the other things
// are someone else's ("showed Mom the", "reached into her bag and took out her"), dialogue ("Where is my", "Don't
// forget your"), "their" when two children share it, and "the little", "the red", "her new" before the word.

namespace {

struct Said {  // the child, as the recall names them
  std::string n, s, p, m;
};

// A thing with its adjective and article ("a small red box"), and the adjective alone ("small red", or "").
std::string described2(Rng& rng, const Kind& kind, const std::string& word, std::string& adj) {
  adj.clear();
  if (!kind.adjectives.empty()) {
    if (rng.chance(0.7)) adj = rng.pick(kind.adjectives);
  } else if (rng.chance(0.3)) {
    adj = std::string(rng.pick(word_lists().at("SIZE"))) + " " + rng.pick(word_lists().at("COLOR"));
  } else if (rng.chance(0.7)) {
    adj = rng.pick(word_lists().at("OADJ"));
  }
  std::string phrase = kind.measure ? std::string(kind.measure) + " " : "";
  phrase += adj.empty() ? word : adj + " " + word;
  // "some mittens", not "a mittens": a word ending in s is plural unless it ends in ss, us, as or is
  const size_t n = word.size();
  const bool plural = !kind.measure && n > 2 && word[n - 1] == 's' && word[n - 2] != 's' && word[n - 2] != 'u' &&
                      word[n - 2] != 'a' && word[n - 2] != 'i';
  return plural ? "some " + phrase : with_article(phrase);
}

bool has_use(const Kind& k, const std::string& past) {
  for (const Use& u : k.uses)
    if (past == u.past) return true;
  return false;
}

// Everyday things the hand-written stories name that the kinds do not, each with the kind whose verbs fit it.
struct Extra {
  const char* word;
  const char* kind;
};
const Extra kExtraThings[] = {
    {"bear", "cuddly"}, {"car", "vehicle"},   {"bus", "vehicle"},    {"rock", "keepsake"}, {"ring", "keepsake"},
    {"bag", "container"}, {"toy", "cuddly"},  {"orange", "food"},    {"picture", "read"},  {"photo", "read"},
    {"water", "drink"}, {"soup", "food"},     {"candy", "food"},     {"sweets", "food"},   {"mittens", "wear"},
    {"boots", "wear"},  {"shoes", "wear"},    {"socks", "wear"},     {"gloves", "wear"},   {"marbles", "game"},
    {"blocks", "game"}, {"bell", "chime"},    {"stick", "throw"},    {"rope", "throw"},    {"flag", "fly"}};

int kind_index(const char* name) {
  for (size_t k = 0; k < kinds().size(); ++k)
    if (std::string(kinds()[k].name) == name) return static_cast<int>(k);
  return 0;
}

const char* const kRel[] = {"Mom", "Dad", "Grandma", "Grandpa", "Aunt Sue", "Uncle Joe", "the teacher", "a neighbor"};
const char* const kRelOwn[] = {"mom", "dad", "grandma", "grandpa", "aunt", "uncle", "big sister", "big brother",
                               "friend", "teacher"};
const char* const kSib[] = {"brother", "sister", "friend", "cousin"};
const char* const kLoc[] = {
    "under {P} bed", "on the shelf", "in {P} pocket", "by the door", "in the garden", "on the table",
    "behind the sofa", "in {P} room", "on the kitchen table", "next to the window", "in the car", "at the park",
    "on the bench", "under the tree", "near the gate", "on the step", "in the closet", "in the attic",
    "by the pond", "on {P} desk", "under a bush", "in the sand", "on the porch", "in the hall"};
const char* const kGet[] = {  // {A}: the thing; {L}: a place; {R}: a grown-up; {r}: someone of the child's
    "{N} had {A}.", "{N} got {A} from {P} {r}.", "{R} gave {n} {A}.", "{N} found {A} {L}.", "{N} put {A} {L}.",
    "{N} hid {A} {L}.", "{N} left {A} {L}.", "{N} dropped {A} {L}.", "{N} packed {A} in {P} bag.",
    "{N} carried {A} everywhere.", "{N} bought {A} at the shop.", "{N} made {A} at school.",
    "{N} won {A} at the fair.", "{N} picked up {A} {L}.", "{N} kept {A} {L}.", "{N} brought {A} with {M}.",
    "{R} showed {n} {A}.", "{N} saw {A} {L} and took it.", "There was {A} {L}. It was {n}'s.",
    "{N}'s {r} sent {M} {A}.", "In {P} bag, {n} had {A}.", "{N} held {A} in {P} hands.",
    "For {P} birthday, {n} got {A}.", "That morning, {R} gave {n} {A}.", "{R} bought {n} {A}.",
    "{N} got {A} for a present.", "{N} traded a sticker for {A}.", "{R} made {n} {A}.",
    "{N} had {A} that {s} loved very much.", "{N} wanted to keep {A} {s} found {L}."};
const char* const kGetTwo[] = {  // {A} and {B}: two things of different kinds
    "{N} had {A} and {B}.", "{R} gave {n} {A} and {B}.", "{N} found {A} next to {B}.",
    "{N} packed {A} and {B} in {P} bag.", "{N} put {A} and {B} {L}.", "{N} got {A} and {B} from {P} {r}.",
    "{N} bought {A} and {B}.", "In {P} room, {n} had {A} and {B}.", "{R} brought {A} and {B} for {n}.",
    "{N} carried {A} and {B} to the car.", "{N} found {A} {L}, and {B} too."};
const char* const kDescribe[] = {  // after the thing alone
    "It was {adj}.", "The {T} was {adj}.", "{N} loved it very much.", "It was {n}'s favorite thing.",
    "{S} took it everywhere.", "{S} looked at it and smiled.", "{S} did not want to lose it.",
    "It was very special to {M}.", "The {T} was new.", "{S} kept it safe."};
const char* const kOther[] = {  // another thing, in passing ({D}); the child's too
    "{N} also had {D}.", "{R} gave {n} {D} too.", "There was {D} on the table.", "{S} saw {D} {L}.",
    "{S} put {D} {L}.", "{R} brought {D}.", "Next to {M} was {D}.", "{S} found {D} and put it away.",
    "{S} played with {D} for a while."};
const char* const kOtherNotOwn[] = {  // another thing, someone else's
    "{R} had {D}.", "{P_} {sib} had {D}.", "{R} brought {D} for {R2}.", "A boy nearby had {D}.",
    "{P_} {sib} was holding {D}."};
const char* const kLead[] = {  // before the use's verb
    "Then {s}", "{S} smiled and", "{S} sat down and", "{S} sat down, took a deep breath and", "When {s} got home, {s}",
    "So {s}", "After dinner, {s}", "{S} ran to {P} room and", "With a big smile, {s}", "{S} could not wait, so {s}",
    "Quickly, {s}", "{S} reached out and", "At last, {s}", "Before bed, {s}", "Later, {s}", "{S} stood up and",
    "Very carefully, {s}", "{S} laughed and", "The next day, {s}", "{S} knelt down and", "{S} went outside and",
    "Then, one more time, {s}", "{S} felt happy, so {s}", "{S} was ready, and {s}"};
const char* const kAnyVerb[] = {  // verbs any thing takes: only the child's own thing fits {P}
    "showed {R} {P}", "gave {R} {P}", "picked up {P}", "took out {P}", "held up {P}", "looked for {P}", "found {P}",
    "carried {P}", "hid {P}", "packed {P}", "brought {P}", "grabbed {P}", "reached for {P}", "pointed at {P}",
    "could not find {P}", "ran back for {P}", "looked at {P}", "put down {P}", "wiped {P}", "held on to {P}",
    "reached into {P} bag and took out {P}", "checked on {P}", "thought about {P}", "was proud of {P}"};
const char* const kMine[] = {  // dialogue: the child says "my"
    "\"Can I {base} my {C}{T} now?\" asked {n}.", "\"I want to {base} my {C}{T},\" said {n}.",
    "\"Where is my {C}{T}?\" {s} asked.", "{N} said, \"Look at my {C}{T}!\"",
    "\"Have you seen my {C}{T}?\" {n} asked {R}.", "\"I love my {C}{T},\" {s} said.",
    "{N} shouted, \"I found my {C}{T}!\"", "\"Let's {base} my {C}{T},\" said {n}."};
const char* const kYours[] = {  // dialogue: a grown-up says "your"
    "{R} said, \"Don't forget your {C}{T}.\"", "\"Here is your {C}{T},\" said {R}.",
    "\"Time to {base} your {C}{T},\" said {R}.", "{R} smiled. \"Where is your {C}{T}?\"",
    "\"Do you want to {base} your {C}{T}?\" asked {R}."};
const char* const kTail[] = {".", ".", ".", ".", " again.", " and smiled.", " with care.",
                             " one more time.", " and laughed."};
const char* const kGetShared[] = {"{N} got {A}.", "{R} gave {n} {A} to share.", "{N} found {A} {L}."};
const char* const kAfter[] = {"{S} felt very happy.", "It was a good day.", "The end.", "{S} smiled.",
                              "Everyone was happy."};

}  // namespace

std::string wrap_story_varied(const std::string& sample, uint64_t seed, uint64_t index) {
  Rng rng(story_seed(seed, Split::train, index, 9));
  Child who;
  if (!child_of(sample, who)) return sample;
  const size_t at = who.at;
  const std::string& name = who.name;
  const bool female = who.female;
  const std::vector<size_t>& ends = who.ends;
  size_t first = 0;  // the index in `ends` of the end of the sentence naming the child
  while (first < ends.size() && ends[first] <= at) ++first;
  if (first + 1 >= ends.size()) return sample;
  // Where the thing comes in: after the naming sentence, or a sentence or two later.
  const size_t intro_end = std::min(first + (rng.chance(0.6) ? 0 : static_cast<size_t>(rng.between(1, 2))), ends.size() - 2);
  // How much of the story stays between: all of it, or (for shorter gaps) the next 1-3 sentences only.
  size_t last = ends.size();  // the recall follows sentence `last` (ends.size(): the sample's end)
  if (rng.chance(0.3)) last = std::min(ends.size(), intro_end + 1 + static_cast<size_t>(rng.between(1, 3)));
  auto upto = [&](size_t i) { return i >= ends.size() ? sample.size() : ends[i]; };

  // The thing, and up to three others of other kinds.
  auto pick_thing = [&](int& kind) -> std::string {
    if (rng.chance(0.12)) {
      const Extra& e = rng.pick(kExtraThings);
      kind = kind_index(e.kind);
      return e.word;
    }
    const Thing& th = rng.pick(all_things());
    kind = th.kind;
    return th.word;
  };
  int kind;
  std::string word = pick_thing(kind);
  if (rng.chance(0.1)) word = made_up_thing(rng);
  const Use& use = rng.pick(kinds()[kind].uses);
  std::vector<int> used_kinds = {kind};
  auto other_thing = [&](std::string& adj) {
    for (;;) {
      int k;
      const std::string w = pick_thing(k);
      if (std::find(used_kinds.begin(), used_kinds.end(), k) != used_kinds.end() || has_use(kinds()[k], use.past) ||
          w == word)
        continue;
      used_kinds.push_back(k);
      return described2(rng, kinds()[k], w, adj);
    }
  };

  const bool plural = rng.chance(0.08);  // two children own it: "their"
  const std::string sib = rng.pick(kSib);
  const Said child{name, female ? "she" : "he", female ? "her" : "his", female ? "her" : "him"};
  std::string rel = rng.pick(kRel), rel2 = rng.pick(kRel);
  while (rel2 == rel) rel2 = rng.pick(kRel);
  std::string adj;
  const std::string thing = described2(rng, kinds()[kind], word, adj);
  std::map<std::string, std::string> slots = {
      {"{N}", child.n}, {"{n}", child.n}, {"{S}", child.s}, {"{s}", child.s}, {"{P}", child.p}, {"{M}", child.m},
      {"{P_}", child.p}, {"{T}", word}, {"{A}", thing}, {"{R}", rel}, {"{R2}", rel2}, {"{r}", rng.pick(kRelOwn)},
      {"{sib}", sib}, {"{adj}", adj}, {"{L}", rng.pick(kLoc)}};
  // A template filled; a sentence's first letter capitalised unless `mid` (a piece inside a sentence).
  auto fill2 = [&](const char* t, bool mid = false) {
    std::string x = t;
    // places name the child's things with {P}: fill {L} first
    for (size_t p; (p = x.find("{L}")) != std::string::npos;) x.replace(p, 3, slots["{L}"]);
    if (!mid) return fill(x, slots);
    for (const auto& [key, v] : slots)
      for (size_t p; (p = x.find(key)) != std::string::npos;) x.replace(p, key.size(), v);
    return x;
  };

  // The generic-verb recall ("showed Mom her") is kept for stories whose other things are someone else's.
  const int family = rng.below(100);  // <55: a use of its kind; <75: any verb; <88: "my"; else "your"
  const bool any_verb = family >= 55 && family < 75;
  std::string intro;
  bool recall_second = false;
  if (plural) {
    slots["{N}"] = slots["{n}"] = child.n + " and " + child.p + " " + sib;
    intro = fill2(rng.pick(kGetShared));
  } else if (!any_verb && !adj.empty() && rng.chance(0.35)) {
    std::string oadj;
    const std::string other = other_thing(oadj);
    recall_second = rng.chance(0.4);  // the thing recalled is the second named
    slots["{A}"] = recall_second ? other : thing;
    slots["{B}"] = recall_second ? thing : other;
    intro = fill2(rng.pick(kGetTwo));
    slots["{A}"] = thing;
  } else {
    intro = fill2(rng.pick(kGet));
    if (rng.chance(0.45)) {
      const char* d = rng.pick(kDescribe);
      if (adj.empty() && std::string(d).find("{adj}") != std::string::npos) d = kDescribe[2];
      intro += " " + fill2(d);
    }
  }
  slots["{N}"] = slots["{n}"] = child.n;
  slots["{L}"] = rng.pick(kLoc);

  // Other things in the middle of the story and just before the recall.
  auto passing = [&]() {
    std::string oadj;
    slots["{D}"] = other_thing(oadj);
    slots["{L}"] = rng.pick(kLoc);
    return fill2(any_verb || plural ? rng.pick(kOtherNotOwn) : (rng.chance(0.7) ? rng.pick(kOther) : rng.pick(kOtherNotOwn)));
  };
  std::string middle, late;
  size_t middle_after = 0;
  if (last > intro_end + 2 && rng.chance(0.5)) {
    middle_after = static_cast<size_t>(rng.between(static_cast<int>(intro_end) + 1, static_cast<int>(last) - 1));
    middle = passing();
  }
  if (rng.chance(0.35)) late = passing();

  // The recall.
  if (rng.chance(0.55)) slots["{N}"] = slots["{n}"] = slots["{S}"];  // she/he by then, as a reader would write
  if (plural) slots["{S}"] = slots["{s}"] = "they", slots["{P}"] = "their", slots["{N}"] = slots["{n}"] = "they";
  // The cue before the word: the owner's, "the", "the little", the adjective named before, "new" or "old".
  std::string cue;
  const int c = rng.below(100);
  if (c < 40) cue = slots["{P}"] + " ";
  else if (c < 62) cue = "the ";
  else if (c < 72 && !adj.empty()) cue = (rng.chance(0.5) ? "the " : slots["{P}"] + " ") + adj + " ";
  else if (c < 80) cue = "the little ";
  else if (c < 88) cue = slots["{P}"] + (rng.chance(0.5) ? " new " : " old ");
  else cue = slots["{P}"] + " ";
  std::string recall;
  if (plural || family < 55) {
    recall = fill2(rng.pick(kLead)) + " " + use.past + " " + cue + word + rng.pick(kTail);
  } else if (any_verb) {
    std::string v = rng.pick(kAnyVerb);
    // the verb's {P} is the cue's place: "showed Mom her" -> "showed Mom the little"
    const size_t p = v.rfind("{P}");
    v = v.substr(0, p);
    recall = fill2(rng.pick(kLead)) + " " + fill2(v.c_str(), true) + cue + word + rng.pick(kTail);
  } else {
    slots["{base}"] = use.base;
    slots["{C}"] = c >= 62 && c < 88 && cue.rfind("the ", 0) != 0 ? cue.substr(cue.find(' ') + 1) : "";
    if (cue.rfind("the little ", 0) == 0) slots["{C}"] = "little ";
    recall = fill2(family < 88 ? rng.pick(kMine) : rng.pick(kYours));
  }
  recall[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(recall[0])));
  if (rng.chance(0.25)) recall += " " + fill2(rng.pick(kAfter));

  std::string out = sample.substr(0, upto(intro_end)) + " " + intro;
  size_t from = upto(intro_end);
  if (!middle.empty()) {
    out += sample.substr(from, upto(middle_after) - from) + " " + middle;
    from = upto(middle_after);
  }
  out += sample.substr(from, upto(last) - from);
  if (!late.empty()) out += " " + late;
  return out + " " + recall;
}

namespace {

// Thing words that often mean something else in plain stories ("the top of the hill", "on fire", "a tree trunk").
const char* const kNotThings[] = {"top",   "fire", "bush",   "bow",      "case",  "tie",   "note",  "card",  "pipe",
                                  "stamp", "sheet", "mat",   "chest",    "trunk", "horn",  "triangle", "sprout",
                                  "pip",   "herb",  "bin",   "tin",      "cast",  "jet",   "roller", "sponge", "plane",
                                  "pot",   "punch", "present", "crate", "cart", "net", "bulb", "bean", "scoop"};

}  // namespace

std::string wrap_story_natural(const std::string& sample, uint64_t seed, uint64_t index) {
  Rng rng(story_seed(seed, Split::train, index, 10));
  Child who;
  if (!child_of(sample, who)) return sample;
  const std::string& name = who.name;
  const bool female = who.female;
  const std::vector<size_t>& ends = who.ends;
  // The things the story itself names (lowercase, whole words) before its last two sentences, with their kinds.
  static const std::map<std::string, int> lexicon = [] {
    std::map<std::string, int> m;
    for (const Thing& t : all_things()) m.emplace(t.word, t.kind);
    for (const Extra& e : kExtraThings) m.emplace(e.word, kind_index(e.kind));
    for (const char* w : kNotThings) m.erase(w);
    return m;
  }();
  const size_t limit = ends[ends.size() - 2];
  std::map<std::string, int> named;  // word -> kind, every thing the whole story names
  std::vector<std::string> early;    // those named before `limit`, in order of first mention
  for (size_t i = 0; i < sample.size();) {
    if (!std::isalpha(static_cast<unsigned char>(sample[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < sample.size() && std::isalpha(static_cast<unsigned char>(sample[j]))) ++j;
    const std::string w = sample.substr(i, j - i);
    const auto it = lexicon.find(w);
    if (it != lexicon.end()) {
      if (!named.count(w) && i < limit) early.push_back(w);
      named.emplace(w, it->second);
    }
    i = j;
  }
  // A thing with a use that fits no other thing the story names: the recall's verb then picks it alone.
  std::vector<std::pair<std::string, const Use*>> options;
  for (const std::string& w : early) {
    const Kind& k = kinds()[named.at(w)];
    for (const Use& u : k.uses) {
      bool alone = true;
      for (const auto& [other, kind] : named)
        if (other != w && has_use(kinds()[kind], u.past)) alone = false;
      if (alone) options.push_back({w, &u});
    }
  }
  if (options.empty()) return sample;
  const auto& [word, use] = rng.pick(options);
  const std::string S = female ? "she" : "he", P = female ? "her" : "his";
  std::map<std::string, std::string> slots = {{"{N}", rng.chance(0.5) ? name : S}, {"{n}", name}, {"{S}", S},
                                              {"{s}", S}, {"{P}", P}, {"{R}", rng.pick(kRel)}, {"{T}", word},
                                              {"{base}", use->base}, {"{C}", ""}};
  const int c = rng.below(100);
  const std::string cue = c < 55 ? "the " : c < 85 ? P + " " : "the little ";
  std::string recall;
  if (rng.chance(0.8)) {
    recall = fill(rng.pick(kLead), slots);
    recall += " " + std::string(use->past) + " " + cue + word + rng.pick(kTail);
  } else {
    recall = fill(rng.chance(0.6) ? rng.pick(kMine) : rng.pick(kYours), slots);
  }
  return sample + " " + recall;
}

std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index, int frames) {
  if (frames >= 3 && Rng(story_seed(seed, Split::train, index, 11)).chance(0.5)) {
    const std::string natural = wrap_story_natural(sample, seed, index);
    if (natural != sample) return natural;
  }
  return frames >= 2 ? wrap_story_varied(sample, seed, index) : wrap_story(sample, seed, index);
}

}  // namespace lookback::corpus
