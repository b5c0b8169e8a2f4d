// File-format tests: F16 conversion, safetensors writing and reading (round trips, every header check
// with the message it gives), config.json reading and writing. Runs natively and in WebAssembly.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "base/fp16.hpp"
#include "model/safetensors.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

// A file from a header text and data bytes.
std::vector<std::uint8_t> file(const std::string& header, std::size_t data_bytes, std::uint8_t fill = 0) {
  std::vector<std::uint8_t> f;
  f.reserve(8 + header.size() + data_bytes);
  for (int i = 0; i < 8; ++i) f.push_back(std::uint8_t(std::uint64_t(header.size()) >> (8 * i)));
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), data_bytes, fill);
  return f;
}

std::string header_error(const std::vector<std::uint8_t>& f) {
  try {
    read_safetensors_header(f.data(), f.size());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

// Reference float -> half rounding through double arithmetic.
float round_to_half(float x) {
  const double a = std::fabs(double(x));
  if (a >= 65520.0) return std::copysign(INFINITY, x);
  int e;
  std::frexp(a, &e);                       // a = m · 2^e, m in [0.5, 1)
  const int exp = std::max(e - 11, -24);   // spacing of halves near a
  const double q = std::nearbyint(std::ldexp(a, -exp));  // ties to even (default rounding mode)
  return float(std::copysign(std::ldexp(q, exp), x));
}

}  // namespace

TEST_CASE("F16: every half survives half -> float -> half; rounding matches a float64 reference") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = half_to_float(std::uint16_t(h));
    if (std::isnan(f)) {
      CHECK((float_to_half(f) & 0x7C00u) == 0x7C00u);
      continue;
    }
    if (float_to_half(f) != h) FAIL_CHECK("half " << h << " -> " << f << " -> " << float_to_half(f));
  }
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x7BFF) == 65504.0f);
  Rng rng(31);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::ldexp(rng.uniform(-1, 1), int(rng.next() % 44) - 28);
    const float want = round_to_half(x);
    if (half_to_float(float_to_half(x)) != want) FAIL_CHECK("x=" << x << " want " << want);
  }
  CHECK(float_to_half(65519.0f) == 0x7BFF);
  CHECK(float_to_half(65520.0f) == 0x7C00);
}

TEST_CASE("safetensors: F32 round trip is exact, F16 within half precision, metadata kept") {
  Rng rng(32);
  const auto a = rng.vec(6), b = rng.vec(5, -100, 100);
  const float scalar = 2.5f;
  const std::vector<NamedTensor> ts = {{"a", {2, 3}, a.data()}, {"b", {5}, b.data()}, {"s", {}, &scalar}, {"empty", {0, 4}, a.data()}};
  for (bool f16 : {false, true}) {
    const auto bytes = write_safetensors(ts, f16, {{"format", "pt"}});
    const auto h = read_safetensors_header(bytes.data(), bytes.size());
    CHECK(h.data_start % 8 == 0);
    CHECK(h.metadata.at("format") == "pt");
    REQUIRE(h.tensors.size() == 4);
    std::vector<float> got(6);
    read_tensor(bytes.data(), h, *h.find("a"), got.data());
    for (int i = 0; i < 6; ++i) CHECK(got[i] == (f16 ? half_to_float(float_to_half(a[i])) : a[i]));
    CHECK(h.find("b")->shape == std::vector<std::int64_t>{5});
    CHECK(h.find("s")->shape.empty());
    CHECK(h.find("empty")->count() == 0);
  }
}

