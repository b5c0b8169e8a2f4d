// llama2.c formats on synthetic files: checkpoints (shared and separate classifier) round trip and give the
// same forward as the weights they came from; truncated, padded or impossible files are refused with a
// message; the sentencepiece-style tokenizer's rules (code points, byte fallback, best-score merges with
// leftmost ties, the leading space after the start mark, the token spans and places it gives) and its .bin
// reader. Runs natively and in wasm.
#include <doctest/doctest.h>

#include <cstring>

#include "model/errors.hpp"
#include "model/llama2c.hpp"
#include "model/session.hpp"
#include "model/sp_tokenizer.hpp"
#include "model/token_spans.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

ModelConfig llama_config(bool tied) {
  auto c = small_config(32, 2, 4, 2, 8, 40, 300, 16, RopeLayout::adjacent, false, Mlp::swiglu, tied);
  c.arch = "llama2c", c.bos_id = 1, c.eos_id = 2;
  return c;
}

// A vocabulary: <unk>, <s>, </s>, the 256 byte pieces, then the given pieces with their scores.
SpTokenizer vocab(const std::vector<std::pair<std::string, float>>& extra) {
  std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
  std::vector<float> scores(3, 0.0f);
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    pieces.push_back(buf), scores.push_back(0.0f);
  }
  for (const auto& [p, s] : extra) pieces.push_back(p), scores.push_back(s);
  return SpTokenizer(pieces, scores);
}

std::vector<std::uint8_t> tokenizer_bin(const SpTokenizer& t, std::uint32_t max_len) {
  std::vector<std::uint8_t> out(4);
  std::memcpy(out.data(), &max_len, 4);
  for (int id = 0; id < t.vocab_size(); ++id) {
    const float score = 0.0f;
    const std::int32_t len = std::int32_t(t.piece(id).size());
    const std::size_t at = out.size();
    out.resize(at + 8 + std::size_t(len));
    std::memcpy(&out[at], &score, 4);
    std::memcpy(&out[at + 4], &len, 4);
    std::memcpy(&out[at + 8], t.piece(id).data(), std::size_t(len));
  }
  return out;
}

