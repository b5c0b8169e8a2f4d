// Story corpus generator: plans each story (which beats, in what order: the object's early mention, friends,
// a creature, other things, the recall) and writes it with the story writer; the public entry points of
// corpus.hpp. Deterministic from (seed, split, index) using its own PRNG (xoshiro256**), so every platform
// produces the same text. Native only. The parts: word lists (corpus_words.hpp), templates
// (corpus_templates.hpp), template compiler and lexicon (corpus_library), writer (corpus_writer.hpp), probes
// (corpus_probes.cpp).
#include "train/corpus.hpp"

#include <algorithm>
#include <stdexcept>

#include "train/corpus_library.hpp"
#include "train/corpus_rng.hpp"
#include "train/corpus_words.hpp"
#include "train/corpus_writer.hpp"

namespace lookback::corpus {

using namespace detail;

namespace {

// ---- the story plan ---------------------------------------------------------------------------------

class StoryPlanner {
 public:
  StoryPlanner(Rng& rng, Split split, const StoryOptions& opt, Story& story)
      : rng_(rng), split_(split), opt_(opt), st_(story), w_(rng, story) {}

  void run() {
    cast();
    if (rng_.chance(0.85)) say(kOpening, w_.hero);
    if (rng_.chance(0.25)) filler();
    say(kObject, w_.hero);
    if (rng_.chance(0.4)) say(kObjectIt, w_.hero);
    object_end_words_ = w_.words();
    middle();
    if (recall_) say(kRecall, w_.hero);
    for (int i = 0; recall_ && i < extra_recalls_ && fits(120, 30); ++i) {
      if (rng_.chance(0.5)) filler();
      say(kRecall, w_.hero);
    }
    if (rng_.chance(0.2) && fits(200, 50)) filler();
    if (rng_.chance(0.8)) say(kEnding, pick_subject());
  }

 private:
  void cast() {
    const auto& things = all_things();
    int h, o;
    do {
      h = rng_.below(kNameCount);
      o = rng_.below(thing_count());
    } while (!pair_allowed(split_, pair_bucket(kNames[h].name, things[o].word)));
    w_.hero = w_.add_entity(kNames[h].name, kNames[h].female ? 0 : 1);
    w_.object = things[o].word;
    w_.object_kind = things[o].kind;
    // Now and then a thing no list has (of the chosen kind, so its uses still fit): the recall can then only
    // be answered by copying whatever word the story gave it.
    if (split_ != Split::probe && rng_.chance(0.08)) w_.object = made_up_thing(rng_);
    w_.object_adj = adjective(w_.object_kind);
    st_.hero = kNames[h].name;
    st_.object = w_.object;
    if (rng_.chance(0.75)) {
      int f;
      do f = rng_.below(kNameCount);
      while (f == h);
      w_.other = w_.add_entity(kNames[f].name, kNames[f].female ? 0 : 1);
      if (opt_.allow_distractor && rng_.chance(0.25)) {
        int d;
        do d = rng_.below(thing_count());
        while (d == o);
        w_.distractor = things[d].word;
        w_.distractor_kind = things[d].kind;
        w_.distractor_adj = adjective(w_.distractor_kind);
      }
    }
    if (opt_.allow_distractor && rng_.chance(0.6)) pick_clutter(rng_.chance(0.5) ? 2 : 1);
    if (opt_.force_creature || rng_.chance(0.65)) {
      st_.made_up_name = made_up_name(rng_, split_);
      w_.creature = w_.add_entity(st_.made_up_name, -1);
      const CreatureKind& k = rng_.pick(kCreatures);
      w_.creature_kind = k.kind;
      w_.creature_motion = k.motion;
      w_.creature_adj = rng_.pick(kCreatureAdj);
      creature_target_ = rng_.between(2, 4);
    }
    recall_ = opt_.force_recall || rng_.chance(0.9);
    object_again_ = opt_.allow_object_repeat && rng_.chance(0.35) ? 1 : 0;
    if (opt_.copy_practice) {
      if (opt_.allow_object_repeat) {
        object_again_ += rng_.between(0, 1);
        extra_recalls_ = rng_.between(0, 2);
      }
      if (w_.creature >= 0 && rng_.chance(0.6)) {
        w_.song = made_up_song(rng_);
        st_.song = w_.song;
        song_repeats_ = rng_.between(1, 2);
      }
    }
    target_words_ = rng_.between(opt_.min_words, opt_.max_words);
    w_.place = rng_.pick(kPlaces);
  }

