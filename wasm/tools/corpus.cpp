// lookback-corpus: writes Sprout's generated story corpus and its probes, and prints corpus stats.
// Stories file format: one story per line (plain ASCII, no newline inside a story), in index order.
// Probes file format: JSONL, one probe object per line (see train/corpus.hpp for the fields).
// It does not tokenize for training; lookback-bpe does (--tokenizer here only measures lengths).
//
//   lookback-corpus --seed 1 --split train --stories 110000 --out train.txt [--stats]
//   lookback-corpus --seed 1 --split validation --stories 2000 --out validation.txt
//   lookback-corpus --seed 1 --split probe --probes 300 --out probes.jsonl
//   lookback-corpus --seed 1 --split train --stories 5000 --stats [--tokenizer tokenizer.json]
//   lookback-corpus --seed 1 --wrap samples.txt --wrap-share 0.6 --out wrapped.txt   (stories with a recall around them)
//   lookback-corpus --seed 1 --wrap samples.txt --wrap-frames 2 --out wrapped.txt    (the recall in many more forms)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/cli.hpp"
#include "base/read_file.hpp"
#include "model/bpe.hpp"
#include "train/corpus.hpp"
#include "train/corpus_rng.hpp"

namespace {

using namespace lookback;

struct Args {
  uint64_t seed = 1;
  corpus::Split split = corpus::Split::train;
  long long stories = 1000;
  long long first = 0;
  int probes = 300;
  int context = 256;
  std::string out, tokenizer, wrap;
  double wrap_share = 0.6;
  int wrap_frames = 1;  // 1: the recall's first ~20 frames; 2: many more verbs, cues and other things between;
                        // 3: half of them recall a thing the sample itself names
  bool stats = false;
};

// Prints the usage, with the error first when there is one; exits 0 for --help and 2 for a mistake.
const lookback::cli::Usage kUsage{"lookback-corpus",
    "usage: lookback-corpus --seed N --split train|validation|probe [--stories N] [--first I]\n"
    "                       [--probes N] [--out FILE] [--stats] [--tokenizer tokenizer.json]\n"
    "                       [--context 256]\n"
    "       lookback-corpus --seed N --wrap stories.txt [--wrap-share 0.6] [--wrap-frames 1|2|3] --out FILE\n"};

[[noreturn]] void usage(const std::string& error) { kUsage.fail(error); }

Args parse(int argc, char** argv) {
  Args a;
  lookback::cli::parse(kUsage, argc, argv, [&](const std::string& k, auto value) {
    if (k == "--seed") a.seed = std::stoull(value());
    else if (k == "--split") a.split = corpus::parse_split(value());
    else if (k == "--stories") a.stories = std::stoll(value());
    else if (k == "--first") a.first = std::stoll(value());
    else if (k == "--probes") a.probes = std::stoi(value());
    else if (k == "--context") a.context = std::stoi(value());
    else if (k == "--out") a.out = value();
    else if (k == "--tokenizer") a.tokenizer = value();
    else if (k == "--stats") a.stats = true;
    else if (k == "--wrap") a.wrap = value();
    else if (k == "--wrap-share") a.wrap_share = std::stod(value());
    else if (k == "--wrap-frames") a.wrap_frames = std::stoi(value());
    else return false;
    return true;
  });
  if (a.stories < 0 || a.first < 0 || a.probes < 0) usage("counts must be >= 0");
  if (a.out.empty() && !a.stats) usage("nothing to do: give --out and/or --stats");
  if (!a.wrap.empty() && a.out.empty()) usage("--wrap needs --out");
  if (!(a.wrap_share >= 0 && a.wrap_share <= 1)) usage("--wrap-share must be in [0, 1]");
  if (a.wrap_frames < 1 || a.wrap_frames > 3) usage("--wrap-frames must be 1, 2 or 3");
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Running summary of generated stories.
struct Stats {
  long long stories = 0, chars = 0, words = 0, with_creature = 0, with_recall = 0, pronouns = 0;
  int max_chars = 0, max_words = 0, min_words = 1 << 30;
  std::vector<int> recall_distance;  // words between mention and recall
  std::set<int> templates;
  std::set<std::string> vocabulary, names;
  std::vector<int> tokens;           // per story, with <s> and </s>

  void add(const corpus::Story& s, const BpeTokenizer* tok) {
    ++stories;
    chars += s.text.size();
    max_chars = std::max(max_chars, static_cast<int>(s.text.size()));
    const int w = static_cast<int>(std::count(s.text.begin(), s.text.end(), ' ')) + 1;
    words += w;
    max_words = std::max(max_words, w);
    min_words = std::min(min_words, w);
    templates.insert(s.templates.begin(), s.templates.end());
    with_creature += !s.made_up_name.empty();
    if (!s.made_up_name.empty()) names.insert(s.made_up_name);
    pronouns += static_cast<long long>(s.pronouns.size());
    if (s.recall_char >= 0) {
      ++with_recall;
      const std::string gap = s.text.substr(s.object_char, s.recall_char - s.object_char);
      recall_distance.push_back(static_cast<int>(std::count(gap.begin(), gap.end(), ' ')) - 1);
    }
    add_words(s.text);
    if (tok) tokens.push_back(static_cast<int>(tok->encode(s.text).size()) + 1);
  }

  void add_words(const std::string& text) {
    std::string w;
    for (char c : text + " ") {
      if (std::isalpha(static_cast<unsigned char>(c))) {
        w += c;
      } else if (!w.empty()) {
        if (corpus::is_lexicon_word(w)) vocabulary.insert(w);
        w.clear();
      }
    }
  }
};

int percentile(std::vector<int> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

double mean(const std::vector<int>& v) {
  double s = 0;
  for (int x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

void print_stats(const Stats& s, int context) {
  const double n = std::max<long long>(1, s.stories);
  std::printf("stories            %lld\n", s.stories);
  std::printf("chars per story    mean %.1f  max %d\n", s.chars / n, s.max_chars);
  std::printf("words per story    mean %.1f  min %d  max %d\n", s.words / n, s.min_words, s.max_words);
  std::printf("templates used     %zu of %d\n", s.templates.size(), corpus::template_count());
  std::printf("vocabulary         %zu distinct words (lexicon %d), %zu distinct made-up names\n",
              s.vocabulary.size(), corpus::lexicon_size(), s.names.size());
  std::printf("with creature      %.1f%%   with recall %.1f%%   pronouns per story %.2f\n",
              100.0 * s.with_creature / n, 100.0 * s.with_recall / n, s.pronouns / n);
  if (!s.recall_distance.empty())
    std::printf("recall distance    words: min %d  mean %.1f  p50 %d  max %d\n",
                *std::min_element(s.recall_distance.begin(), s.recall_distance.end()), mean(s.recall_distance),
                percentile(s.recall_distance, 0.5),
                *std::max_element(s.recall_distance.begin(), s.recall_distance.end()));
  if (!s.tokens.empty()) {
    long long total = 0, over = 0;
    for (int t : s.tokens) {
      total += t;
      over += t > context;
    }
    std::printf("tokens per story   (with <s> and </s>) mean %.1f  min %d  p50 %d  p99 %d  max %d  total %lld\n",
                mean(s.tokens), *std::min_element(s.tokens.begin(), s.tokens.end()), percentile(s.tokens, 0.5),
                percentile(s.tokens, 0.99),
                *std::max_element(s.tokens.begin(), s.tokens.end()), total);
    std::printf("over %d tokens     %lld stories\n", context, over);
  }
}

int write_probes(const Args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto probes = corpus::make_probes(a.seed, a.probes);
  std::ofstream out(a.out, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + a.out);
  std::map<std::string, int> kinds;
  for (const auto& p : probes) {
    out << corpus::probe_to_json(p) << '\n';
    ++kinds[p.kind];
  }
  if (!out) throw std::runtime_error("error writing " + a.out);
  std::fprintf(stderr, "wrote %zu probes to %s in %.2f s:", probes.size(), a.out.c_str(), seconds_since(t0));
  for (const auto& [k, n] : kinds) std::fprintf(stderr, " %s %d", k.c_str(), n);
  std::fprintf(stderr, "\n");
  return 0;
}

// Each line of a.wrap, with a recall wrapped around it in a share of them (drawn per line from the seed); lines
// that repeat a sentence verbatim are left out, so the training text does not teach loops.
int wrap_stories(const Args& a) {
  std::ifstream in(a.wrap, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + a.wrap);
  std::ofstream out(a.out, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + a.out);
  long long lines = 0, wrapped = 0, dropped = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    if (corpus::repeats_a_sentence(line)) {
      ++dropped;
      continue;
    }
    corpus::detail::Rng rng(corpus::detail::story_seed(a.seed, corpus::Split::train, static_cast<uint64_t>(lines), 8));
    const std::string text = rng.chance(a.wrap_share) ? corpus::wrap_story(line, a.seed, lines, a.wrap_frames) : line;
    wrapped += text != line;
    out << text << '\n';
  }
  if (!out) throw std::runtime_error("error writing " + a.out);
  std::fprintf(stderr, "wrapped a recall around %lld of %lld stories (%lld left out: a sentence repeated) -> %s\n",
               wrapped, lines - dropped, dropped, a.out.c_str());
  return 0;
}

int write_stories(const Args& a) {
  std::unique_ptr<BpeTokenizer> tok;
  if (!a.tokenizer.empty()) tok = std::make_unique<BpeTokenizer>(BpeTokenizer::from_json(read_file(a.tokenizer)));
  std::ofstream out;
  if (!a.out.empty()) {
    out.open(a.out, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + a.out);
  }
  Stats stats;
  const auto t0 = std::chrono::steady_clock::now();
  for (long long i = 0; i < a.stories; ++i) {
    const corpus::Story s = corpus::make_story(a.seed, a.split, static_cast<uint64_t>(a.first + i));
    if (out.is_open()) out << s.text << '\n';
    if (a.stats) stats.add(s, tok.get());
  }
  if (out.is_open() && !out) throw std::runtime_error("error writing " + a.out);
  std::fprintf(stderr, "generated %lld %s stories in %.2f s%s%s\n", a.stories, corpus::split_name(a.split),
               seconds_since(t0), a.out.empty() ? "" : " -> ", a.out.c_str());
  if (a.stats) print_stats(stats, a.context);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  try {
    if (!a.wrap.empty()) return wrap_stories(a);
    if (a.split == corpus::Split::probe && !a.out.empty()) return write_probes(a);
    return write_stories(a);
  } catch (const std::exception& e) {
    std::cerr << "lookback-corpus: " << e.what() << "\n";
    return 1;
  }
}
