// Sampling and generation: top-k probabilities, greedy choice, seeded sampling that repeats exactly (and
// a fixed first draw, so that native and WebAssembly builds agree), top-p restriction, the generation
// loop's stops, the sliding window; and bundles (a model with its tokenizer) with their fit checks.
// Runs natively and in WebAssembly under Node.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/bpe.hpp"
#include "model/bundle.hpp"
#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/generate.hpp"
#include "model/safetensors.hpp"
#include "model/sampler.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

TEST_CASE("the generator gives the same stream everywhere") {
  lookback::Rng r(42);
  CHECK(r.next() == 0xBDD732262FEB6E95ull);
  lookback::Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) CHECK(a.uniform_double() == b.uniform_double());
}

TEST_CASE("top_k: probabilities at a temperature, sorted, ties by id") {
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, -2.0f, 0.0f};
  const auto top = top_k(logits.data(), 5, 3, 1.0f);
  REQUIRE(top.size() == 3);
  CHECK(top[0].id == 1);
  CHECK(top[1].id == 2);
  CHECK(top[2].id == 0);
  double z = 0;
  for (float l : logits) z += std::exp(double(l));
  CHECK(top[0].p == doctest::Approx(std::exp(3.0) / z));
  const auto cold = top_k(logits.data(), 5, 9, 0.1f);
  CHECK(cold.size() == 5);
  CHECK(cold[0].p == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(cold[4].id == 3);
}

