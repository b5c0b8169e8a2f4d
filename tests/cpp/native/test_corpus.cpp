// Native tests of the story corpus generator (train/corpus.hpp) and the BPE trainer
// (train/bpe_train.hpp): determinism, split disjointness, probe labels, lengths, learned merges.
// Small sizes only, so the whole file runs in a second or two.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/bpe.hpp"
#include "train/bpe_train.hpp"
#include "train/corpus.hpp"
#include "train/corpus_words.hpp"

using namespace lookback;
using corpus::Split;

namespace {

constexpr int B(char c) { return 2 + static_cast<unsigned char>(c); }

bool is_word_char(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// Whole-word occurrences of `word` in `text`.
int count_word(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t i = text.find(word); i != std::string::npos; i = text.find(word, i + 1)) {
    const bool left = i == 0 || !is_word_char(text[i - 1]);
    const bool right = i + word.size() >= text.size() || !is_word_char(text[i + word.size()]);
    n += left && right;
  }
  return n;
}

// The text of the whole word starting at `at`.
std::string word_at(const std::string& text, int at) {
  int end = at;
  while (end < static_cast<int>(text.size()) && is_word_char(text[end])) ++end;
  return text.substr(at, end - at);
}

std::vector<corpus::Story> stories(uint64_t seed, Split split, int n, const corpus::StoryOptions& opt = {}) {
  std::vector<corpus::Story> out;
  for (int i = 0; i < n; ++i) out.push_back(corpus::make_story(seed, split, i, opt));
  return out;
}

// Reference trainer: recount every pair at every step (slow, obviously right).
std::vector<std::pair<int, int>> naive_merges(const ChunkCounts& counts, int merges_wanted) {
  std::vector<std::pair<std::vector<int>, int64_t>> words;
  for (const auto& [chunk, n] : counts) {
    std::vector<int> w;
    for (unsigned char c : chunk) w.push_back(2 + c);
    words.emplace_back(w, n);
  }
  std::vector<std::pair<int, int>> merges;
  while (static_cast<int>(merges.size()) < merges_wanted) {
    std::map<std::pair<int, int>, int64_t> pc;
    for (const auto& [w, n] : words)
      for (size_t i = 0; i + 1 < w.size(); ++i) pc[{w[i], w[i + 1]}] += n;
    std::pair<int, int> best{-1, -1};
    int64_t best_n = 1;  // min_pair_count 2
    for (const auto& [p, n] : pc)
      if (n > best_n) best = p, best_n = n;  // map order: ties keep the smaller pair
    if (best.first < 0) break;
    const int id = 258 + static_cast<int>(merges.size());
    merges.push_back(best);
    for (auto& [w, n] : words) {
      std::vector<int> m;
      for (size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == best.first && w[i + 1] == best.second) m.push_back(id), ++i;
        else m.push_back(w[i]);
      }
      w = m;
    }
  }
  return merges;
}

}  // namespace

// ---- BPE trainer -------------------------------------------------------------------------------

TEST_CASE("bpe train: first merges on a tiny text") {
  ChunkCounts counts;
  count_chunks("ab ab ab cd", counts);
  CHECK(counts.at("ab") == 1);
  CHECK(counts.at(" ab") == 2);
  BpeTrainOptions opt;
  opt.vocab_size = 300;
  const auto merges = train_bpe_merges(counts, opt);
  // (a,b) occurs 3 times, then (" ", ab) twice; every other pair once (below min_pair_count 2)
  REQUIRE(merges.size() == 2);
  CHECK(merges[0] == std::make_pair(B('a'), B('b')));
  CHECK(merges[1] == std::make_pair(B(' '), 258));
}

TEST_CASE("bpe train: ties go to the smaller pair and vocab_size is respected") {
  ChunkCounts counts;
  count_chunks("xy xy zw zw", counts);  // (x,y) 2, (" ",x) 1, (z,w) 2, (" ",z) 2
  BpeTrainOptions opt;
  opt.vocab_size = 259;
  const auto one = train_bpe_merges(counts, opt);
  REQUIRE(one.size() == 1);
  CHECK(one[0] == std::make_pair(B(' '), B('z')));  // the smallest of the three pairs counted twice
  CHECK_THROWS_AS(train_bpe_merges(counts, BpeTrainOptions{100, 2}), std::invalid_argument);
}

