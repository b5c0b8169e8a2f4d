// The corpus generator's compiled templates and lexicon: each template parsed once into literal text and
// slots (with what it needs: a friend, a creature, other things, a use of the object), the lexicon of every
// word the generator can write, articles, the estimate of a story's token count, and the made-up names and
// songs (never a lexicon word). Internal to the generator; not the templates' text (corpus_templates.hpp).
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "train/corpus_rng.hpp"
#include "train/corpus_templates.hpp"

namespace lookback::corpus::detail {

enum class Slot {
  kLiteral, kS, kSn, kSo, kSp, kX, kXn, kXo, kXp, kSX, kThey, kKid, kXKid, kParent,
  kO, kaO, kAO, kaAO, kOA, kOUse, kOUseBase, kD, kaD, kAD, kaAD, kaK, kaK2, kK, kKUse, kPlace, kPlaceNow,
  kC, kCK, kaCA, kCM, kCV, kCT, kSHabit, kXHabit, kSong, kAct, kAct2, kActBase, kLine, kExclaim, kQuestion, kList
};

struct Segment {
  Slot slot = Slot::kLiteral;
  std::string text;                             // literal text
  const std::vector<const char*>* list = nullptr;  // kList
};

struct Compiled {
  std::vector<Segment> segs;
  bool needs_friend = false, needs_creature = false, needs_object = false, needs_distractor = false;
  int needs_clutter = 0;  // other things it names ({aK}: 1, {aK2}: 2)
  bool typed_use = false;  // a use of the object ({OU}, {OUI}): the cue names its kind
  bool owner_before_object = false;  // the owner is named or pronouned before {O}
};

struct Library {
  std::vector<Compiled> templates;                 // [kTemplateCount]
  std::vector<int> by_beat[kBeatCount];            // template ids per beat
  std::vector<Compiled> lines, exclaims, questions;
  std::unordered_set<std::string> words, lower_words;  // the lexicon
};

// Every template compiled, by beat, and the lexicon; built once.
const Library& library();

std::string lower(std::string_view s);
bool starts_with_vowel(std::string_view w);
std::string with_article(const std::string& phrase);  // "an owl", "a red kite"

// Estimate of the BPE token count of `text`, independent of any trained tokenizer (see the definition).
int estimate_tokens(std::string_view text);

// 2-3 syllables in 1-2 words ("Tavimo", "Zorbin Plax"); never a real word, reserved per split.
std::string made_up_name(Rng& rng, Split split);
// A thing's made-up name: one or two lowercase syllables ("zib", "plonket"), never a real word.
std::string made_up_thing(Rng& rng);
// A creature's song: 3-5 short made-up words ("zu brek tomi la"), none a real word.
std::string made_up_song(Rng& rng);
// Whether a story of `split` may use a (hero, object) pair of this hash bucket.
bool pair_allowed(Split split, int bucket);

}  // namespace lookback::corpus::detail
