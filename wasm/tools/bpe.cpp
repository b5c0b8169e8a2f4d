// lookback-bpe: trains the byte-level BPE tokenizer on a story file, encodes text, and turns a
// story file into the token stream the trainer reads. It does not generate stories (lookback-corpus).
//
//   lookback-bpe --train train.txt [--also samples.txt] --vocab 3072 --out tokenizer.json [--keep-invented]
//   lookback-bpe --tokenizer tokenizer.json --encode "Mia took her doll."
//   lookback-bpe --tokenizer tokenizer.json --encode-corpus train.txt --out tokens.bin [--context 256]
//
// Story files hold one story per line. tokens.bin is uint16 little-endian ids, each story written
// as <s> ... </s>; stories longer than --context tokens (marks included) are left out and counted.
// Training leaves out chunks whose word is not in the corpus generator's lexicon (the invented
// creature names), so those names stay split into pieces; --keep-invented counts every chunk. Stories in the
// --also file (text the generator did not write, such as sampled stories) count every chunk.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "base/cli.hpp"
#include "base/read_file.hpp"
#include "model/bpe.hpp"
#include "train/bpe_train.hpp"
#include "train/corpus.hpp"

namespace {

using namespace lookback;

struct Args {
  std::string train, also, tokenizer, encode, encode_corpus, out;
  int vocab = 3072;
  int context = 256;
  bool keep_invented = false;
  bool has_encode = false;
};

// Prints the usage, with the error first when there is one; exits 0 for --help and 2 for a mistake.
const lookback::cli::Usage kUsage{"lookback-bpe",
    "usage: lookback-bpe --train FILE [--also FILE] [--vocab 3072] --out tokenizer.json [--keep-invented]\n"
    "       lookback-bpe --tokenizer tokenizer.json --encode TEXT\n"
    "       lookback-bpe --tokenizer tokenizer.json --encode-corpus FILE --out tokens.bin [--context 256]\n"};

[[noreturn]] void usage(const std::string& error) { kUsage.fail(error); }

Args parse(int argc, char** argv) {
  Args a;
  lookback::cli::parse(kUsage, argc, argv, [&](const std::string& k, auto value) {
    if (k == "--train") a.train = value();
    else if (k == "--also") a.also = value();
    else if (k == "--tokenizer") a.tokenizer = value();
    else if (k == "--encode") { a.encode = value(); a.has_encode = true; }
    else if (k == "--encode-corpus") a.encode_corpus = value();
    else if (k == "--out") a.out = value();
    else if (k == "--vocab") a.vocab = std::stoi(value());
    else if (k == "--context") a.context = std::stoi(value());
    else if (k == "--keep-invented") a.keep_invented = true;
    else return false;
    return true;
  });
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Lines of a story file, skipping empty ones (views into `text`).
std::vector<std::string_view> story_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    size_t end = j;
    if (end > i && text[end - 1] == '\r') --end;
    if (end > i) lines.emplace_back(text.data() + i, end - i);
    i = j + 1;
  }
  return lines;
}

// Keep a chunk unless its letters form a word the story generator never writes (a made-up name).
bool lexicon_chunk(std::string_view chunk) {
  if (!chunk.empty() && chunk[0] == ' ') chunk.remove_prefix(1);
  if (chunk.empty() || !std::isalpha(static_cast<unsigned char>(chunk[0]))) return true;
  return corpus::is_lexicon_word(chunk);
}

std::string show_tokens(const BpeTokenizer& tok, const std::vector<int>& ids) {
  std::string s;
  for (int id : ids) s += "[" + tok.token_text(id) + "]";
  return s;
}

