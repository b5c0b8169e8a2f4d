// Regression tests of hostile inputs to the model layer, natively and in WebAssembly (where size_t is 32 bits):
// JSON nested thousands deep in each reader, safetensors sizes of 2^32 and more, weights whose computation
// overflows float32, and the tail encoding a sliding window uses. Not the random campaigns (tests/cpp/native).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "model/bpe.hpp"
#include "model/bundle.hpp"
#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/json_depth.hpp"
#include "model/safetensors.hpp"
#include "model/safetensors_sizes.hpp"
#include "model/session.hpp"
#include "model/window_model.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

std::string deep_object(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "{\"a\":";
  return s + "1" + std::string(std::size_t(n), '}');
}

ModelConfig hardening_config() {
  return small_config(8, 1, 2, 2, 4, 12, 258, 8, RopeLayout::half, false, Mlp::gelu, true);
}

// The safetensors file with its header text replaced (padded with spaces to 8 bytes) and the same data.
std::vector<std::uint8_t> with_header(const std::vector<std::uint8_t>& file, std::string header) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[std::size_t(i)];
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = char(std::uint64_t(header.size()) >> (8 * i));
  out += header;
  out.append(file.begin() + std::ptrdiff_t(8 + n), file.end());
  return std::vector<std::uint8_t>(out.begin(), out.end());
}

std::string header_of(const std::vector<std::uint8_t>& file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[std::size_t(i)];
  std::string h(file.begin() + 8, file.begin() + std::ptrdiff_t(8 + n));
  return h.substr(0, h.find_last_not_of(' ') + 1);
}

// The header with the field (e.g. "shape") of one tensor replaced by `values` (the text inside the brackets).
std::string edit(std::string h, const std::string& tensor, const std::string& field, const std::string& values) {
  const std::size_t at = h.find("\"" + tensor + "\"");
  const std::size_t start = h.find("\"" + field + "\":[", at) + field.size() + 4;
  return h.replace(start, h.find(']', start) - start, values);
}

}  // namespace

TEST_CASE("JSON nesting: deeper than 64 levels is a ModelError in every reader, before any recursion") {
  CHECK_NOTHROW(check_json_depth(deep_object(64), "x"));
  CHECK_NOTHROW(check_json_depth("{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[\"}", "x"));
  CHECK_THROWS_WITH_AS(check_json_depth(deep_object(65), "config.json"),
                       "config.json: JSON nested more than 64 levels deep (at byte 320)", ModelError);
  const ModelConfig c = hardening_config();
  const auto st = write_safetensors(random_weights(c, 3).named(), false);
  const std::string config = config_to_json(c), tok = BpeTokenizer().to_json();
  const std::string deep = deep_object(100000), brackets = std::string(200000, '[');
  CHECK_THROWS_WITH_AS(load_bundle(st.data(), st.size(), deep, tok), doctest::Contains("config.json: JSON nested"), ModelError);
  CHECK_THROWS_WITH_AS(load_bundle(st.data(), st.size(), config, deep), doctest::Contains("tokenizer.json: JSON nested"), ModelError);
  CHECK_THROWS_WITH_AS(load_bundle(st.data(), st.size(), config, brackets), doctest::Contains("tokenizer.json: JSON nested"), ModelError);
  const auto deep_header = with_header(st, "{\"x\":" + deep + "}");
  CHECK_THROWS_WITH_AS(load_bundle(deep_header.data(), deep_header.size(), config, tok),
                       doctest::Contains("safetensors header: JSON nested"), ModelError);
  CHECK_THROWS_WITH_AS(window_config_from_json(deep), doctest::Contains("JSON nested"), ModelError);
  CHECK_NOTHROW(load_bundle(st.data(), st.size(), config, tok));
}

TEST_CASE("safetensors: sizes of 2^32 and more are refused in 64-bit arithmetic, with their real values") {
  const ModelConfig c = hardening_config();
  const auto st = write_safetensors(random_weights(c, 4).named(), false);
  const std::string config = config_to_json(c), tok = BpeTokenizer().to_json(), h = header_of(st);
  const std::string name = "norm.weight";
  auto refused = [&](const std::string& header, const char* message) {
    const auto f = with_header(st, header);
    CHECK_THROWS_WITH_AS(check_safetensors_sizes(f.data(), f.size()), doctest::Contains(message), ModelError);
    CHECK_THROWS_WITH_AS(load_bundle(f.data(), f.size(), config, tok), doctest::Contains(message), ModelError);
  };
  refused(edit(h, name, "shape", "4294967304"), "shape size 4294967304 is larger than 2147483647");
  refused(edit(h, name, "shape", "4294967296,4294967296"), "shape size 4294967296");
  refused(edit(h, name, "shape", "65536,65536"), "has a shape of more than");
  const std::size_t at = h.find("\"" + name + "\"");
  const std::size_t start = h.find("\"data_offsets\":[", at) + 16;
  const std::string offsets = h.substr(start, h.find(']', start) - start);
  const std::uint64_t begin = std::stoull(offsets), end = std::stoull(offsets.substr(offsets.find(',') + 1));
  const std::uint64_t wrap = std::uint64_t(1) << 32;
  refused(edit(h, name, "data_offsets", std::to_string(begin + wrap) + "," + std::to_string(end + wrap)), "run past the end of the data");
  refused(edit(h, name, "data_offsets", std::to_string(begin) + "," + std::to_string(end + wrap)), "run past the end of the data");
  CHECK_NOTHROW(check_safetensors_sizes(st.data(), st.size()));
}

