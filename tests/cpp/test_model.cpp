// Model tests on random-weight models of several shapes: the optimised forward (Session) against the scalar
// reference (logits, attention weights, residual stream), positions off, KV-cache decoding and prefix reuse
// against full recomputation, and the errors for bad ids and texts longer than the context.
// Runs natively and in WebAssembly under Node.
#include <doctest/doctest.h>

#include <algorithm>

#include "model/errors.hpp"
#include "model/session.hpp"
#include "model_fixtures.hpp"
#include "reference_model.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

std::vector<float> row(const float* p, int n) { return std::vector<float>(p, p + n); }

StepOptions everything(bool positions = true) {
  StepOptions o;
  o.positions = positions, o.attention = true, o.residuals = true, o.all_logits = true;
  return o;
}

}  // namespace

TEST_CASE("forward matches the scalar reference for every test shape (logits, attention, residuals)") {
  Rng rng(21);
  for (const auto& nc : test_configs()) {
    const ModelConfig& c = nc.config;
    const std::string& name = nc.name;
    auto model = random_model(c, 100 + c.dim);
    for (int T : {1, 2, 7, c.max_seq_len}) {
      const auto ids = random_ids(rng, T, c.vocab_size, c.bos_id);
      Session s(model);
      s.process(ids, everything());
      const auto ref = reference_forward(model->weights(), ids);
      INFO(name << ", T=" << T);
      CHECK(closeness(s.all_logits(), ref.logits, 1e-4, 1e-4) <= 1.0);
      CHECK(closeness(s.attention(), ref.attention, 1e-5, 1e-4) <= 1.0);
      CHECK(closeness(s.residuals(), ref.residuals, 1e-4, 1e-4) <= 1.0);
    }
  }
}

TEST_CASE("forward without positions matches the reference without positions") {
  Rng rng(22);
  for (const auto& nc : test_configs()) {
    const ModelConfig& c = nc.config;
    const std::string& name = nc.name;
    auto model = random_model(c, 7);
    const auto ids = random_ids(rng, 9, c.vocab_size, c.bos_id);
    Session s(model);
    s.process(ids, everything(false));
    const auto ref = reference_forward(model->weights(), ids, false);
    INFO(name);
    CHECK(closeness(s.all_logits(), ref.logits, 1e-4, 1e-4) <= 1.0);
    CHECK(closeness(s.attention(), ref.attention, 1e-5, 1e-4) <= 1.0);
  }
}

TEST_CASE("one layer without positions: shuffling the earlier tokens leaves the last logits unchanged") {
  auto c = test_configs()[0].config;
  c.n_layers = 1;
  auto model = random_model(c, 3);
  std::vector<int> ids = {0, 5, 9, 13, 21, 34, 7};
  std::vector<int> shuffled = {0, 34, 13, 5, 21, 9, 7};
  StepOptions off;
  off.positions = false;
  Session a(model), b(model);
  a.process(ids, off);
  b.process(shuffled, off);
  CHECK(closeness(row(a.last_logits(), c.vocab_size), row(b.last_logits(), c.vocab_size), 1e-5, 1e-5) <= 1.0);
  a.process(ids), b.process(shuffled);  // with positions the order matters
  CHECK(closeness(row(a.last_logits(), c.vocab_size), row(b.last_logits(), c.vocab_size), 1e-5, 1e-5) > 1.0);
}

TEST_CASE("decoding with the KV cache equals full recomputation at every step") {
  Rng rng(23);
  for (const auto& nc : test_configs()) {
    const ModelConfig& c = nc.config;
    const std::string& name = nc.name;
    auto model = random_model(c, 11);
    const auto ids = random_ids(rng, c.max_seq_len, c.vocab_size, c.bos_id);
    Session full(model), step(model);
    full.process(ids);
    StepOptions last;
    last.all_logits = false;
    step.process({ids[0]}, last);
    INFO(name);
    CHECK(closeness(row(step.last_logits(), c.vocab_size), row(full.logits(0), c.vocab_size), 1e-5, 1e-4) <= 1.0);
    for (std::size_t t = 1; t < ids.size(); ++t) {
      step.append(ids[t], last);
      CHECK(closeness(row(step.last_logits(), c.vocab_size), row(full.logits(int(t)), c.vocab_size), 1e-5, 1e-4) <= 1.0);
    }
    CHECK_THROWS_AS(step.append(1, last), ModelError);  // the context is full
  }
}

TEST_CASE("a prompt read for its last logits only (the last layer for one row) equals the full forward and decodes on") {
  // every row's keys and values must still reach the cache: the steps after the prompt read them
  Rng rng(25);
  for (const auto& nc : test_configs()) {
    const ModelConfig& c = nc.config;
    auto model = random_model(c, 13);
    const auto ids = random_ids(rng, c.max_seq_len, c.vocab_size, c.bos_id);
    for (bool positions : {true, false}) {
      StepOptions last;
      last.all_logits = false, last.positions = positions;
      StepOptions all = everything(positions);
      const int P = std::max(2, c.max_seq_len / 2);
      Session full(model), step(model);
      full.process(ids, all);
      step.process(std::vector<int>(ids.begin(), ids.begin() + P), last);
      INFO(nc.name << ", positions " << positions);
      CHECK(closeness(row(step.last_logits(), c.vocab_size), row(full.logits(P - 1), c.vocab_size), 1e-5, 1e-4) <= 1.0);
      for (int t = P; t < c.max_seq_len; ++t) {
        step.append(ids[std::size_t(t)], last);
        CHECK(closeness(row(step.last_logits(), c.vocab_size), row(full.logits(t), c.vocab_size), 1e-5, 1e-4) <= 1.0);
      }
      // and the same prompt again with every record: the pruned rows are computed in full
      CHECK(step.process(std::vector<int>(ids.begin(), ids.begin() + P), all) == 0);
      const auto want = full.all_logits();
      CHECK(closeness(step.all_logits(), std::vector<float>(want.begin(), want.begin() + std::size_t(P) * c.vocab_size),
                      1e-6, 1e-5) <= 1.0);
    }
  }
}