int train(const Args& a) {
  if (a.out.empty()) usage("--train needs --out tokenizer.json");
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = read_file(a.train);
  const auto lines = story_lines(text);
  ChunkCounts counts;
  long long kept = 0, dropped = 0;
  const ChunkFilter keep = [&](std::string_view c) {
    const bool k = a.keep_invented || lexicon_chunk(c);
    (k ? kept : dropped) += 1;
    return k;
  };
  for (std::string_view line : lines) count_chunks(line, counts, keep);
  const std::string also = a.also.empty() ? std::string() : read_file(a.also);
  for (std::string_view line : story_lines(also)) count_chunks(line, counts);
  const double count_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  BpeTrainOptions opt;
  opt.vocab_size = a.vocab;
  const BpeTokenizer tok = train_bpe(counts, opt);
  const double merge_s = seconds_since(t1);
  std::ofstream out(a.out, std::ios::binary);
  out << tok.to_json();
  if (!out) throw std::runtime_error("cannot write " + a.out);
  std::printf("stories %zu, bytes %zu, chunks %lld counted (%lld left out as invented names), %zu distinct\n",
              lines.size(), text.size(), kept, dropped, counts.size());
  std::printf("merges %zu -> vocab %d in %.2f s (counting %.2f s, merging %.2f s) -> %s\n", tok.merges().size(),
              tok.vocab_size(), count_s + merge_s, count_s, merge_s, a.out.c_str());
  if (!lines.empty()) {
    const std::string sample(lines[0].substr(0, std::min<size_t>(lines[0].size(), 160)));
    std::printf("sample: %s\n", show_tokens(tok, tok.encode(sample)).c_str());
  }
  return 0;
}

BpeTokenizer load(const Args& a) {
  if (a.tokenizer.empty()) usage("--tokenizer tokenizer.json is required");
  return BpeTokenizer::from_json(read_file(a.tokenizer));
}

int encode(const Args& a) {
  const BpeTokenizer tok = load(a);
  const auto ids = tok.encode(a.encode);
  for (size_t i = 0; i < ids.size(); ++i) std::printf("%s%d", i ? " " : "", ids[i]);
  std::printf("\n%s\n%zu tokens\n", show_tokens(tok, ids).c_str(), ids.size());
  return 0;
}

int percentile(std::vector<int> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

int encode_corpus(const Args& a) {
  if (a.out.empty()) usage("--encode-corpus needs --out tokens.bin");
  const BpeTokenizer tok = load(a);
  if (tok.vocab_size() > 65536) throw std::runtime_error("vocab too large for uint16 ids");
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = read_file(a.encode_corpus);
  std::ofstream out(a.out, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + a.out);
  std::vector<int> lengths;
  long long total = 0, excluded = 0;
  int longest_excluded = 0;
  std::vector<unsigned char> buf;
  for (std::string_view line : story_lines(text)) {
    std::vector<int> ids = tok.encode(std::string(line));
    ids.push_back(BpeTokenizer::kEos);
    const int n = static_cast<int>(ids.size());
    if (n > a.context) {
      ++excluded;
      longest_excluded = std::max(longest_excluded, n);
      continue;
    }
    lengths.push_back(n);
    total += n;
    buf.clear();
    for (int id : ids) {
      buf.push_back(static_cast<unsigned char>(id & 0xFF));
      buf.push_back(static_cast<unsigned char>(id >> 8));
    }
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
  }
  if (!out) throw std::runtime_error("error writing " + a.out);
  double mean = 0;
  for (int n : lengths) mean += n;
  mean = lengths.empty() ? 0 : mean / lengths.size();
  std::printf("stories %zu written, %lld tokens (with <s> and </s>) in %.2f s -> %s\n", lengths.size(), total,
              seconds_since(t0), a.out.c_str());
  std::printf("tokens per story: mean %.1f  p50 %d  p99 %d  max %d\n", mean, percentile(lengths, 0.5),
              percentile(lengths, 0.99), lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end()));
  std::printf("excluded (longer than %d tokens): %lld stories%s\n", a.context, excluded,
              excluded ? (" (longest " + std::to_string(longest_excluded) + ")").c_str() : "");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  try {
    if (!a.train.empty()) return train(a);
    if (a.has_encode) return encode(a);
    if (!a.encode_corpus.empty()) return encode_corpus(a);
    usage("nothing to do: give --train, --encode or --encode-corpus");
  } catch (const std::exception& e) {
    std::cerr << "lookback-bpe: " << e.what() << "\n";
    return 1;
  }
}