  std::string adjective(int kind) {
    const auto& own = kinds()[kind].adjectives;
    if (!own.empty()) return rng_.pick(own);
    // Sometimes two, as people write them: size or age, then colour ("an old brown").
    if (rng_.chance(0.25)) return std::string(rng_.pick(word_lists().at("SIZE"))) + " " + rng_.pick(word_lists().at("COLOR"));
    return rng_.pick(word_lists().at("OADJ"));
  }

  // `n` other things lying about, each of a kind that neither the object nor the friend's object has
  // (so a cue naming a use, "she ate her", still points at one thing only) nor one another.
  void pick_clutter(int n) {
    const auto& things = all_things();
    std::vector<int> taken = {w_.object_kind, w_.distractor_kind};
    while (static_cast<int>(w_.clutter.size()) < n) {
      const int t = rng_.below(thing_count());
      if (std::find(taken.begin(), taken.end(), things[t].kind) != taken.end()) continue;
      taken.push_back(things[t].kind);
      w_.clutter.push_back(t);
    }
    clutter_again_ = rng_.between(0, 1);
  }

  bool friend_in() const { return w_.other >= 0 && w_.seen(w_.other); }
  bool creature_in() const { return w_.creature >= 0 && w_.seen(w_.creature); }
  bool fits(int more_chars, int more_tokens) const {
    return static_cast<int>(st_.text.size()) + more_chars <= opt_.max_chars &&
           w_.tokens() + more_tokens <= opt_.max_tokens;
  }

  // Beats that must still happen before the recall, in the order they may be written.
  std::vector<Beat> required() const {
    std::vector<Beat> r;
    if (w_.other >= 0 && !friend_in()) r.push_back(kFriend);
    if (!w_.distractor.empty() && friend_in() && !distractor_done_) r.push_back(kDistractor);
    if (w_.creature >= 0 && !creature_in()) r.push_back(kCreatureIntro);
    if (creature_in() && w_.creature_mentions < std::min(creature_target_, 2)) r.push_back(kCreatureAgain);
    if (!w_.song.empty() && creature_in() && !song_sung_) r.push_back(kSong);
    if (song_sung_ && song_repeats_ > 0) r.push_back(kSongAgain);
    if (!w_.clutter.empty() && !w_.clutter_said) r.push_back(kClutter);
    return r;
  }

  void middle() {
    for (int guard = 0; guard < 200; ++guard) {
      const auto req = required();
      const bool long_enough = w_.words() + 16 >= target_words_ || !fits(260, 75);
      const bool far_enough = w_.words() - object_end_words_ >= 14;
      if (long_enough && req.empty() && far_enough) break;
      if (!req.empty() && (long_enough || rng_.chance(0.3))) {
        const Beat beat = req[rng_.below(static_cast<int>(req.size()))];
        if (beat == kSongAgain && w_.words() - song_end_words_ < 10) filler();  // not straight after the song
        else say(beat, pick_subject());
        continue;
      }
      if (creature_in() && w_.creature_mentions < creature_target_ && rng_.chance(0.25)) {
        say(kCreatureAgain, pick_subject());
      } else if (object_again_ > 0 && rng_.chance(0.2)) {
        --object_again_;
        say(kObjectAgain, w_.hero);
      } else if (w_.clutter_said && clutter_again_ > 0 && rng_.chance(0.25)) {
        --clutter_again_;
        w_.clutter_now = rng_.below(w_.clutter_said);
        say(kClutterAgain, pick_subject());
      } else {
        filler();
      }
    }
  }