TEST_CASE("editing the end of a text reuses the cached prefix and gives the same result as from scratch") {
  Rng rng(24);
  const auto c = test_configs()[1].config;
  auto model = random_model(c, 12);
  auto ids = random_ids(rng, 30, c.vocab_size, c.bos_id);
  Session s(model);
  CHECK(s.process(ids, everything()) == 0);
  auto edited = ids;
  edited[25] = (edited[25] + 1) % c.vocab_size;
  edited.push_back(3);
  CHECK(s.process(edited, everything()) == 25);
  Session fresh(model);
  fresh.process(edited, everything());
  CHECK(closeness(s.all_logits(), fresh.all_logits(), 1e-6, 1e-5) <= 1.0);
  CHECK(closeness(s.attention(), fresh.attention(), 1e-6, 1e-5) <= 1.0);
  CHECK(closeness(s.residuals(), fresh.residuals(), 1e-6, 1e-5) <= 1.0);
  // the same text again recomputes only the last position; a shorter one only its last position
  CHECK(s.process(edited, everything()) == int(edited.size()) - 1);
  CHECK(s.process(std::vector<int>(edited.begin(), edited.begin() + 10), everything()) == 9);
  // records that were not kept force recomputation from the first position that lacks them
  s.process(ids, StepOptions{});  // positions 10.. computed without attention or residuals
  CHECK(s.process(ids, everything()) == 10);
  // appending with records on does not claim records for earlier positions that lack them
  s.process({ids[0], ids[1]}, StepOptions{});
  s.append(ids[2], everything());
  CHECK_THROWS_AS(s.attention(), ModelError);
  // switching positions off invalidates the cache
  CHECK(s.process(ids, everything(false)) == 0);
}

TEST_CASE("attention rows are causal distributions; the first token attends only to itself") {
  const auto c = test_configs()[0].config;
  auto model = random_model(c, 13);
  Rng rng(25);
  const auto ids = random_ids(rng, 12, c.vocab_size, c.bos_id);
  Session s(model);
  s.process(ids, everything());
  const auto a = s.attention();
  const int T = 12;
  for (int lh = 0; lh < c.n_layers * c.n_heads; ++lh) {
    CHECK(a[std::size_t(lh) * T * T] == doctest::Approx(1.0f));
    for (int t = 0; t < T; ++t) {
      double sum = 0;
      for (int s2 = 0; s2 < T; ++s2) {
        const float v = a[(std::size_t(lh) * T + t) * T + s2];
        if (s2 > t) CHECK(v == 0.0f);
        sum += v;
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("bad input: ids outside the vocabulary, no ids, texts longer than the context; the session stays usable") {
  const auto c = test_configs()[0].config;
  auto model = random_model(c, 14);
  Session s(model);
  CHECK_THROWS_WITH_AS(s.process({0, 3, c.vocab_size}), doctest::Contains("token id 50 at index 2"), ModelError);
  CHECK_THROWS_WITH_AS(s.process({0, -1}), doctest::Contains("outside the vocabulary"), ModelError);
  CHECK_THROWS_AS(s.process({}), ModelError);
  CHECK_THROWS_WITH_AS(s.process(std::vector<int>(std::size_t(c.max_seq_len) + 1, 2)),
                       doctest::Contains("41 tokens but the model's context holds 40"), ModelError);
  s.process({0, 1, 2});
  CHECK_THROWS_AS(s.append(99), ModelError);
  CHECK(s.length() == 3);
  CHECK_THROWS_AS(s.attention(), ModelError);  // not recorded
  CHECK_NOTHROW(s.process({0, 1, 2, 3}));
  CHECK(s.length() == 4);
}

TEST_CASE("weights with NaN or infinity are refused, naming the tensor and index") {
  auto w = random_weights(test_configs()[0].config, 1);
  w.tensor("layers.1.attention.wk.weight")[3 * 48 + 5] = NAN;
  CHECK_THROWS_WITH_AS(Transformer(std::move(w)), "tensor 'layers.1.attention.wk.weight' holds NaN at [3, 5]; weights must be finite",
                       ModelError);
}

TEST_CASE("float16, Q8 and Q4 weights: every test shape's logits stay near float32's (biases added in float32)") {
  // the compact storages round the matrices only; their biases are views of the float32 weights
  Rng rng(26);
  for (const auto& nc : test_configs()) {
    const ModelConfig& c = nc.config;
    const Weights w = random_weights(c, 15);
    const auto ids = random_ids(rng, std::min(12, c.max_seq_len), c.vocab_size, c.bos_id);
    Session exact(std::make_shared<const Transformer>(Weights(w)));
    exact.process(ids);
    const auto want = exact.all_logits();
    double scale = 0;
    for (float v : want) scale = std::max(scale, double(std::fabs(v)));
    // Q4: a weight moves by up to 1/30 of its block's range (uniform weights: about 1/60 of the largest on average)
    for (const auto& storage : {std::pair{WeightFormat::f16, 2e-3}, std::pair{WeightFormat::q8, 3e-2},
                                std::pair{WeightFormat::q4, 0.25}}) {
      const WeightFormat format = storage.first;
      const double tolerance = storage.second;
      Session s(std::make_shared<const Transformer>(Weights(w), format));
      s.process(ids);
      INFO(nc.name << ", " << weight_format_name(format));
      CHECK(closeness(s.all_logits(), want, tolerance * scale, 0) <= 1.0);  // relative to the largest logit
    }
  }
}