TEST_CASE("bpe train: incremental counts match a full recount") {
  ChunkCounts counts;
  for (int i = 0; i < 150; ++i) count_chunks(corpus::make_story(3, Split::train, i).text, counts);
  BpeTrainOptions opt;
  opt.vocab_size = 258 + 300;
  const auto fast = train_bpe_merges(counts, opt);
  CHECK(fast.size() == 300);
  CHECK(fast == naive_merges(counts, 300));
}

TEST_CASE("bpe train: common words become single tokens, made-up names stay in pieces") {
  ChunkCounts counts;
  const ChunkFilter real_words = [](std::string_view c) {
    if (!c.empty() && c[0] == ' ') c.remove_prefix(1);
    return c.empty() || !std::isalpha(static_cast<unsigned char>(c[0])) || corpus::is_lexicon_word(c);
  };
  for (int i = 0; i < 3000; ++i) count_chunks(corpus::make_story(5, Split::train, i).text, counts, real_words);
  const BpeTokenizer tok = train_bpe(counts, BpeTrainOptions{});
  // The generator's whole lexicon fits: training stops before 3072 once no pair of pieces is left to merge.
  CHECK(tok.vocab_size() > 2048);
  CHECK(tok.vocab_size() <= 3072);
  for (const char* w : {" the", " Mia", " doll", " said", " Tom", " kite", " she", " he"}) {
    CAPTURE(w);
    CHECK(tok.encode(w, false).size() == 1);
  }
  // every lexicon word written after a space in these stories is one token
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string text = corpus::make_story(5, Split::train, i).text;
    for (size_t a = 0, b; a < text.size(); a = b + 1) {
      b = text.find(' ', a);
      if (b == std::string::npos) b = text.size();
      std::string w = text.substr(a, b - a);
      while (!w.empty() && !std::isalpha(static_cast<unsigned char>(w.back()))) w.pop_back();
      if (a == 0 || w.empty() || !std::all_of(w.begin(), w.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }) ||
          !corpus::is_lexicon_word(w))
        continue;
      CAPTURE(w);
      CHECK(tok.encode(" " + w, false).size() == 1);
      ++checked;
    }
  }
  CHECK(checked > 10000);
  for (const char* w : {" Zorbin", " Plax", " Tavimo"}) {
    CAPTURE(w);
    CHECK(tok.encode(w, false).size() >= 2);
  }
  const std::string text = "At night, Mia put the doll on her bed.";
  CHECK(tok.decode(tok.encode(text)) == text);
}

// ---- corpus ------------------------------------------------------------------------------------

TEST_CASE("corpus: the same seed gives the same stories") {
  for (Split split : {Split::train, Split::validation, Split::probe}) {
    for (int i = 0; i < 20; ++i) {
      const auto a = corpus::make_story(42, split, i), b = corpus::make_story(42, split, i);
      CHECK(a.text == b.text);
      CHECK(a.object_char == b.object_char);
      CHECK(a.templates == b.templates);
    }
  }
  CHECK(corpus::make_story(1, Split::train, 0).text != corpus::make_story(2, Split::train, 0).text);
  CHECK(corpus::make_story(1, Split::train, 0).text != corpus::make_story(1, Split::train, 1).text);
  const auto p1 = corpus::make_probes(9, 5), p2 = corpus::make_probes(9, 5);
  REQUIRE(p1.size() == 15);
  for (size_t i = 0; i < p1.size(); ++i) CHECK(corpus::probe_to_json(p1[i]) == corpus::probe_to_json(p2[i]));
}