  // A sentence of colour between the beats that matter; never a template the story already used, so no filler
  // sentence comes back word for word (a model trained on stories that do learns to loop), and never a habit
  // straight after a habit (habits are a quarter of the draws all the same: they teach the pronoun head).
  void filler() {
    static const Beat beats[] = {kTravel, kTravel, kActivity, kActivity, kActivity, kScene, kFeeling,
                                 kFeeling, kDialogue, kDialogue, kDialogue, kProblem, kHabit, kHabit, kHabit, kHabit};
    Beat beat = rng_.pick(beats);
    while (beat == kHabit && last_beat_ == kHabit) beat = rng_.pick(beats);
    fresh_only_ = true;
    say(beat, pick_subject());
    fresh_only_ = false;
  }

  bool used(int id) const { return std::find(st_.templates.begin(), st_.templates.end(), id) != st_.templates.end(); }

  int pick_subject() { return friend_in() && rng_.chance(0.35) ? w_.other : w_.hero; }

  bool usable(const Compiled& t, Beat beat) const {
    if (t.needs_friend && beat != kFriend && !friend_in()) return false;
    if (t.needs_creature && beat != kCreatureIntro && (!creature_in() || w_.creature_mentions >= 4)) return false;
    if (beat == kRecall && !w_.distractor.empty() && !t.owner_before_object) return false;
    if (t.needs_clutter > static_cast<int>(w_.clutter.size())) return false;
    if (t.needs_clutter && (beat == kObject || beat == kClutter) && w_.clutter_said) return false;
    if (beat == kRecall && w_.clutter_said && !t.typed_use) return false;  // other things about: name the kind
    return true;
  }

  void say(Beat beat, int subject) {
    if (beat == kDistractor) {
      subject = w_.other;
      distractor_done_ = true;
    }
    if (beat == kObject || beat == kObjectIt || beat == kRecall || beat == kObjectAgain || beat == kFriend ||
        beat == kOpening)
      subject = w_.hero;
    const int other = subject == w_.hero ? w_.other : w_.hero;
    const Library& lib = library();
    std::vector<int> choices;
    for (int id : lib.by_beat[beat])
      if (usable(lib.templates[id], beat) && !(fresh_only_ && used(id))) choices.push_back(id);
    if (choices.empty()) return;
    if (beat == kSong) song_sung_ = true;
    if (beat == kSongAgain) --song_repeats_;
    w_.in_recall = beat == kRecall;
    last_beat_ = beat;
    w_.sentence(rng_.pick(choices), subject, other);
    w_.in_recall = false;
    if (beat == kSong) song_end_words_ = w_.words();
  }

  Rng& rng_;
  Split split_;
  const StoryOptions& opt_;
  Story& st_;
  StoryWriter w_;
  Beat last_beat_ = kBeatCount;  // the beat of the last sentence said
  bool recall_ = false, distractor_done_ = false, song_sung_ = false, fresh_only_ = false;
  int song_repeats_ = 0, song_end_words_ = 0, extra_recalls_ = 0, clutter_again_ = 0;
  int object_again_ = 0, creature_target_ = 0, target_words_ = 0, object_end_words_ = 0;
};

}  // namespace

const char* habit_of(std::string_view first_name) {
  return kHabits[hash_text("habit|" + std::string(first_name)) % kHabitCount];
}

Split parse_split(const std::string& name) {
  if (name == "train") return Split::train;
  if (name == "validation") return Split::validation;
  if (name == "probe") return Split::probe;
  throw std::invalid_argument("unknown split \"" + name + "\" (expected train, validation or probe)");
}

const char* split_name(Split split) {
  switch (split) {
    case Split::train: return "train";
    case Split::validation: return "validation";
    default: return "probe";
  }
}

Story make_story(uint64_t seed, Split split, uint64_t index, const StoryOptions& options) {
  for (int attempt = 0;; ++attempt) {
    Rng rng(story_seed(seed, split, index, attempt));
    Story story;
    StoryPlanner(rng, split, options, story).run();
    const bool fits = static_cast<int>(story.text.size()) <= options.max_chars &&
                      estimate_tokens(story.text) <= options.max_tokens;
    if (fits || attempt >= 50) return story;
  }
}

}  // namespace lookback::corpus
