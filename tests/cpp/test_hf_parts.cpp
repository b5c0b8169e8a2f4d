// Tests of Hugging Face folders read in parts (hf_model.cpp with SafetensorsFile::source, as the bindings give a
// file on disk or a page's File): one file and a sharded checkpoint load into the model their bytes give, each
// tensor read a chunk of rows at a time, compact formats made from the chunks, and a model larger than the memory
// left refused before anything is read. Not the reader's checks of damaged files (the JS and fuzz tests).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hf_fixtures.hpp"
#include "model/byte_source.hpp"
#include "model/hf_model.hpp"
#include "model/matrices.hpp"
#include "model/safetensors.hpp"
#include "model/session.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

const char* kConfig = R"({"architectures":["LlamaForCausalLM"],"model_type":"llama",
    "hidden_size":128,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":9000,
    "vocab_size":300,"max_position_embeddings":64,"rms_norm_eps":1e-5,"rope_theta":10000.0,
    "tie_word_embeddings":false,"bos_token_id":259,"eos_token_id":260,"hidden_act":"silu"})";

// A source over bytes that records the largest read.
struct Recorded final : ByteSource {
  MemorySource bytes;
  mutable std::size_t most = 0, total = 0;
  explicit Recorded(const std::vector<std::uint8_t>& b) : bytes(b.data(), b.size()) {}
  std::uint64_t size() const override { return bytes.size(); }
  void read(std::uint64_t at, std::size_t n, std::uint8_t* out) const override {
    most = std::max(most, n), total += n;
    bytes.read(at, n, out);
  }
};

// The random weights of the config as a transformers Llama checkpoint: its tensors under their names, in the
// files of `shards` (tensor i in file i mod shards), and the index naming them when there is more than one.
struct Checkpoint {
  std::vector<std::vector<std::uint8_t>> files;
  std::string index;
};

Checkpoint checkpoint(const Weights& w, int shards, bool f16) {
  std::vector<std::vector<NamedTensor>> parts(static_cast<std::size_t>(shards));
  std::string map;
  const std::vector<NamedTensor> all = w.named();
  for (std::size_t i = 0; i < all.size(); ++i) {
    NamedTensor t = all[i];
    t.name = hf_llama_tensor_name(t.name);
    parts[i % std::size_t(shards)].push_back(t);
    map += std::string(map.empty() ? "" : ",") + "\"" + t.name + "\":\"shard-" + std::to_string(i % std::size_t(shards)) + ".safetensors\"";
  }
  Checkpoint c;
  for (const auto& p : parts) c.files.push_back(write_safetensors(p, f16));
  if (shards > 1) c.index = "{\"weight_map\":{" + map + "}}";
  return c;
}

std::vector<float> logits(const LoadedModel& m, const std::vector<int>& ids) {
  Session s(m.transformer);
  s.process(ids);
  return s.all_logits();
}

}  // namespace

TEST_CASE("a Hugging Face checkpoint read in parts, one file or shards, gives the model its bytes give") {
  const ModelConfig c = hf_config(kConfig);
  const Weights w = random_weights(c, 31);
  Rng rng(4);
  const std::vector<int> ids = random_ids(rng, 9, c.vocab_size, c.bos_id);
  for (int shards : {1, 3}) {
    CAPTURE(shards);
    const Checkpoint cp = checkpoint(w, shards, shards == 3);
    std::vector<SafetensorsFile> whole, in_parts;
    std::vector<std::unique_ptr<Recorded>> sources;
    for (std::size_t i = 0; i < cp.files.size(); ++i) {
      const std::string name = shards == 1 ? "model.safetensors" : "shard-" + std::to_string(i) + ".safetensors";
      whole.push_back({name, cp.files[i].data(), cp.files[i].size()});
      sources.push_back(std::make_unique<Recorded>(cp.files[i]));
      in_parts.push_back({name, nullptr, 0, sources.back().get()});
    }
    for (WeightFormat f : weight_formats()) {
      CAPTURE(weight_format_name(f));
      const LoadedModel a = load_hf_model(whole, cp.index, kConfig, tokenizer_json(), f);
      const LoadedModel b = load_hf_model(in_parts, cp.index, kConfig, tokenizer_json(), f, 1u << 30);
      CHECK(logits(a, ids) == logits(b, ids));
      CHECK(b.transformer->weights().holds_matrices() == (f == WeightFormat::f32));
      if (f != WeightFormat::f32) CHECK(b.transformer->weights().size() * 4 < w.size());
    }
    for (std::size_t i = 0; i < sources.size(); ++i) {
      CHECK(sources[i]->most <= (std::size_t(1) << 22));  // a chunk of rows, at most 4 MB of floats
      if (cp.files[i].size() > (std::size_t(1) << 23)) CHECK(sources[i]->most < cp.files[i].size() / 2);
    }
  }
}

TEST_CASE("a Hugging Face checkpoint larger than the memory left is refused before it is read, naming a format that fits") {
  const ModelConfig c = hf_config(kConfig);
  const Checkpoint cp = checkpoint(random_weights(c, 32), 1, false);
  Recorded source(cp.files[0]);
  const std::string e = error_of([&] {
    load_hf_model({{"model.safetensors", nullptr, 0, &source}}, "", kConfig, tokenizer_json(), WeightFormat::f32,
                  std::size_t(Matrices::bytes_for(c, WeightFormat::q8)) + (1 << 20));
  });
  CHECK(e.find("with its weights held as 'f32'") != std::string::npos);
  CHECK(e.find("held as 'q8' it would take") != std::string::npos);
  CHECK(source.total == 0);
}