TEST_CASE("corpus: splits never share a story, a hero/object pair or a probe name") {
  const auto train = stories(1, Split::train, 3000);
  const auto val = stories(1, Split::validation, 300);
  std::set<std::string> train_texts, train_names;
  std::set<std::pair<std::string, std::string>> train_pairs, val_pairs;
  for (const auto& s : train) {
    train_texts.insert(s.text);
    train_pairs.insert({s.hero, s.object});
    if (!s.made_up_name.empty()) train_names.insert(s.made_up_name);
  }
  for (const auto& s : val) {
    CHECK(train_texts.count(s.text) == 0);
    CHECK(train_pairs.count({s.hero, s.object}) == 0);
    val_pairs.insert({s.hero, s.object});
  }
  for (const auto& p : corpus::make_probes(1, 100)) {
    CHECK(train_texts.count(p.text) == 0);
    if (p.kind == "name") CHECK(train_names.count(p.name) == 0);
  }
  for (int i = 0; i < 200; ++i) {
    const auto s = corpus::make_story(1, Split::probe, i);
    CHECK(train_pairs.count({s.hero, s.object}) == 0);
    CHECK(val_pairs.count({s.hero, s.object}) == 0);
  }
}

TEST_CASE("corpus: the object is only ever the early mention and its recall") {
  corpus::StoryOptions opt;
  opt.allow_object_repeat = false;
  opt.allow_distractor = false;
  for (const auto& s : stories(11, Split::train, 1500, opt)) {
    CAPTURE(s.text);
    REQUIRE(s.object_char >= 0);
    CHECK(word_at(s.text, s.object_char) == s.object);
    const int expected = s.recall_char >= 0 ? 2 : 1;
    CHECK(count_word(s.text, s.object) == expected);
    if (s.recall_char >= 0) {
      CHECK(word_at(s.text, s.recall_char) == s.object);
      CHECK(s.text[s.recall_char - 1] == ' ');
    }
  }
}

TEST_CASE("corpus: story lengths stay within bounds") {
  const auto all = stories(4, Split::train, 2000);
  double words = 0;
  int recalls = 0, creatures = 0;
  std::set<int> templates;
  for (const auto& s : all) {
    CAPTURE(s.text);
    CHECK(s.text.size() <= 1000);
    CHECK(s.text.find('\n') == std::string::npos);
    CHECK(std::all_of(s.text.begin(), s.text.end(), [](char c) { return c >= 32 && c < 127; }));
    const int w = static_cast<int>(std::count(s.text.begin(), s.text.end(), ' ')) + 1;
    CHECK(w >= 20);
    CHECK(w <= 210);
    words += w;
    recalls += s.recall_char >= 0;
    if (!s.made_up_name.empty()) {
      ++creatures;
      CHECK(s.name_chars.size() >= 2);
      CHECK(s.name_chars.size() <= 4);
    }
    if (s.recall_char >= 0)  // at least 12 words between mention and recall
      CHECK(std::count(s.text.begin() + s.object_char, s.text.begin() + s.recall_char, ' ') >= 13);
    templates.insert(s.templates.begin(), s.templates.end());
  }
  CHECK(words / all.size() > 80);
  CHECK(words / all.size() < 140);
  CHECK(recalls > 1700);
  CHECK(creatures > 1100);
  CHECK(corpus::template_count() >= 150);
  CHECK(static_cast<int>(templates.size()) == corpus::template_count());
}