std::string error_of(const std::vector<std::uint8_t>& f) {
  try {
    read_llama2c(f.data(), f.size());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("llama2.c checkpoints round trip, tied and separate, and run like the weights they hold") {
  for (bool tied : {true, false}) {
    const auto c = llama_config(tied);
    Weights w = random_weights(c, 41);
    const auto bytes = write_llama2c(w);
    std::int32_t vocab;
    std::memcpy(&vocab, bytes.data() + 20, 4);
    CHECK(vocab == (tied ? 300 : -300));
    const Weights back = read_llama2c(bytes.data(), bytes.size());
    CHECK(back.config().tied_embeddings == tied);
    CHECK(back.config().head_dim == 8);
    REQUIRE(back.size() == w.size());
    CHECK(std::memcmp(back.data(), w.data(), w.size() * 4) == 0);
  }
}

TEST_CASE("llama2.c checkpoints: truncated, padded and impossible files say what is wrong") {
  const auto good = write_llama2c(random_weights(llama_config(false), 42));
  CHECK(error_of(good) == "(no error)");
  auto cut = good;
  cut.resize(cut.size() - 4);
  CHECK(error_of(cut).find("(truncated?)") != std::string::npos);
  auto padded = good;
  padded.push_back(0);
  CHECK(error_of(padded).find("(extra bytes at the end)") != std::string::npos);
  CHECK(error_of({1, 2, 3}) == "llama2.c checkpoint: the file is 3 bytes; the header alone is 28");
  auto bad = good;
  const std::int32_t heads = 5;
  std::memcpy(bad.data() + 12, &heads, 4);
  CHECK(error_of(bad) == "llama2.c checkpoint: n_heads (5) must divide dim (32)");
  bad = good;
  const std::int32_t zero = 0;
  std::memcpy(bad.data() + 8, &zero, 4);
  CHECK(error_of(bad) == "llama2.c checkpoint: header n_layers (bytes 8..12) is 0; must be positive");
  bad = good;
  const std::int32_t kv = 3;
  std::memcpy(bad.data() + 16, &kv, 4);
  CHECK(error_of(bad).find("n_kv_heads (3) must divide n_heads (4)") != std::string::npos);
  bad = good;
  const float nan = NAN;
  std::memcpy(bad.data() + 28 + 4 * 5, &nan, 4);
  CHECK(error_of(bad) == "tensor 'tok_embeddings.weight' holds NaN at [0, 5]; weights must be finite");
}

TEST_CASE("sentencepiece-style encoding: code points, byte fallback, best merges, leftmost ties") {
  const SpTokenizer t = vocab({{" ", -1}, {"a", -1}, {"b", -1}, {"ab", -5}, {"ba", -5}, {" a", -3}, {"aba", -2}, {"é", -1}});
  const int sp = 259, a = 260, b = 261, ab = 262, ba = 263, sa = 264, aba = 265, e = 266;
  CHECK(t.encode("", true) == std::vector<int>{1});
  CHECK(t.encode("", false).empty());
  CHECK(t.encode("a", false) == std::vector<int>{sa});             // dummy prefix " " + "a" merge
  CHECK(t.encode("aa", false) == std::vector<int>{sa, a});         // no "aa" piece: the second "a" stays
  CHECK(t.encode("bab", false) == std::vector<int>{sp, ba, b});    // "ab" and "ba" tie at -5: leftmost wins
  CHECK(t.encode("b aba", false) == std::vector<int>{sp, b, sa, ba});  // " a" (-3) before "ab"/"ba", then "ba"
  CHECK(t.encode("aab", true) == std::vector<int>{1, sa, ab});
  CHECK(t.encode("é", false) == std::vector<int>{sp, e});
  CHECK(t.encode("ü", false) == std::vector<int>{sp, 0xC3 + 3, 0xBC + 3});  // no piece: its bytes
  CHECK(t.encode(std::string("a\x80", 2), false) == std::vector<int>{sp, 'a' + 3, 0x80 + 3});  // run.c groups a stray continuation
  CHECK(t.encode(std::string("\0", 1), false) == std::vector<int>{sp, 3});
  (void)aba;
  CHECK(t.decode({1, sa, b}) == "ab");         // the space after the start mark is dropped
  CHECK(t.decode({sa, b}) == " ab");
  CHECK(t.decode({1, 0xC3 + 3, 0xBC + 3, 2}) == "ü");
  CHECK(t.token_text(1) == "◆");
  CHECK(t.token_text(2) == "◇");
  CHECK(t.token_text('\n' + 3) == "\n");
  CHECK(t.token_text(0xC3 + 3) == "<0xC3>");
  CHECK_THROWS_WITH_AS(t.decode({1, 400}), "token id 400 at index 1 is outside the vocabulary [0, 267)", ModelError);
}

TEST_CASE("token spans and places follow the decoding: no space after the start mark, a character's bytes reach its end") {
  const SpTokenizer t = vocab({{" ", -1}, {"a", -1}, {"b", -1}, {" a", -3}});
  const int sa = 262, b = 261;
  using Spans = std::vector<std::pair<int, int>>;
  // " a" gives "a" after the start mark; a second start mark drops the next space again
  const std::vector<int> ids = {1, sa, b, 1, sa, 2};
  CHECK(t.decode(ids) == "aba");
  CHECK(token_spans(t, ids) == Spans{{0, 0}, {0, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}});
  CHECK(token_spans(t, {sa, b}) == Spans{{0, 2}, {2, 3}});  // no start mark: the space is the text's
  // "é" (2 bytes, 1 UTF-16 unit) and U+1F642 (4 bytes, 2 units) as byte pieces, then "b"
  const std::vector<int> bytes = {1, 0xC3 + 3, 0xA9 + 3, 0xF0 + 3, 0x9F + 3, 0x99 + 3, 0x82 + 3, b};
  CHECK(token_places(t, bytes) == Spans{{0, 0}, {0, 1}, {0, 1}, {1, 3}, {1, 3}, {1, 3}, {1, 3}, {3, 4}});
  // half a character at the end, and a stray continuation byte: each its own U+FFFD
  CHECK(token_places(t, {b, 0xC3 + 3}) == Spans{{0, 1}, {1, 2}});
  CHECK(token_places(t, {0x80 + 3, b}) == Spans{{0, 1}, {1, 2}});
  CHECK(utf16_places(std::string("\xE2\x82", 2)) == Spans{{0, 0}, {0, 1}, {1, 1}});  // one ill-formed subpart
  CHECK_THROWS_WITH_AS(t.decode_each({1, 400}), "token id 400 at index 1 is outside the vocabulary [0, 263)", ModelError);
}

TEST_CASE("tokenizer .bin: reads what it should, refuses truncation and impossible lengths") {
  const SpTokenizer t = vocab({{" ", -1}, {"a", -1}});
  const auto bin = tokenizer_bin(t, 6);
  const SpTokenizer back = SpTokenizer::from_bin(bin.data(), bin.size());
  CHECK(back.vocab_size() == 261);
  CHECK(back.piece(260) == "a");
  auto cut = bin;
  cut.resize(cut.size() - 1);
  CHECK_THROWS_WITH_AS(SpTokenizer::from_bin(cut.data(), cut.size()), doctest::Contains("id 260 at byte"), ModelError);
  auto small = tokenizer_bin(t, 5);  // "<0x00>" is 6 bytes
  CHECK_THROWS_WITH_AS(SpTokenizer::from_bin(small.data(), small.size()), doctest::Contains("id 2 at byte"), ModelError);
  const std::vector<std::uint8_t> few(bin.begin(), bin.begin() + 100);
  CHECK_THROWS_AS(SpTokenizer::from_bin(few.data(), few.size()), ModelError);
}
