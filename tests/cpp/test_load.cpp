// Tests of the one model loader (wasm/src/model/load.hpp): which format some files are, loading through it,
// the messages for files of no format or of a mix, and the lists of formats and weight storages.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <variant>

#include "model/bpe.hpp"
#include "model/config_json.hpp"
#include "model/llama2c.hpp"
#include "model/load.hpp"
#include "model/safetensors.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

ModelFiles files_of(const std::vector<std::uint8_t>& weights, const std::string& config, const std::string& tokenizer) {
  ModelFiles f;
  f.weights = weights.data();
  f.weights_size = weights.size();
  f.config = config;
  f.tokenizer = reinterpret_cast<const std::uint8_t*>(tokenizer.data());
  f.tokenizer_size = tokenizer.size();
  return f;
}

ModelConfig byte_config() {
  auto c = test_configs()[0].config;
  c.vocab_size = 258;  // the byte-BPE vocabulary without merges
  return c;
}

}  // namespace

TEST_CASE("detect_model_format tells every format from the files alone") {
  const ModelConfig c = byte_config();
  const auto st = write_safetensors(random_weights(c, 3).named(), false);
  const std::string tok = BpeTokenizer().to_json();
  CHECK(std::string(detect_model_format(files_of(st, config_to_json(c), tok)).name) == "lookback");
  CHECK(std::string(detect_model_format(files_of(st, R"({"architectures": ["LlamaForCausalLM"]})", tok)).name) == "hf");
  CHECK(std::string(detect_model_format(files_of(st, R"({"model_type": "llama"})", tok)).name) == "hf");
  CHECK(std::string(detect_model_format(files_of(st, R"({"arch": "window", "window": 4})", tok)).name) == "window");
  const auto bin = write_llama2c(random_weights(test_configs()[3].config, 3));  // llama2c-like
  CHECK(std::string(detect_model_format(files_of(bin, "", "")).name) == "llama2c");
  // a llama2.c checkpoint needs its tokenizer file: the error names which file did not come
  try {
    load_model(files_of(bin, "", ""));
    FAIL("a checkpoint without its tokenizer loaded");
  } catch (const MissingFile& e) {
    CHECK(e.file == "tokenizer");
  }
}

TEST_CASE("load_model reads a bundle and a llama2.c checkpoint through their formats") {
  const ModelConfig c = byte_config();
  const auto st = write_safetensors(random_weights(c, 5).named(), true);
  const AnyModel m = load_model(files_of(st, config_to_json(c), BpeTokenizer().to_json()), WeightFormat::q8);
  REQUIRE(std::holds_alternative<LoadedModel>(m));
  CHECK(std::get<LoadedModel>(m).tokenizer->kind() == "byte-bpe");
  CHECK(std::get<LoadedModel>(m).transformer->matrices().format() == WeightFormat::q8);
}

TEST_CASE("files of no format, or of a mix, are refused with what lookback reads") {
  const ModelConfig c = byte_config();
  const auto st = write_safetensors(random_weights(c, 3).named(), false);
  const std::string tok = BpeTokenizer().to_json();
  CHECK_THROWS_WITH_AS(detect_model_format(files_of(st, "", tok)), doctest::Contains("no config.json came with them"), MissingFile);
  try {
    detect_model_format(files_of(st, "", tok));
  } catch (const MissingFile& e) {
    CHECK(e.file == "config.json");
  }
  const std::vector<std::uint8_t> junk(64, 7);
  CHECK_THROWS_WITH_AS(detect_model_format(files_of(junk, config_to_json(c), tok)), doctest::Contains("not a safetensors file"),
                       ModelError);
  const std::string hf_tok = R"({"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}})";
  CHECK_THROWS_WITH_AS(load_model(files_of(st, config_to_json(c), hf_tok)),
                       doctest::Contains("tokenizer.json is a Hugging Face tokenizers file (model BPE) but config.json is lookback's own"),
                       UnsupportedFormat);
  for (const ModelFormat& f : model_formats()) CHECK(supported_formats().find(f.files) != std::string::npos);
}

TEST_CASE("one list of formats and one of weight storages") {
  std::set<std::string> names;
  for (const ModelFormat& f : model_formats()) names.insert(f.name);
  CHECK(names.size() == model_formats().size());
  for (WeightFormat w : weight_formats()) CHECK(weight_format(weight_format_name(w)) == w);
  CHECK_THROWS_WITH_AS(weight_format("int4"), "weights must be 'f32', 'f16', 'q8' or 'q4' (got 'int4')", ModelError);
}
