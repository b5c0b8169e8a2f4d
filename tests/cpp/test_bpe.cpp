// Tests of the byte-level BPE runtime (model/bpe.hpp): pre-tokenisation, rank-ordered merging,
// round trips, tokenizer.json loading and its error messages. Runs natively and under Node (wasm);
// uses no files. The trainer's tests are native only (tests/cpp/native/test_corpus.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/splitmix64.hpp"
#include "model/bpe.hpp"
#include "model/tokenizer.hpp"

using lookback::BpeTokenizer;
using lookback::bpe_chunks;

namespace {

constexpr int B(char c) { return 2 + static_cast<unsigned char>(c); }  // id of a single byte

std::vector<std::string> chunks(const std::string& text) {
  std::vector<std::string> out;
  for (auto c : bpe_chunks(text)) out.emplace_back(c);
  return out;
}

uint64_t next_random(uint64_t& s) { return lookback::splitmix64_next(s); }

// A small hand-built tokenizer: " t", "he", " the", "an", " and", "in", "ing", "é" (2 bytes).
BpeTokenizer small_tokenizer() {
  return BpeTokenizer({{B(' '), B('t')},        // 258 " t"
                       {B('h'), B('e')},        // 259 "he"
                       {258, 259},              // 260 " the"
                       {B('a'), B('n')},        // 261 "an"
                       {B(' '), 261},           // 262 " an"
                       {262, B('d')},           // 263 " and"
                       {B('i'), B('n')},        // 264 "in"
                       {264, B('g')},           // 265 "ing"
                       {2 + 0xC3, 2 + 0xA9}});  // 266 "é"
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t i = s.find(from); i != std::string::npos; i = s.find(from, i + to.size())) s.replace(i, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("bpe: pre-tokenisation rules") {
  using V = std::vector<std::string>;
  CHECK(chunks("Hello world") == V{"Hello", " world"});
  CHECK(chunks("a  b") == V{"a", " ", " b"});             // first space alone, second joins the word
  CHECK(chunks("abc123def") == V{"abc", "123", "def"});  // letters and digits are separate runs
  CHECK(chunks(" 42.") == V{" 42", "."});
  CHECK(chunks("don't") == V{"don", "'", "t"});
  CHECK(chunks("x\n y") == V{"x", "\n", " y"});
  CHECK(chunks("\t\tx") == V{"\t", "\t", "x"});
  CHECK(chunks("a ") == V{"a", " "});                    // trailing space has no next byte
  CHECK(chunks(" \n") == V{" ", "\n"});                  // space before whitespace stands alone
  CHECK(chunks("said, \"Hi!\"") == V{"said", ",", " \"", "Hi", "!", "\""});
  CHECK(chunks("caf\xC3\xA9 au") == V{"caf\xC3\xA9", " au"});  // bytes >= 0x80 count as letters
  CHECK(chunks("..") == V{".", "."});
  CHECK(chunks("").empty());
}

TEST_CASE("bpe: merges apply in rank order") {
  SUBCASE("lower rank wins over position") {
    const BpeTokenizer ab_first({{B('a'), B('b')}, {B('b'), B('c')}});
    CHECK(ab_first.encode("abc", false) == std::vector<int>{258, B('c')});
    const BpeTokenizer bc_first({{B('b'), B('c')}, {B('a'), B('b')}});
    CHECK(bc_first.encode("abc", false) == std::vector<int>{B('a'), 258});
  }
  SUBCASE("merges of merges") {
    const BpeTokenizer tok = small_tokenizer();
    CHECK(tok.encode(" the", false) == std::vector<int>{260});
    CHECK(tok.encode(" and", false) == std::vector<int>{263});
    CHECK(tok.encode("sing", false) == std::vector<int>{B('s'), 265});
    CHECK(tok.encode(" then", false) == std::vector<int>{260, B('n')});
  }
  SUBCASE("overlapping pair merges leftmost first") {
    const BpeTokenizer tok({{B('a'), B('a')}});
    CHECK(tok.encode("aaa", false) == std::vector<int>{258, B('a')});
    CHECK(tok.encode("aaaa", false) == std::vector<int>{258, 258});
  }
  SUBCASE("merges never cross chunks") {
    const BpeTokenizer tok({{B('a'), B(' ')}});  // "a " could only form across a boundary
    CHECK(tok.encode("a b", false) == std::vector<int>{B('a'), B(' '), B('b')});
  }
  SUBCASE("start mark") {
    const BpeTokenizer tok = small_tokenizer();
    CHECK(tok.encode(" the", true) == std::vector<int>{0, 260});
    CHECK(tok.encode("", true) == std::vector<int>{0});
    CHECK(tok.encode("", false).empty());
  }
}

TEST_CASE("bpe: encode/decode round trip on random bytes and UTF-8") {
  const BpeTokenizer tok = small_tokenizer();
  uint64_t s = 7;
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    const int n = static_cast<int>(next_random(s) % 64);
    for (int i = 0; i < n; ++i) text += static_cast<char>(next_random(s) & 0xFF);
    const auto ids = tok.encode(text);
    CHECK(ids.front() == BpeTokenizer::kBos);
    CHECK(tok.decode(ids) == text);
  }
  const char* samples[] = {"the and then", "caf\xC3\xA9 na\xC3\xAFve \xE2\x97\x86 \xF0\x9F\x90\x89 dragon",
                           "line one\nline two\r\n\ttabbed", "  double  spaces  ", "123 456.78!?"};
  for (const char* text : samples) {
    std::vector<int> ids = tok.encode(text);
    ids.push_back(BpeTokenizer::kEos);
    CHECK(tok.decode(ids) == text);  // marks give no text
  }
  CHECK(tok.encode("caf\xC3\xA9", false) == std::vector<int>{B('c'), B('a'), B('f'), 266});
}

TEST_CASE("bpe: decode rejects ids out of range") {
  const BpeTokenizer tok = small_tokenizer();
  CHECK_THROWS_AS(tok.decode({0, tok.vocab_size()}), std::out_of_range);
  CHECK_THROWS_AS(tok.decode({-1}), std::out_of_range);
  CHECK_THROWS_AS(tok.token_text(tok.vocab_size()), std::out_of_range);
}

TEST_CASE("bpe: display text of tokens") {
  const BpeTokenizer tok = small_tokenizer();
  CHECK(tok.vocab_size() == 267);
  CHECK(tok.token_text(0) == "\xE2\x97\x86");  // ◆
  CHECK(tok.token_text(1) == "\xE2\x97\x87");  // ◇
  CHECK(tok.token_text(B('A')) == "A");
  CHECK(tok.token_text(260) == " the");
  CHECK(tok.token_text(266) == "\xC3\xA9");
  CHECK(tok.token_text(2 + 0xC3) == "<0xC3>");  // a lone lead byte is not UTF-8
  CHECK(tok.token_text(2 + 0xFF) == "<0xFF>");
  CHECK(tok.token_bytes(0).empty());
  CHECK(lookback::is_valid_utf8("\xF0\x9F\x90\x89"));
  CHECK_FALSE(lookback::is_valid_utf8("\xC0\xAF"));          // overlong
  CHECK_FALSE(lookback::is_valid_utf8("\xED\xA0\x80"));      // surrogate
  CHECK_FALSE(lookback::is_valid_utf8("\xF0\x9F\x90"));      // truncated
}

TEST_CASE("bpe: JSON save/load round trip") {
  const BpeTokenizer tok = small_tokenizer();
  const std::string json = tok.to_json();
  CHECK(json.find("\"type\": \"byte-bpe\"") != std::string::npos);
  CHECK(json.find("\"vocab_size\": 267") != std::string::npos);
  const BpeTokenizer back = BpeTokenizer::from_json(json);
  CHECK(back.merges() == tok.merges());
  CHECK(back.vocab_size() == tok.vocab_size());
  CHECK(back.to_json() == json);
  for (int id = 0; id < tok.vocab_size(); ++id) CHECK(back.token_text(id) == tok.token_text(id));
  CHECK(back.encode(" the and sing") == tok.encode(" the and sing"));
  // "tokens" is optional; key order does not matter
  const BpeTokenizer bare = BpeTokenizer::from_json(
      R"({"merges": [[100, 101]], "eos_id": 1, "bos_id": 0, "vocab_size": 259, "version": 1, "type": "byte-bpe"})");
  CHECK(bare.vocab_size() == 259);
  CHECK(bare.token_text(258) == "bc");
  CHECK(BpeTokenizer().vocab_size() == 258);
}

TEST_CASE("bpe: malformed tokenizer.json is rejected with a clear message") {
  const std::string good = small_tokenizer().to_json();
  const std::string head = R"({"type":"byte-bpe","version":1,"bos_id":0,"eos_id":1,)";
  struct Case {
    std::string json, message;
  };
  const Case cases[] = {
      {"", "not valid JSON"},
      {good.substr(0, good.size() / 2), "not valid JSON"},
      {"[1, 2]", "top level must be an object"},
      {R"({"version":1,"bos_id":0,"eos_id":1,"vocab_size":258,"merges":[]})", "missing key \"type\""},
      {replace_all(good, "\"byte-bpe\"", "\"wordpiece\""), "\"type\" must be \"byte-bpe\""},
      {replace_all(good, "\"version\": 1", "\"version\": 2"), "\"version\" must be 1, got 2"},
      {replace_all(good, "\"version\": 1", "\"version\": \"1\""), "\"version\" must be an integer"},
      {replace_all(good, "\"bos_id\": 0", "\"bos_id\": 5"), "\"bos_id\" must be 0"},
      {replace_all(good, "\"eos_id\": 1,", ""), "missing key \"eos_id\""},
      {replace_all(good, "\"vocab_size\": 267", "\"vocab_size\": 300"), "\"vocab_size\" is 300 but 258 + 9 merges = 267"},
      {replace_all(good, "\"vocab_size\": 267", "\"vocab_size\": 267.5"), "\"vocab_size\" must be an integer"},
      {head + R"("vocab_size":258})", "missing key \"merges\""},
      {head + R"("vocab_size":258,"merges":{}})", "\"merges\" must be an array"},
      {head + R"("vocab_size":259,"merges":[[2,3,4]]})", "merges[0] must be an array of two ids"},
      {head + R"("vocab_size":259,"merges":[5]})", "merges[0] must be an array of two ids"},
      {head + R"("vocab_size":259,"merges":[[2,"x"]]})", "merges[0][1] must be an integer"},
      {head + R"("vocab_size":259,"merges":[[2,258]]})", "merges[0][1] = 258 is out of range: must be in [2, 258)"},
      {head + R"("vocab_size":260,"merges":[[2,3],[259,4]]})", "merges[1][0] = 259 is out of range"},
      {head + R"("vocab_size":259,"merges":[[0,3]]})", "merges[0][0] = 0 is out of range"},
      {head + R"("vocab_size":259,"merges":[[-3,3]]})", "merges[0][0] = -3 is out of range"},
      {head + R"("vocab_size":260,"merges":[[2,3],[2,3]]})", "merges[1] = [2, 3] repeats merges[0]"},
      {head + R"("vocab_size":258,"merges":[],"tokens":"x"})", "\"tokens\" must be an array"},
      {head + R"("vocab_size":258,"merges":[],"tokens":[]})", "\"tokens\" has 0 entries but vocab_size is 258"},
      {replace_all(good, "\" the\"", "\" thee\""), "tokens[260] is \" thee\" but the merges give \" the\""},
      {replace_all(good, "\"<0xC3>\"", "7"), "tokens[197] must be a string"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.message);
    CHECK_THROWS_WITH_AS(BpeTokenizer::from_json(c.json), doctest::Contains(c.message.c_str()), std::runtime_error);
    try {
      BpeTokenizer::from_json(c.json);
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).rfind("tokenizer.json: ", 0) == 0);
    }
  }
}

TEST_CASE("bpe: constructor validates merges") {
  CHECK_THROWS_AS(BpeTokenizer({{1, 2}}), std::runtime_error);        // a mark cannot be merged
  CHECK_THROWS_AS(BpeTokenizer({{2, 258}}), std::runtime_error);      // not defined yet
  CHECK_THROWS_AS(BpeTokenizer({{2, 3}, {2, 3}}), std::runtime_error);  // repeated pair
  CHECK_NOTHROW(BpeTokenizer({{2, 3}, {258, 258}}));
}
