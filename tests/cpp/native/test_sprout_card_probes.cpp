// The shipped Sprout's pronoun scores and made-up-name losses against its model card: the card's probes are
// generated again from the card's seed; the best pronoun head's weight onto the name (its last mention, and every
// mention) is summed here from the attention the runtime records, and the name's loss per piece that can be copied
// (every piece but the first) from its logits. Native only (the corpus generator is); skips without a card.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "model/bundle.hpp"
#include "model/session.hpp"
#include "model/token_spans.hpp"
#include "train/corpus.hpp"
#include "../shared_files.hpp"

namespace {

using lookback::testing::read_text;
const std::string DIR = lookback::testing::sprout_dir();

// Byte offsets where `name` stands as a whole word in text[0, end).
std::vector<int> mentions(const std::string& text, const std::string& name, int end) {
  std::vector<int> at;
  for (int i = 0; i + int(name.size()) <= end; ++i) {
    if (text.compare(i, name.size(), name) != 0) continue;
    const bool left = i == 0 || !std::isalpha(static_cast<unsigned char>(text[i - 1]));
    const std::size_t j = i + name.size();
    const bool right = j >= text.size() || !std::isalpha(static_cast<unsigned char>(text[j]));
    if (left && right) at.push_back(i);
  }
  return at;
}

// Head "l.h" of a card's best list -> flat index l * H + h.
int head_index(const nlohmann::json& best, int H) {
  const std::string s = best.at("head");
  const std::size_t dot = s.find('.');
  return std::stoi(s.substr(0, dot)) * H + std::stoi(s.substr(dot + 1));
}

lookback::LoadedModel load_sprout() {
  const std::string weights = read_text(DIR + "model.safetensors");
  return lookback::load_bundle(reinterpret_cast<const std::uint8_t*>(weights.data()), weights.size(),
                               read_text(DIR + "config.json"), read_text(DIR + "tokenizer.json"));
}

// -log softmax(row)[target]
double nll(const float* row, int V, int target) {
  const float mx = *std::max_element(row, row + V);
  double sum = 0;
  for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
  return std::log(sum) + mx - row[target];
}

}  // namespace

TEST_CASE("the shipped Sprout's made-up-name losses are per piece that can be copied, every piece but the first") {
  const auto card = nlohmann::json::parse(read_text(DIR + "card.json"));
  const lookback::LoadedModel m = load_sprout();
  const auto& ev = card.at("evaluation");
  const auto probes = lookback::corpus::make_probes(ev.at("seed").get<std::uint64_t>(), ev.at("probes_per_kind"));
  const int V = m.transformer->config().vocab_size, max_len = m.transformer->config().max_seq_len;
  lookback::Session s(m.transformer);
  double first = 0, second = 0;
  int n = 0, one_piece = 0;
  for (const auto& p : probes) {
    if (p.kind != "name") continue;
    const std::vector<int> ids = m.tokenizer->encode(p.text, true);
    if (int(ids.size()) > max_len) continue;
    const auto spans = lookback::token_spans(*m.tokenizer, ids);
    const auto a = lookback::tokens_in(spans, p.first_char, p.first_char + int(p.name.size()));
    const auto b = lookback::tokens_in(spans, p.second_char, p.second_char + int(p.name.size()));
    if (a.size() < 2 || b.size() < 2) {
      ++one_piece;
      continue;
    }
    s.reset();
    s.process(ids);
    auto copyable = [&](const std::vector<int>& pos) {
      double sum = 0;
      for (std::size_t k = 1; k < pos.size(); ++k) sum += nll(s.logits(pos[k] - 1), V, ids[pos[k]]);
      return sum / double(pos.size() - 1);
    };
    first += copyable(a), second += copyable(b), ++n;
  }
  const auto& name = card.at("probes").at("name");
  REQUIRE(n > 0);
  CHECK(name.at("probes").get<int>() == n);
  CHECK(name.at("one_piece_names").get<int>() == one_piece);
  CHECK(first / n == doctest::Approx(name.at("first_loss_nats").get<double>()).epsilon(1e-6));
  CHECK(second / n == doctest::Approx(name.at("second_loss_nats").get<double>()).epsilon(1e-6));
}

TEST_CASE("the shipped Sprout's pronoun-to-name scores come back from the card's probes") {
  const auto card = nlohmann::json::parse(read_text(DIR + "card.json"));
  const lookback::LoadedModel m = load_sprout();
  const int H = card.at("heads").at("heads");
  const auto& last_best = card.at("heads").at("pronoun_to_name").at("best").at(0);
  const auto& every_best = card.at("heads").at("pronoun_to_every_mention").at("best").at(0);
  const int last_head = head_index(last_best, H), every_head = head_index(every_best, H);
  const auto& ev = card.at("evaluation");
  const auto probes = lookback::corpus::make_probes(ev.at("seed").get<std::uint64_t>(), ev.at("probes_per_kind"));
  lookback::Session s(m.transformer);
  double last_sum = 0, every_sum = 0;
  int n = 0;
  for (const auto& p : probes) {
    if (p.kind != "pronoun") continue;
    std::vector<int> ids = m.tokenizer->encode(p.text, true);
    const auto spans = lookback::token_spans(*m.tokenizer, ids);
    const int q = lookback::tokens_in(spans, p.pronoun_char, p.pronoun_char + 1).at(0);
    ids.resize(q + 1);
    s.reset();
    s.process(ids, {true, true, false, false});
    const std::vector<float> a = s.attention();
    const int T = q + 1;
    auto weight_on = [&](int head, const std::vector<int>& starts) {
      std::set<int> keys;
      for (int at : starts)
        for (int k : lookback::tokens_in(spans, at, at + int(p.name.size()))) keys.insert(k);
      double w = 0;
      for (int k : keys) w += a[(std::size_t(head) * T + q) * T + k];
      return w;
    };
    const std::vector<int> every = mentions(p.text, p.name, p.pronoun_char);
    REQUIRE(!every.empty());
    CHECK(every.back() == p.antecedent_char);  // the antecedent is the name's last mention
    last_sum += weight_on(last_head, {p.antecedent_char});
    every_sum += weight_on(every_head, every);
    ++n;
  }
  REQUIRE(n > 0);
  CHECK(last_sum / n == doctest::Approx(last_best.at("score").get<double>()).epsilon(1e-6));
  CHECK(every_sum / n == doctest::Approx(every_best.at("score").get<double>()).epsilon(1e-6));
}