TEST_CASE("top_k over a large vocabulary, few or many kept: a float64 reference's order (ties by id) and probabilities") {
  // logits on a grid of 0.5 (many ties; distinct values far apart in probability), at two temperatures
  const int V = 5000;
  lookback::testing::Rng rng(77);
  std::vector<float> logits(static_cast<std::size_t>(V));
  for (float& l : logits) l = 0.5f * float(int(rng.uniform(0.0f, 1.0f) * 40.0f) - 20);
  for (float temperature : {1.0f, 0.7f}) {
    std::vector<double> p(logits.size());
    double z = 0;
    const float mx = *std::max_element(logits.begin(), logits.end());
    for (std::size_t i = 0; i < p.size(); ++i) z += p[i] = std::exp((double(logits[i]) - mx) / temperature);
    std::vector<int> order(p.size());
    for (int i = 0; i < V; ++i) order[std::size_t(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[std::size_t(a)] > p[std::size_t(b)]; });
    for (int k : {1, 2, 10, 32, 33, 100, V}) {
      const auto top = top_k(logits.data(), V, k, temperature);
      REQUIRE(int(top.size()) == k);
      INFO("k=" << k << ", temperature " << temperature);
      for (int i = 0; i < k; ++i) {
        CHECK(top[std::size_t(i)].id == order[std::size_t(i)]);
        CHECK(top[std::size_t(i)].p == doctest::Approx(p[std::size_t(order[std::size_t(i)])] / z).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("sampling: greedy takes the argmax; seeded draws repeat; top-p keeps only the nucleus") {
  const std::vector<float> logits = {0.0f, 2.0f, 1.0f, 2.0f, -1.0f};
  lookback::Rng r(1);
  CHECK(sample_token(logits.data(), 5, 0.0f, 1.0f, r) == 1);
  std::vector<int> counts(5, 0), again;
  lookback::Rng s1(9), s2(9);
  for (int i = 0; i < 4000; ++i) {
    const int x = sample_token(logits.data(), 5, 1.0f, 1.0f, s1);
    ++counts[x];
    CHECK(x == sample_token(logits.data(), 5, 1.0f, 1.0f, s2));
  }
  CHECK(counts[1] > 1100);
  CHECK(counts[4] > 0);
  lookback::Rng s3(10);
  for (int i = 0; i < 500; ++i) {
    const int x = sample_token(logits.data(), 5, 1.0f, 0.5f, s3);  // ids 1 and 3 hold ~67% of the mass
    CHECK((x == 1 || x == 3));
  }
}

TEST_CASE("generation: reproducible with a seed, greedy equals the argmax chain, stops where it should") {
  const auto c = test_configs()[1].config;  // separate classifier: a spread-out next-token distribution
  auto model = random_model(c, 51);
  Session s(model);
  GenerateOptions o;
  o.max_tokens = 12, o.temperature = 1.0f, o.seed = 3;
  const Generation g1 = generate(s, {0, 5, 6}, o);
  const Generation g2 = generate(s, {0, 5, 6}, o);
  CHECK(g1.ids == g2.ids);
  o.seed = 4;
  const Generation g3 = generate(s, {0, 5, 6}, o);
  CHECK((g1.ids != g3.ids || g1.stop != g3.stop));
  o.temperature = 0, o.max_tokens = 10;
  const Generation greedy = generate(s, {0, 5, 6}, o);
  std::vector<int> text = {0, 5, 6};
  for (int id : greedy.ids) {
    Session fresh(model);
    fresh.process(text);
    const float* l = fresh.last_logits();
    CHECK(int(std::max_element(l, l + c.vocab_size) - l) == id);
    text.push_back(id);
  }
  CHECK((greedy.stop == "max_tokens" || greedy.stop == "end"));
  o.max_tokens = 100;  // beyond the context of 40
  o.temperature = 1.0f;
  const Generation full = generate(s, {0, 5, 6}, o);
  if (full.stop == "context") CHECK(full.ids.size() == std::size_t(c.max_seq_len - 3 + 1));
  o.window = true;
  const Generation slid = generate(s, std::vector<int>(60, 7), o);  // prompt longer than the context too
  CHECK((slid.stop == "max_tokens" || slid.stop == "end"));
  if (slid.stop == "max_tokens") CHECK(slid.ids.size() == 100);
  o.window = false;
  CHECK_THROWS_WITH_AS(generate(s, std::vector<int>(60, 7), o), doctest::Contains("60 tokens but the model's context holds 48"), ModelError);
  o.top_p = 0;
  CHECK_THROWS_AS(generate(s, {0}, o), ModelError);
}

TEST_CASE("sliding window keeps the start mark and the last tokens") {
  CHECK(sliding_window({0, 1, 2, 3, 4, 5}, 4, 0) == std::vector<int>{0, 3, 4, 5});
  CHECK(sliding_window({9, 1, 2, 3, 4, 5}, 4, 0) == std::vector<int>{2, 3, 4, 5});
  CHECK(sliding_window({0, 1, 2}, 4, 0) == std::vector<int>{0, 1, 2});
  CHECK(sliding_window({0, 1, 2}, 1, 0) == std::vector<int>{2});
  CHECK_THROWS_AS(sliding_window({0}, 0, 0), ModelError);
}

TEST_CASE("bundles: safetensors + config.json + tokenizer.json load; a tokenizer of another size is refused") {
  auto c = test_configs()[0].config;
  c.vocab_size = 258;  // the byte-BPE vocabulary without merges
  const Weights w = random_weights(c, 52);
  const auto st = write_safetensors(w.named(), true);
  const std::string tok = BpeTokenizer().to_json();
  const LoadedModel m = load_bundle(st.data(), st.size(), config_to_json(c), tok);
  CHECK(m.tokenizer->kind() == "byte-bpe");
  CHECK(m.tokenizer->encode("hi", true) == std::vector<int>{0, 'h' + 2, 'i' + 2});
  Session s(m.transformer);
  CHECK_NOTHROW(s.process(m.tokenizer->encode("hello", true)));
  auto other = c;
  other.vocab_size = 300;
  const auto st2 = write_safetensors(random_weights(other, 1).named(), true);
  CHECK_THROWS_WITH_AS(load_bundle(st2.data(), st2.size(), config_to_json(other), tok),
                       "the tokenizer has 258 tokens but the model's vocabulary has 300 (the tokenizer belongs to another model)",
                       ModelError);
  CHECK_THROWS_WITH_AS(load_bundle(st.data(), st.size(), config_to_json(c), "{"), doctest::Contains("tokenizer"), ModelError);
  CHECK_THROWS_WITH_AS(load_bundle(st.data(), st.size() - 1, config_to_json(c), tok), doctest::Contains("safetensors"), ModelError);
}

TEST_CASE("valid_utf8 replaces ill-formed sequences as TextDecoder does") {
  CHECK(valid_utf8("héllo") == "héllo");
  CHECK(valid_utf8("a\xC3") == "a\xEF\xBF\xBD");
  CHECK(valid_utf8("\xE2\x82") == "\xEF\xBF\xBD");                         // one maximal subpart
  CHECK(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate: three
  CHECK(valid_utf8("\xF0\x9F\x98\x80!") == "\xF0\x9F\x98\x80!");
  CHECK(valid_utf8("\xFF") == "\xEF\xBF\xBD");
}