TEST_CASE("weights that overflow float32 on the way: a ModelError, never NaN logits; the session stays usable") {
  const ModelConfig c = hardening_config();
  Weights w = random_weights(c, 5);
  for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = i % 3 ? 1e15f : -1e15f;  // overflows after the first norm, to NaN
  Session s(std::make_shared<const Transformer>(std::move(w)));
  StepOptions o;
  CHECK_THROWS_WITH_AS(s.process({0, 5, 6}, o), doctest::Contains("overflowed float32"), ModelError);
  CHECK(s.length() == 0);
}

TEST_CASE("encode_tail: the start mark and the end of the full encoding, for any text") {
  std::vector<std::pair<int, int>> merges = {{'t' + 2, 'h' + 2}, {258, 'e' + 2}, {' ' + 2, 259}, {'a' + 2, 'a' + 2}};
  const auto tok = bpe_tokenizer_from_json(BpeTokenizer(merges).to_json());
  const char* words[] = {"the", " the", "aaaa", "\n", "\t", " ", "  ", "x", "42", "\xC3\xA9", "\r", "then"};
  Rng rng(11);
  for (int n = 0; n < 200; ++n) {
    std::string text;
    for (int i = 0, len = int(rng.next() % 400); i < len; ++i) text += words[rng.next() % 12];
    for (std::size_t keep : {std::size_t(1), std::size_t(7), std::size_t(64)})
      for (bool bos : {true, false}) {
        const std::vector<int> full = tok->encode(text, bos), tail = tok->encode_tail(text, bos, keep);
        REQUIRE(tail.size() >= std::min(full.size(), keep + (bos ? 1 : 0)));
        if (bos) CHECK(tail.front() == BpeTokenizer::kBos);
        CHECK(std::equal(tail.begin() + (bos ? 1 : 0), tail.end(), full.end() - std::ptrdiff_t(tail.size() - (bos ? 1 : 0))));
      }
  }
}

TEST_CASE("merges that double a token's length are refused past kMaxTokenBytes, before the token is made") {
  std::vector<std::pair<int, int>> merges = {{'a' + 2, 'a' + 2}};  // "aa", then each merge doubles the last
  for (int i = 0; i < 26; ++i) merges.emplace_back(258 + i, 258 + i);
  CHECK_THROWS_WITH(BpeTokenizer{merges}, doctest::Contains("merges[10] makes a token of 2048 bytes; a token holds at most 1024"));
  merges.resize(10);
  const BpeTokenizer ok(merges);
  CHECK(ok.decode({267}) == std::string(1024, 'a'));
}

TEST_CASE("the key/value cache grows with the texts, to the context at most, and keeps what it holds") {
  // a context of 4,096 over 64 layers: nothing of it allocated until texts need it
  const ModelConfig big = small_config(4, 64, 1, 1, 4, 4, 258, 4096, RopeLayout::half, false, Mlp::gelu, true);
  Session grow_only(random_model(big, 3));
  StepOptions o;
  grow_only.process({0, 5, 6}, o);
  CHECK(grow_only.length() == 3);
  // growing while tokens are cached gives the same logits as one pass over the whole text
  for (const NamedConfig& nc : test_configs()) {
    CAPTURE(nc.name);
    const auto model = random_model(nc.config, 9);
    Rng rng(4);
    const std::vector<int> ids = random_ids(rng, nc.config.max_seq_len, nc.config.vocab_size);
    Session step(model), whole(model);
    for (std::size_t n = 1; n <= ids.size(); n += 1 + n / 3) step.process(std::vector<int>(ids.begin(), ids.begin() + std::ptrdiff_t(n)), o);
    step.process(ids, o);
    whole.process(ids, o);
    const float *a = step.last_logits(), *b = whole.last_logits();
    for (int i = 0; i < nc.config.vocab_size; ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-4));
  }
}
