// The shipped Sprout against its model card: the bundle in shared/models/sprout loads, and the forward pass
// reproduces the card's loss on the card's own sample of validation stories. Runs natively and in WebAssembly;
// skips with a message when no trained model is present.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "model/bundle.hpp"
#include "model/session.hpp"

namespace {

const std::string DIR = std::string(LOOKBACK_SOURCE_DIR) + "/shared/models/sprout/";

bool slurp(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), {});
  return true;
}

double nll(const float* row, int V, int target) {
  double mx = row[0];
  for (int v = 1; v < V; ++v) mx = std::max(mx, double(row[v]));
  double sum = 0;
  for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
  return std::log(sum) + mx - row[target];
}

}  // namespace

TEST_CASE("the shipped Sprout reproduces its card's sample loss") {
  std::string card_text, weights, config, tokenizer;
  if (!slurp(DIR + "card.json", card_text)) {
    MESSAGE("skipped: no model card at " << DIR << "card.json");
    return;
  }
  REQUIRE(slurp(DIR + "model.safetensors", weights));
  REQUIRE(slurp(DIR + "config.json", config));
  REQUIRE(slurp(DIR + "tokenizer.json", tokenizer));
  const auto card = nlohmann::json::parse(card_text);
  const auto& sample = card.at("validation").at("sample");
  const lookback::LoadedModel m = lookback::load_bundle(reinterpret_cast<const std::uint8_t*>(weights.data()),
                                                        weights.size(), config, tokenizer);
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
  CHECK(tokens == sample.at("tokens").get<long>());
  const double loss = total / double(tokens);
  MESSAGE("sample loss " << loss << " nats/token; card " << sample.at("loss_nats").get<double>());
  CHECK(loss == doctest::Approx(sample.at("loss_nats").get<double>()).epsilon(1e-4));
}