TEST_CASE("safetensors: the weights of a config round trip, and the config's expectations are enforced") {
  const auto c = test_configs()[1].config;
  const Weights w = random_weights(c, 5);
  const auto bytes = write_safetensors(w.named(), false);
  const Weights back = read_safetensors(c, bytes.data(), bytes.size());
  CHECK(std::memcmp(back.data(), w.data(), w.size() * 4) == 0);
  const auto half = write_safetensors(w.named(), true);
  CHECK(half.size() < bytes.size() * 6 / 10);
  CHECK(read_safetensors(c, half.data(), half.size()).size() == w.size());

  auto other = c;
  other.tied_embeddings = true;  // the file has output.weight, this config does not expect it
  CHECK_THROWS_WITH_AS(read_safetensors(other, bytes.data(), bytes.size()),
                       doctest::Contains("unexpected tensor 'output.weight'"), ModelError);
  other = c;
  other.qk_norm = true;
  CHECK_THROWS_WITH_AS(read_safetensors(other, bytes.data(), bytes.size()),
                       doctest::Contains("missing tensor 'layers.0.attention.q_norm.weight' [8]"), ModelError);
  other = c;
  other.hidden_dim = 70;
  CHECK_THROWS_WITH_AS(read_safetensors(other, bytes.data(), bytes.size()),
                       doctest::Contains("tensor 'layers.0.feed_forward.w1.weight' has shape [72, 40] but config.json implies [70, 40]"),
                       ModelError);
}

TEST_CASE("safetensors: a non-finite value is refused with its tensor and index") {
  const auto c = test_configs()[4].config;
  Weights w = random_weights(c, 6);
  w.tensor("layers.0.feed_forward.w2.weight")[7] = INFINITY;
  const auto bytes = write_safetensors(w.named(), false);
  CHECK_THROWS_WITH_AS(read_safetensors(c, bytes.data(), bytes.size()),
                       "tensor 'layers.0.feed_forward.w2.weight' holds +Inf at [1, 2]; weights must be finite", ModelError);
}

TEST_CASE("safetensors: writing a value too large for F16 names it") {
  const float big[2] = {1.0f, 1e6f};
  CHECK_THROWS_WITH_AS(write_safetensors({{"w", {2}, big}}, true), doctest::Contains("tensor 'w' value 1e+06 at [1] does not fit in F16"),
                       ModelError);
}

TEST_CASE("safetensors: every malformed header gives a message saying what and where") {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  CHECK(header_error(file(ok, 8)) == "(no error)");
  CHECK(header_error({1, 2, 3}) == "safetensors: the file is 3 bytes; it must start with an 8-byte header length");
  auto f = file(ok, 8);
  f[0] = 0xFF;
  CHECK(header_error(f).find("runs past the end of the file") != std::string::npos);
  CHECK(header_error(file("[1,2]", 0)).find("must be a JSON object starting with '{'") != std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32",)", 0)).find("is not well-formed JSON") != std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})", 0)) ==
        "safetensors header: the name 'a' appears twice");
  CHECK(header_error(file(R"({"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", 4)) ==
        "safetensors header: tensor 'a' has dtype BF16; supported: F32, F16");
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)) ==
        "safetensors: tensor 'a' has shape [3] of F32 = 12 bytes but data_offsets [0, 8] hold 8");
  CHECK(header_error(file(ok, 4)).find("run past the end of the data (4 bytes") != std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F16","shape":[2],"data_offsets":[6,10]}})", 10)) ==
        "safetensors: tensors 'a' and 'b' overlap (bytes 6..8)");
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[2],"data_offsets":[6,10]}})", 10)) ==
        "safetensors: bytes 4..6 of the data belong to no tensor (a gap before 'b')");
  CHECK(header_error(file(ok, 12)).find("4 bytes after the last tensor belong to no tensor") != std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8)).find("shape must hold non-negative integers") !=
        std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8)).find("end before they begin") != std::string::npos);
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", 8)) ==
        "safetensors header: tensor 'a' has an unknown field \"x\"");
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[2]}})", 8)) == "safetensors header: tensor 'a' has no \"data_offsets\"");
  CHECK(header_error(file(R"({"__metadata__":{"k":1}})", 0)) == "safetensors header: __metadata__ \"k\" must be a string");
  CHECK(header_error(file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", 8)).find("hold 8") !=
        std::string::npos);
}