TEST_CASE("corpus: probe labels point at the right words") {
  const auto probes = corpus::make_probes(1, 60);
  std::map<std::string, int> kinds;
  for (const auto& p : probes) {
    CAPTURE(p.text);
    ++kinds[p.kind];
    if (p.kind == "recall") {
      const std::string word = p.answer.substr(1);
      CHECK(p.answer[0] == ' ');
      CHECK(word_at(p.text, p.answer_char) == word);
      CHECK(count_word(p.text, word) == 1);  // named once, then the blank
      CHECK(p.text.back() != ' ');
      CHECK(p.distance_words >= 12);
      const std::string swap = p.swap_answer.substr(1);
      CHECK(swap != word);
      CHECK(word_at(p.swap_text, p.answer_char) == swap);
      CHECK(p.swap_text.substr(0, p.answer_char) == p.text.substr(0, p.answer_char));
      CHECK(p.swap_text.substr(p.answer_char + swap.size()) == p.text.substr(p.answer_char + word.size()));
    } else if (p.kind == "pronoun") {
      CHECK(word_at(p.text, p.pronoun_char) == p.pronoun);
      CHECK((p.pronoun == "he" || p.pronoun == "He" || p.pronoun == "she" || p.pronoun == "She"));
      CHECK(word_at(p.text, p.antecedent_char) == p.name);
      CHECK(p.antecedent_char < p.pronoun_char);
      CHECK(p.text.find(p.name) <= static_cast<size_t>(p.antecedent_char));
    } else {
      REQUIRE(p.kind == "name");
      CHECK(p.text.compare(p.first_char, p.name.size(), p.name) == 0);
      CHECK(p.text.compare(p.second_char, p.name.size(), p.name) == 0);
      CHECK(p.first_char < p.second_char);
      const std::string first_word = p.name.substr(0, p.name.find(' '));
      CHECK(word_at(p.text, p.first_char) == first_word);
      CHECK(count_word(p.text.substr(0, p.first_char), first_word) == 0);
      CHECK_FALSE(corpus::is_lexicon_word(p.name.substr(0, p.name.find(' '))));
    }
  }
  CHECK(kinds == std::map<std::string, int>{{"name", 60}, {"pronoun", 60}, {"recall", 60}});
  const std::string line = corpus::probe_to_json(probes.front());
  CHECK(line.rfind("{\"kind\":\"recall\",\"text\":", 0) == 0);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("corpus: pronouns in stories refer to a named character") {
  int sole = 0;
  for (const auto& s : stories(8, Split::train, 300)) {
    for (const auto& u : s.pronouns) {
      CAPTURE(s.text);
      CHECK(u.antecedent_char >= 0);
      CHECK(u.antecedent_char < u.pronoun_char);
      CHECK(word_at(s.text, u.antecedent_char) == u.name);
      sole += u.sole_of_gender && u.subject;
    }
  }
  CHECK(sole > 300);
}

TEST_CASE("corpus: lexicon and splits by name") {
  CHECK(corpus::is_lexicon_word("doll"));
  CHECK(corpus::is_lexicon_word("Mia"));
  CHECK(corpus::is_lexicon_word("The"));
  CHECK_FALSE(corpus::is_lexicon_word("Zorbin"));
  CHECK(corpus::parse_split("validation") == Split::validation);
  CHECK(std::string(corpus::split_name(Split::probe)) == "probe");
  CHECK_THROWS_AS(corpus::parse_split("test"), std::invalid_argument);
}

TEST_CASE("corpus: copy practice repeats the object and a creature's song; probes have neither") {
  int songs = 0, recalls = 0, mentions = 0;
  for (const auto& s : stories(5, Split::train, 2000)) {
    CAPTURE(s.text);
    if (!s.song.empty()) {
      ++songs;
      CHECK(s.song.find(' ') != std::string::npos);
      size_t n = 0;
      for (size_t at = s.text.find(s.song); at != std::string::npos; at = s.text.find(s.song, at + 1)) ++n;
      CHECK(n >= 2);
      CHECK(n <= 3);
      for (size_t i = 0, j; i < s.song.size(); i = j + 1) {  // every song word is made up
        j = std::min(s.song.find(' ', i), s.song.size());
        CHECK_FALSE(corpus::is_lexicon_word(s.song.substr(i, j - i)));
      }
    }
    if (s.recall_char >= 0) ++recalls, mentions += count_word(s.text, s.object);
  }
  CHECK(songs > 500);
  CHECK(double(mentions) / recalls > 3.0);  // intro, recall and on average about two more
  corpus::StoryOptions probe;
  probe.copy_practice = false;
  probe.allow_object_repeat = false;
  for (const auto& s : stories(5, Split::probe, 300, probe)) CHECK(s.song.empty());
}

TEST_CASE("corpus: a habit word always follows its owner, by name or by pronoun") {
  static const char* const habits[] = {"whistled", "sneezed", "blinked", "grinned", "shrugged", "sighed",
                                       "stretched", "hiccuped", "snorted", "chuckled", "squeaked", "tiptoed",
                                       "wiggled", "sniffed", "stomped", "twirled"};
  CHECK(std::string(corpus::habit_of("Tom")) == corpus::habit_of("Tom"));
  int by_name = 0, by_pronoun = 0;
  for (const auto& s : stories(9, Split::train, 600)) {
    CAPTURE(s.text);
    std::map<int, std::string> pronoun_name;  // pronoun_char -> the name it stands for
    for (const auto& u : s.pronouns) pronoun_name[u.pronoun_char] = u.name;
    for (const char* h : habits) {
      const std::string word = std::string(" ") + h;
      for (size_t at = s.text.find(word); at != std::string::npos; at = s.text.find(word, at + 1)) {
        size_t begin = at;
        while (begin > 0 && is_word_char(s.text[begin - 1])) --begin;
        const std::string before = s.text.substr(begin, at - begin);
        const auto p = pronoun_name.find(int(begin));
        if (p != pronoun_name.end()) {
          CHECK(std::string(corpus::habit_of(p->second)) == h);
          ++by_pronoun;
        } else {
          CHECK(std::string(corpus::habit_of(before)) == h);
          ++by_name;
        }
      }
    }
  }
  CHECK(by_name > 200);
  CHECK(by_pronoun > 200);
}

TEST_CASE("corpus: a habit sentence never follows a habit sentence, and the words around the habit vary") {
  // Sentences end at '.', '!' or '?' (and a closing quote) before a space.
  const auto sentences = [](const std::string& t) {
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i] != '.' && t[i] != '!' && t[i] != '?') continue;
      const size_t j = i + 1 + (t[i + 1] == '"');
      if (j < t.size() && t[j] == ' ') {
        out.push_back(t.substr(from, j - from));
        from = j + 1;
      }
    }
    out.push_back(t.substr(from));
    return out;
  };
  const auto habit_after = [](const std::string& s, std::string& tail) {  // the words after the habit, if any
    for (const char* h : corpus::detail::kHabits) {
      const std::string w = std::string(" ") + h;
      const size_t at = s.find(w);
      if (at != std::string::npos && (at + w.size() == s.size() || !is_word_char(s[at + w.size()]))) {
        tail = s.substr(at + w.size());
        tail = tail.substr(0, std::min(tail.size(), tail.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ")));  // no names
        return true;
      }
    }
    return false;
  };
  int said = 0, habits = 0;
  std::set<std::string> tails;
  for (const auto& st : stories(11, Split::train, 600)) {
    CAPTURE(st.text);
    bool last = false;
    for (const std::string& s : sentences(st.text)) {
      std::string tail;
      const bool habit = habit_after(s, tail);
      CHECK_FALSE((habit && last));
      last = habit;
      ++said;
      if (habit) {
        ++habits;
        tails.insert(tail);
      }
    }
  }
  // Still about one sentence in eight (a quarter of the fillers), ending in many ways (the fixed frames alone end
  // in 8: ".", " again.", " twice.", ", as always.", " and looked at ", ...).
  CHECK(habits > said / 12);
  CHECK(tails.size() > 30);
}

TEST_CASE("corpus: a wrapped story keeps the sample's text and recalls the one thing its child got") {
  const std::vector<std::string> samples = {
      "Once upon a time, there was a little girl named Lily. She liked to play in the park. One day, she saw a big "
      "dog. The dog was friendly. Lily was happy.",
      "Once upon a time, there was a boy. He liked to run. He ran to the tree. He saw a bird. The boy smiled.",
      "Tom and Sue went to the beach. They built a castle. The sea was blue. Tom laughed."};
  int with_pronoun = 0, with_two_things = 0, made_up = 0, total = 0;
  for (size_t s = 0; s < samples.size(); ++s) {
    for (uint64_t i = 0; i < 300; ++i, ++total) {
      const std::string& sample = samples[s];
      const std::string w = corpus::wrap_story(sample, 3, i);
      CAPTURE(w);
      REQUIRE(w == corpus::wrap_story(sample, 3, i));
      // The sample's own text is all there, in order: its first sentence, then the intro, then the rest, then the
      // recall.
      const size_t first_end = sample.find(". ") + 1;
      REQUIRE(w.compare(0, first_end, sample, 0, first_end) == 0);
      const size_t rest = w.find(sample.substr(first_end));
      REQUIRE(rest != std::string::npos);
      const std::string intro = w.substr(first_end, rest - first_end);
      const std::string recall = w.substr(rest + sample.size() - first_end);
      REQUIRE(recall.size() > 2);
      CHECK(recall.back() == '.');
      // The recall ends on the thing ("... flew her kite.", "... closed his box again.", "... picked up his box and
      // held it tight."), which the intro names.
      std::string cue = recall.substr(0, recall.size() - 1);
      for (const std::string tail : {" again", " and held it tight", " under the bed"})
        if (cue.size() > tail.size() && cue.compare(cue.size() - tail.size(), tail.size(), tail) == 0)
          cue.resize(cue.size() - tail.size());
      const std::string thing = cue.substr(cue.rfind(' ') + 1);
      CHECK(intro.find(" " + thing) != std::string::npos);
      CHECK(std::count(w.begin(), w.end(), '\n') == 0);
      // The owner: Lily (she), the boy (he), Tom (he: the first child named), named in the intro and, in the
      // recall, by name or by the right pronoun, never the other one.
      const char* const owner[] = {"lily", "the boy", "tom"};
      std::string lower_intro = intro, lower_recall = " " + recall;
      for (auto* t : {&lower_intro, &lower_recall})
        for (char& c : *t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      CHECK(lower_intro.find(owner[s]) != std::string::npos);
      const bool female = s == 0;
      const bool pronoun = lower_recall.find(female ? " she " : " he ") != std::string::npos;
      CHECK((pronoun || lower_recall.find(owner[s]) != std::string::npos));
      CHECK(lower_recall.find(female ? " he " : " she ") == std::string::npos);
      CHECK(lower_recall.find(female ? " his " : " her ") == std::string::npos);
      with_pronoun += pronoun;
      with_two_things += intro.find(" and a") != std::string::npos || intro.find(" next to a") != std::string::npos;
      bool known = false;
      for (const auto& k : corpus::detail::kinds())
        for (const char* t : k.things) known |= thing == t;
      made_up += !known;
    }
  }
  CHECK(with_pronoun > total / 3);
  CHECK(with_two_things > total / 5);
  CHECK(made_up > total / 20);
  CHECK(made_up < total / 4);
  // No child named, or too few sentences: unchanged.
  CHECK(corpus::wrap_story("The cat sat on the mat. It was warm. The sun was out.", 3, 0) ==
        "The cat sat on the mat. It was warm. The sun was out.");
  CHECK(corpus::wrap_story("Lily sat on the mat. It was warm.", 3, 0) == "Lily sat on the mat. It was warm.");
}

TEST_CASE("corpus: frames 2 recall the child's thing behind many verbs and cues, with other things between") {
  const std::string sample =
      "Once upon a time, there was a little girl named Lily. She liked to play in the park. One day, she saw a big "
      "dog. The dog was friendly. They ran to the pond. The sun was warm. Lily was happy.";
  const std::vector<std::string> afters = {" She felt very happy.", " They felt very happy.", " It was a good day.",
                                           " The end.", " She smiled.",
                                           " Everyone was happy.", " They smiled."};
  std::set<std::string> leads;
  int dialogue = 0, little = 0, named_before = 0, plain = 0, with_other = 0;
  const int total = 600;
  for (uint64_t i = 0; i < total; ++i) {
    const std::string w = corpus::wrap_story(sample, 5, i, 2);
    CAPTURE(w);
    REQUIRE(w == corpus::wrap_story_varied(sample, 5, i));
    CHECK(w != corpus::wrap_story(sample, 5, i, 1));
    CHECK(w.rfind("Once upon a time, there was a little girl named Lily.", 0) == 0);
    CHECK(std::count(w.begin(), w.end(), '\n') == 0);
    const std::string added = " " + w.substr(53);
    CHECK(added.find(" his ") == std::string::npos);  // Lily's things are hers
    CHECK(added.find(" he ") == std::string::npos);
    std::string end = w;
    for (const auto& a : afters)
      if (end.size() > a.size() && end.compare(end.size() - a.size(), a.size(), a) == 0) end.resize(end.size() - a.size());
    const std::string recall = end.substr(end.rfind(". ", end.size() - 2) + 1);  // the last sentence
    dialogue += recall.find('"') != std::string::npos || recall.find(" my ") != std::string::npos ||
                recall.find(" your ") != std::string::npos;
    little += recall.find(" little ") != std::string::npos;
    with_other += std::count(added.begin(), added.end(), '.') >= 3;
    if (recall.find('"') != std::string::npos || end.back() != '.') continue;
    // "... opened her box.", "... showed Mom the little box and smiled.": the thing comes before the tail
    std::string cue = end.substr(0, end.size() - 1);
    for (const std::string tail : {" again", " and smiled", " with care", " one more time", " and laughed"})
      if (cue.size() > tail.size() && cue.compare(cue.size() - tail.size(), tail.size(), tail) == 0) cue.resize(cue.size() - tail.size());
    const std::string thing = cue.substr(cue.rfind(' ') + 1);
    ++plain;
    named_before += cue.substr(0, cue.rfind(' ')).find(" " + thing) != std::string::npos;
    leads.insert(recall.substr(0, std::min<size_t>(recall.size(), 14)));
  }
  CHECK(named_before == plain);  // every use names a thing got earlier
  CHECK(plain > total / 2);
  CHECK(dialogue > total / 20);
  CHECK(little > total / 30);
  CHECK(with_other > total / 3);
  CHECK(leads.size() > 60);
  // No child named, or too few sentences: unchanged.
  CHECK(corpus::wrap_story_varied("The cat sat on the mat. It was warm. The sun was out.", 3, 0) ==
        "The cat sat on the mat. It was warm. The sun was out.");
}

TEST_CASE("corpus: frames 3 recall a thing the sample itself names, by a verb no other thing it names takes") {
  const std::string sample =
      "Once upon a time, there was a boy named Tom. Tom had a red ball and a big box. He liked to play in the park. "
      "The sun was warm. Tom was happy.";
  int natural = 0, ball = 0, box = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const std::string w = corpus::wrap_story_natural(sample, 7, i);
    CAPTURE(w);
    REQUIRE(w == corpus::wrap_story_natural(sample, 7, i));
    REQUIRE(w.rfind(sample, 0) == 0);  // the sample, whole, then the recall
    const std::string recall = w.substr(sample.size());
    CHECK(recall.find(" she ") == std::string::npos);
    CHECK(recall.find(" her ") == std::string::npos);
    ++natural;
    ball += recall.find(" ball") != std::string::npos;
    box += recall.find(" box") != std::string::npos;
    CHECK((recall.find(" ball") == std::string::npos || recall.find(" box") == std::string::npos));
  }
  CHECK(natural == 200);
  CHECK(ball > 20);
  CHECK(box > 20);
  CHECK(ball + box == 200);
  // frames 3: about half the stories this way, the rest as frames 2
  int same = 0;
  for (uint64_t i = 0; i < 200; ++i) same += corpus::wrap_story(sample, 7, i, 3) == corpus::wrap_story_natural(sample, 7, i);
  CHECK(same > 60);
  CHECK(same < 140);
  // a sample that names no thing is left as it is
  CHECK(corpus::wrap_story_natural("Tom ran to the park. He was happy. The sun was warm.", 7, 0) ==
        "Tom ran to the park. He was happy. The sun was warm.");
}

TEST_CASE("corpus: a story that repeats a sentence of three or more words is found") {
  CHECK(corpus::repeats_a_sentence("Tom went out. He was happy. He was happy. Tom played."));
  CHECK(corpus::repeats_a_sentence("\"I like it!\" said Sue. Then she ran. \"I like it!\" said Sue."));
  CHECK_FALSE(corpus::repeats_a_sentence("Go home. Go home. Tom was happy."));  // two words: a refrain, not a loop
  CHECK_FALSE(corpus::repeats_a_sentence("Tom was happy. Sue was happy. Tom was sad."));
  CHECK_FALSE(corpus::repeats_a_sentence(""));
}

TEST_CASE("corpus: generated stories seldom say a sentence twice word for word (fillers are never reused)") {
  int repeating = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) repeating += corpus::repeats_a_sentence(corpus::make_story(1, corpus::Split::train, i).text);
  CHECK(repeating < n / 25);  // songs and the creature's lines may come back; fillers may not
}
