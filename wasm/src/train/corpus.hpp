// Story corpus for Sprout: short children's stories generated deterministically from
// (seed, split, index), with labelled probes (object recall, pronoun antecedent, made-up-name repeat)
// and random repeated token sequences for the induction test. Native only; it needs no trained
// tokenizer (lengths are capped with a tokenizer-free estimate, see StoryOptions::max_tokens).
// Stories are plain ASCII on one line each (no newline inside a story).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lookback::corpus {

enum class Split { train, validation, probe };
Split parse_split(const std::string& name);  // "train", "validation", "probe"; throws otherwise
const char* split_name(Split split);

// Where a pronoun was used and which name mention it points back to (char offsets into text).
struct PronounUse {
  int pronoun_char = -1;     // first letter of the pronoun ("she", "He", "his", ...)
  int antecedent_char = -1;  // first letter of the latest mention of the name before it
  std::string pronoun;       // as written, e.g. "She"
  std::string name;          // the character it refers to
  bool subject = false;      // he/she (not him/his/her)
  bool sole_of_gender = false;  // the only character of that gender mentioned so far (strictly clear)
};

// One generated story and the labels the probes are cut from. All offsets are char offsets into
// `text` pointing at the first letter of a word; -1 when absent.
struct Story {
  std::string text;
  std::string hero;               // protagonist, owner of the object
  std::string object;             // the object introduced early (every story has one)
  int object_char = -1;           // its early mention
  int recall_char = -1;           // its recall near the end ("... put the doll"), -1 if not recalled
  int object_mentions = 0;        // times the object word occurs in the text
  std::string made_up_name;       // creature's invented name ("Zorbin Plax"), empty if none
  std::string song;               // the creature's made-up song, sung at least twice; empty if none
  std::vector<int> name_chars;    // every occurrence of made_up_name
  std::vector<PronounUse> pronouns;
  std::vector<int> templates;     // ids of the sentence templates used
};

// Options for one story; the defaults are those of the train and validation splits.
struct StoryOptions {
  int max_chars = 1000;        // hard cap on text length
  int max_tokens = 252;        // cap on the estimated token count (256 context, 2 marks, slack)
  int min_words = 35;          // target length is drawn from [min_words, max_words]
  int max_words = 200;
  bool force_recall = false;   // always recall the object
  bool force_creature = false; // always include a creature with a made-up name
  bool allow_object_repeat = true;  // mention the object again between intro and recall
  bool allow_distractor = true;     // a friend may own a second object
  bool copy_practice = true;  // more to copy: extra object mentions and recalls, a creature's song sung twice
};

// The story with this (seed, split, index); the same arguments always give the same story.
// Splits are disjoint by construction: the (hero, object) pair is reserved per split by a hash,
// and made-up names with the probe hash are used only in the probe split.
Story make_story(uint64_t seed, Split split, uint64_t index, const StoryOptions& options = {});

// A first name's habit ("whistled"): fixed per name, the same in every story and split.
const char* habit_of(std::string_view first_name);

// Labelled probe (one JSON object per line in probes.jsonl). Fields unused by a kind stay empty/-1.
struct Probe {
  std::string kind;          // "recall", "pronoun", "name"
  std::string text;          // recall: prefix ending right before the blank; others: the story
  // recall
  std::string answer;        // " doll"
  int answer_char = -1;      // early mention of the answer in text
  std::string swap_text;     // text with the early mention replaced by another object
  std::string swap_answer;   // " kite"
  int distance_words = -1;   // words between the early mention and the blank
  // pronoun
  int pronoun_char = -1;
  int antecedent_char = -1;
  std::string pronoun;
  // pronoun (the antecedent) and name (the made-up name)
  std::string name;
  // name
  int first_char = -1;
  int second_char = -1;
};

// per_kind probes of each kind, from probe-split stories (fresh names and hero/object pairs).
// A story written elsewhere with an object recall wrapped around it (corpus_wrap.cpp): the first child it names
// (else the first "girl" or "boy") gets a thing after that sentence, sometimes beside a thing of another kind, and
// uses it again at the end, by name or as she/he. Returned unchanged when it names no child or has fewer than three
// sentences. Deterministic from (seed, index).
std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index);
// The same with the recall in many more surface forms (frames 2, corpus_wrap.cpp): many verbs that get and use the
// thing, varied cues ("her", "the", "the little", "my" and "your" in dialogue, "their"), other things between and
// just before the recall, shorter gaps, and sometimes the second of two things named together recalled.
std::string wrap_story_varied(const std::string& sample, uint64_t seed, uint64_t index);
// A recall of a thing the sample itself names (frames 3): at the end the child uses a thing the story mentioned
// before its last two sentences, by a verb that fits no other thing the story names ("Then she opened the" box).
// Returned unchanged when it names no child or no such thing.
std::string wrap_story_natural(const std::string& sample, uint64_t seed, uint64_t index);
// wrap_story for frames 1, wrap_story_varied for frames 2; frames 3: half the stories wrap_story_natural (when the
// sample names a thing that fits), the rest wrap_story_varied.
std::string wrap_story(const std::string& sample, uint64_t seed, uint64_t index, int frames);
// True when a sentence of three or more words occurs twice in `s` (a sampled story stuck in a loop).
bool repeats_a_sentence(const std::string& s);

std::vector<Probe> make_probes(uint64_t seed, int per_kind);
std::string probe_to_json(const Probe& probe);  // one line, no trailing newline

// Every word the generator can write except made-up names (case as written). The tokenizer trainer
// uses it to leave invented names out of merge counts.
bool is_lexicon_word(std::string_view word);
int lexicon_size();
int template_count();  // number of distinct sentence templates
std::string template_text(int id);

}  // namespace lookback::corpus