TEST_CASE("config.json: round trip of every field; errors name the field") {
  for (const auto& nc : test_configs()) {
    const ModelConfig back = config_from_json(config_to_json(nc.config));
    CHECK(config_to_json(back) == config_to_json(nc.config));
    CHECK(back.n_kv_heads == nc.config.n_kv_heads);
    CHECK(back.rope_layout == nc.config.rope_layout);
    CHECK(back.mlp == nc.config.mlp);
    CHECK(back.norm == nc.config.norm);
    CHECK(back.positions == nc.config.positions);
    CHECK(back.rope_scaling.type == nc.config.rope_scaling.type);
    CHECK(back.rope_scaling.original_context == nc.config.rope_scaling.original_context);
    CHECK(back.qkv_bias == nc.config.qkv_bias);
    CHECK((back.out_bias && back.mlp_bias) == (nc.config.out_bias && nc.config.mlp_bias));
    CHECK(parameter_count(back) == random_weights(back, 1).specs().back().offset + random_weights(back, 1).specs().back().size());
  }
  // the variant's keys are written only when they differ from the defaults (older readers see the same file)
  CHECK(config_to_json(ModelConfig{}).find("\"norm\"") == std::string::npos);
  CHECK(config_to_json(gpt2_like()).find("\"positions\": \"learned\"") != std::string::npos);
  CHECK(config_to_json(ModelConfig{}).find("\"norm_eps\": 1e-05") != std::string::npos);
  const std::string base = config_to_json(ModelConfig{});
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK_THROWS_WITH_AS(config_from_json("{"), doctest::Contains("config.json is not well-formed JSON"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"dim\"", "\"dimm\"")), "config.json: unknown key \"dimm\"", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(R"({"dim": 4})"), doctest::Contains("config.json: missing key"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"n_kv_heads\": 6", "\"n_kv_heads\": 4")),
                       "config: n_kv_heads (4) must divide n_heads (6)", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"head_dim\": 32", "\"head_dim\": 31")),
                       "config: head_dim must be even for rotary positions (got 31)", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"mlp\": \"swiglu\"", "\"mlp\": \"relu\"")),
                       "config.json: \"mlp\" must be \"swiglu\", \"gelu\" or \"gelu_tanh\" (got \"relu\")", ModelError);
  const std::string scaled = config_to_json(qwen2_like());
  auto scaled_with = [&](const std::string& from, const std::string& to) {
    std::string s = scaled;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK_THROWS_WITH_AS(config_from_json(scaled_with("\"type\": \"llama3\"", "\"type\": \"yarn\"")),
                       "config.json: \"type\" must be \"llama3\" (got \"yarn\")", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(scaled_with("\"factor\": 8", "\"factor\": 0")),
                       doctest::Contains("rope_scaling llama3 needs factor >= 1"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(scaled_with("\"high_freq_factor\": 4", "\"high_freq_factor\": 1")),
                       doctest::Contains("low_freq_factor < high_freq_factor"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(scaled_with("\"factor\": 8", "\"fact\": 8")),
                       "config.json: unknown key \"rope_scaling.fact\"", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"qk_norm\": true", "\"qk_norm\": true, \"norm\": \"batch\"")),
                       "config.json: \"norm\" must be \"rms\" or \"layer\" (got \"batch\")", ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"qk_norm\": true", "\"qk_norm\": 1")), doctest::Contains("\"qk_norm\" must be true or false"),
                       ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"dim\": 192", "\"dim\": 1.5")), doctest::Contains("\"dim\" must be an integer"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"vocab_size\": 2048", "\"vocab_size\": 2000000000")),
                       doctest::Contains("vocab_size must be in [1, 1048576]"), ModelError);
  CHECK_THROWS_WITH_AS(config_from_json(with("\"bos_id\": 0", "\"bos_id\": 5000")), doctest::Contains("bos_id must be in [0, 2047]"),
                       ModelError);
}
