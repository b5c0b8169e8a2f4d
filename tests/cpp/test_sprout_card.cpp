// The shipped Sprout against its model card: the bundle in shared/models/sprout loads, and the forward pass
// reproduces the card's loss on the card's own sample of validation stories (in f16 and q8 weights within 0.01).
// Runs natively and in WebAssembly; a missing card or bundle fails it (Sprout ships with the project).
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/bundle.hpp"
#include "model/session.hpp"
#include "shared_files.hpp"

namespace {

using lookback::testing::read_text;
const std::string DIR = lookback::testing::sprout_dir();

double nll(const float* row, int V, int target) {
  double mx = row[0];
  for (int v = 1; v < V; ++v) mx = std::max(mx, double(row[v]));
  double sum = 0;
  for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
  return std::log(sum) + mx - row[target];
}

// The loss of the card's validation sample, Sprout loaded in `format`: nats per token and the tokens counted.
std::pair<double, long> sample_loss(const nlohmann::json& sample, const std::string& weights, const std::string& config,
                                    const std::string& tokenizer, lookback::WeightFormat format) {
  const lookback::LoadedModel m = lookback::load_bundle(reinterpret_cast<const std::uint8_t*>(weights.data()),
                                                        weights.size(), config, tokenizer, format);
  lookback::Session s(m.transformer);
  const int V = m.transformer->config().vocab_size;
  double total = 0;
  long tokens = 0;
  for (const auto& text : sample.at("texts")) {
    std::vector<int> ids = m.tokenizer->encode(text.get<std::string>(), true);
    ids.push_back(m.tokenizer->eos_id());
    s.process(ids);
    for (std::size_t t = 0; t + 1 < ids.size(); ++t) total += nll(s.logits(int(t)), V, ids[t + 1]);
    tokens += long(ids.size()) - 1;
  }
  return {total / double(tokens), tokens};
}

}  // namespace

TEST_CASE("the shipped Sprout reproduces its card's sample loss, and in f16 and q8 weights stays within 0.01 of it") {
  const auto card = nlohmann::json::parse(read_text(DIR + "card.json"));
  const std::string weights = read_text(DIR + "model.safetensors"), config = read_text(DIR + "config.json"),
                    tokenizer = read_text(DIR + "tokenizer.json");
  const auto& sample = card.at("validation").at("sample");
  const double want = sample.at("loss_nats").get<double>();
  const auto [loss, tokens] = sample_loss(sample, weights, config, tokenizer, lookback::WeightFormat::f32);
  CHECK(tokens == sample.at("tokens").get<long>());
  MESSAGE("sample loss " << loss << " nats/token; card " << want);
  CHECK(loss == doctest::Approx(want).epsilon(1e-4));
  for (const auto format : {lookback::WeightFormat::f16, lookback::WeightFormat::q8}) {
    const double compact = sample_loss(sample, weights, config, tokenizer, format).first;
    MESSAGE(std::string(lookback::weight_format_name(format)) << ": sample loss " << compact << " nats/token");
    CHECK(std::abs(compact - want) <= 0.01);
  }
}
