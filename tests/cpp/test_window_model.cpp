// Window model tests: logits of a tiny random model against plain loops, the window it sees, its loss, and
// the errors for a bad config, missing or misshapen tensors and ids out of range.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "model/errors.hpp"
#include "model/safetensors.hpp"
#include "model/window_model.hpp"
#include "test_util.hpp"

using namespace lookback;

namespace {
const int W = 3, E = 4, N = 5, V = 7;
const std::string CONFIG = R"({"arch":"window","window":3,"embed_dim":4,"hidden_dim":5,"vocab_size":7,"activation":"gelu","bos_id":0,"eos_id":1})";

struct Tiny {
  std::vector<float> emb, hw, hb, ow, ob;
  std::vector<std::uint8_t> file;
  explicit Tiny(std::uint64_t seed, bool drop_bias = false) {
    testing::Rng rng(seed);
    emb = rng.vec(V * E), hw = rng.vec(N * W * E), hb = rng.vec(N), ow = rng.vec(V * N), ob = rng.vec(V);
    std::vector<NamedTensor> t = {{"embed.weight", {V, E}, emb.data()}, {"hidden.weight", {N, W * E}, hw.data()},
                                  {"hidden.bias", {N}, hb.data()}, {"out.weight", {V, N}, ow.data()}};
    if (!drop_bias) t.push_back({"out.bias", {V}, ob.data()});
    file = write_safetensors(t, false);
  }
  // plain loops, float64
  std::vector<double> logits_at(const std::vector<int>& ids, int t) const {
    std::vector<double> x(W * E), h(N), z(V);
    for (int j = 0; j < W; ++j) {
      const int pos = t - (W - 1) + j, id = pos < 0 ? 0 : ids[pos];
      for (int e = 0; e < E; ++e) x[j * E + e] = emb[id * E + e];
    }
    for (int n = 0; n < N; ++n) {
      double s = hb[n];
      for (int i = 0; i < W * E; ++i) s += hw[n * W * E + i] * x[i];
      h[n] = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
    }
    for (int v = 0; v < V; ++v) {
      double s = ob[v];
      for (int n = 0; n < N; ++n) s += ow[v * N + n] * h[n];
      z[v] = s;
    }
    return z;
  }
};
}  // namespace

TEST_CASE("window model logits match plain loops, and it sees only its window") {
  Tiny tiny(11);
  WindowModel m(tiny.file.data(), tiny.file.size(), CONFIG);
  const std::vector<int> ids = {0, 3, 4, 5, 6, 2, 3};
  const auto z = m.logits(ids);
  for (int t = 0; t < int(ids.size()); ++t) {
    const auto want = tiny.logits_at(ids, t);
    for (int v = 0; v < V; ++v) CHECK(z[t * V + v] == doctest::Approx(want[v]).epsilon(1e-5));
  }
  CHECK(m.window_at(ids, 1) == std::vector<int>{0, 0, 3});
  CHECK(m.window_at(ids, 5) == std::vector<int>{5, 6, 2});
  std::vector<int> changed = ids;
  changed[1] = 6;  // outside the window of position 5 and 6
  const auto z2 = m.logits(changed);
  for (int v = 0; v < V; ++v) CHECK(z2[6 * V + v] == z[6 * V + v]);
  const double loss = m.loss(ids);
  CHECK(std::isfinite(loss));
  CHECK(loss > 0);
}

TEST_CASE("window model errors say what is wrong") {
  Tiny tiny(12), missing(13, true);
  CHECK_THROWS_WITH_AS(WindowModel(tiny.file.data(), tiny.file.size(), R"({"arch":"sprout"})"),
                       doctest::Contains("\"arch\" must be \"window\""), ModelError);
  CHECK_THROWS_WITH_AS(WindowModel(tiny.file.data(), tiny.file.size(), "{"), doctest::Contains("not valid JSON"), ModelError);
  // a field of the wrong type is a ModelError too, not the JSON library's type_error (found by fuzzing)
  CHECK_THROWS_WITH_AS(WindowModel(tiny.file.data(), tiny.file.size(), R"({"arch":5})"),
                       doctest::Contains("\"arch\" must be a string"), ModelError);
  std::string activation = CONFIG;
  activation.replace(activation.find("\"gelu\""), 6, "[1]");
  CHECK_THROWS_WITH_AS(WindowModel(tiny.file.data(), tiny.file.size(), activation),
                       doctest::Contains("\"activation\" must be a string"), ModelError);
  std::string big = CONFIG;
  big.replace(big.find("\"vocab_size\":7"), 14, "\"vocab_size\":9");
  CHECK_THROWS_WITH_AS(WindowModel(tiny.file.data(), tiny.file.size(), big), doctest::Contains("wrong shape"), ModelError);
  CHECK_THROWS_WITH_AS(WindowModel(missing.file.data(), missing.file.size(), CONFIG), doctest::Contains("expected 5 tensors"), ModelError);
  WindowModel m(tiny.file.data(), tiny.file.size(), CONFIG);
  CHECK_THROWS_WITH_AS(m.logits({0, 7}), doctest::Contains("token id 7 at position 1"), ModelError);
}
