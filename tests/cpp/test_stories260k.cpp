// The real llama2.c checkpoint stories260K (shared/models/stories260K) against llama2.c's own outputs
// (tests/fixtures/stories260K): its tokenizer on the reference cases exactly, the logits at every position of
// the reference prompt within 1e-4, the listed attention weights within 1e-5, and the scalar reference on the
// same file.
// Runs natively and in WebAssembly under Node.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "model/bundle.hpp"
#include "model/llama2c.hpp"
#include "model/session.hpp"
#include "model/sp_tokenizer.hpp"
#include "reference_model.hpp"
#include "shared_files.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

// The checkpoint and llama2.c's reference outputs are part of the project: a missing one fails the test (read_bytes).
LoadedModel load() {
  const auto bin = read_bytes(stories260k_dir() + "/stories260K.bin");
  const auto tok = read_bytes(stories260k_dir() + "/tok512.bin");
  return load_llama2c(bin.data(), bin.size(), tok.data(), tok.size());
}

std::string unhex(const std::string& h) {
  std::string s;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) s += char(std::stoi(h.substr(i, 2), nullptr, 16));
  return s;
}

std::vector<int> parse_ints(const std::string& line) {
  std::istringstream in(line);
  std::vector<int> v;
  for (int x; in >> x;) v.push_back(x);
  return v;
}

// run.c prints with safe_printf: pieces that are a single non-printable, non-space byte are dropped.
std::string safe_printed(const SpTokenizer& t, const std::vector<int>& ids) {
  std::string out;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    const std::string piece = t.decode_piece(ids[i - 1], ids[i]);
    if (piece.size() == 1 && !(std::isprint(std::uint8_t(piece[0])) || std::isspace(std::uint8_t(piece[0])))) continue;
    out += piece;
  }
  return out;
}

const std::vector<int> kLily = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317};

}  // namespace

TEST_CASE("stories260K: the tokenizer encodes and decodes the reference cases exactly") {
  const auto bytes = read_bytes(stories260k_dir() + "/tok512.bin");
  const SpTokenizer t = SpTokenizer::from_bin(bytes.data(), bytes.size());
  CHECK(t.vocab_size() == 512);
  std::istringstream in(read_text(stories260k_reference_dir() + "/tokenizer_cases.txt"));
  std::string line, text;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.rfind("text_hex:", 0) == 0) text = unhex(line.substr(9));
    if (line.rfind("ids:", 0) == 0) {
      const std::vector<int> want = parse_ints(line.substr(4));
      INFO("text: " << text);
      CHECK(t.encode(text, true) == want);
      std::getline(in, line);  // decoded(...): <text><END>, possibly over several lines
      std::string decoded = line.substr(line.find("): ") + 3);
      while (decoded.find("<END>") == std::string::npos && std::getline(in, line)) decoded += "\n" + line;
      decoded.erase(decoded.find("<END>"));
      CHECK(safe_printed(t, want) == decoded);
      ++cases;
    }
  }
  CHECK(cases == 10);
  CHECK(t.token_text(1) == "◆");
  CHECK(t.token_text(403) == " Once");
  CHECK(t.decode(kLily) == "Once upon a time, there was a little girl named Lily");
}

TEST_CASE("stories260K: logits at every position of the reference prompt within 1e-4") {
  const LoadedModel m = load();
  CHECK(m.tokenizer->encode("Once upon a time, there was a little girl named Lily") == kLily);
  const auto raw = read_bytes(stories260k_reference_dir() + "/lily_logits_all.f32");
  REQUIRE(raw.size() == 15 * 512 * 4);
  std::vector<float> want(15 * 512);
  std::memcpy(want.data(), raw.data(), raw.size());
  Session s(m.transformer);
  StepOptions o;
  o.attention = true;
  s.process(kLily, o);
  const auto got = s.all_logits();
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
  MESSAGE("stories260K: largest |logit - llama2.c| over 15 x 512 = " << worst);
  CHECK(worst <= 1e-4);
  // argmax per position and the top logit at the end, as listed in lily_reference.txt
  const std::vector<int> argmax = {403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426};
  for (int t = 0; t < 15; ++t) CHECK(int(std::max_element(&got[t * 512], &got[t * 512] + 512) - &got[t * 512]) == argmax[t]);
  CHECK(got[14 * 512 + 426] == doctest::Approx(15.8375492).epsilon(1e-5));
}

TEST_CASE("stories260K: attention weights at the last position within 1e-5") {
  const LoadedModel m = load();
  Session s(m.transformer);
  StepOptions o;
  o.attention = true;
  s.process(kLily, o);
  const auto a = s.attention();  // [5, 8, 15, 15]
  std::istringstream in(read_text(stories260k_reference_dir() + "/lily_reference.txt"));
  std::string line;
  int rows = 0;
  double worst = 0;
  while (std::getline(in, line)) {
    int layer, head;
    if (std::sscanf(line.c_str(), "att layer %d head %d:", &layer, &head) != 2) continue;
    std::istringstream vals(line.substr(line.find(':') + 1));
    std::vector<double> want;
    for (double v; vals >> v;) want.push_back(v);
    REQUIRE(want.size() == 15);
    for (int j = 0; j < 15; ++j)
      worst = std::max(worst, std::fabs(a[((std::size_t(layer) * 8 + head) * 15 + 14) * 15 + j] - want[j]));
    ++rows;
  }
  MESSAGE("stories260K: largest |attention - llama2.c| over " << rows << " listed rows = " << worst);
  CHECK(rows == 9);
  CHECK(worst <= 1e-5);
}

TEST_CASE("stories260K: the scalar reference agrees with llama2.c too, and a round trip through write_llama2c is exact") {
  const auto bin = read_bytes(stories260k_dir() + "/stories260K.bin");
  const Weights w = read_llama2c(bin.data(), bin.size());
  const auto ref = reference_forward(w, kLily);
  const auto raw = read_bytes(stories260k_reference_dir() + "/lily_logits_all.f32");
  std::vector<float> want(15 * 512);
  std::memcpy(want.data(), raw.data(), raw.size());
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(ref.logits[i]) - want[i]));
  MESSAGE("stories260K: scalar float64 reference vs llama2.c: " << worst);
  CHECK(worst <= 1e-4);
  const auto again = write_llama2c(w);
  CHECK(std::memcmp(again.data(), bin.data(), 28) == 0);
  const Weights w2 = read_llama2c(again.data(), again.size());
  CHECK(std::memcmp(w.data(), w2.data(), w.size() * 4) == 0);
}
