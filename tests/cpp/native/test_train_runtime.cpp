// The trainer's export runs in the runtime: the runtime's readers accept it, and the runtime's forward
// pass (Session, WindowModel) gives the trainer's logits/loss on the same weights. This pins the
// conventions both sides must share (QK-norm before RoPE, adjacent pairs, tied classifier, window order).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "../shared_files.hpp"
#include "../test_util.hpp"
#include "base/fp16.hpp"
#include "model/config_json.hpp"
#include "model/safetensors.hpp"
#include "model/session.hpp"
#include "model/window_model.hpp"
#include "train/export.hpp"
#include "train/sprout_train.hpp"
#include "train/window_train.hpp"

using namespace lookback::train;
using lookback::float_to_half;
using lookback::half_to_float;

namespace {

using lookback::testing::read_bytes;
using lookback::testing::read_text;

// Weights with some spread, rounded to fp16 so that the export is exact.
std::vector<float> fp16_weights(const TrainModel& m, std::uint64_t seed) {
  std::vector<float> w(m.n_params());
  m.init(w.data(), seed);
  lookback::testing::Rng rng(seed);
  for (auto& x : w) x = half_to_float(float_to_half(x + rng.uniform(-0.1f, 0.1f)));
  return w;
}

}  // namespace

TEST_CASE("the runtime loads an exported Sprout and computes the trainer's logits") {
  const std::string dir = (std::filesystem::temp_directory_path() / "lookback-test-runtime-sprout").string();
  std::filesystem::remove_all(dir);
  auto cfg = sprout_config("small", 64);
  cfg.max_seq_len = 24;
  SproutTrain m(cfg);
  const auto w = fp16_weights(m, 5);
  export_folder(dir, m, w.data(), "", {});
  const auto bytes = read_bytes(dir + "/model.safetensors");
  const lookback::ModelConfig rc = lookback::config_from_json(read_text(dir + "/config.json"));
  CHECK(rc.dim == cfg.dim);
  CHECK(rc.max_seq_len == cfg.max_seq_len);
  auto model = std::make_shared<const lookback::Transformer>(lookback::read_safetensors(rc, bytes.data(), bytes.size()));
  lookback::Session s(model);
  lookback::testing::Rng rng(6);
  std::vector<std::uint16_t> ids(cfg.max_seq_len);
  std::vector<int> ids_int(cfg.max_seq_len);
  for (int t = 0; t < cfg.max_seq_len; ++t) ids_int[t] = ids[t] = std::uint16_t(t == 0 ? 0 : 2 + rng.next() % 62);
  s.process(ids_int);
  const auto got = s.all_logits();
  const auto want = m.logits(w.data(), ids.data());
  REQUIRE(got.size() == want.size());
  CHECK(lookback::testing::closeness(got, want, 1e-4, 1e-3) <= 1.0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the runtime loads an exported window model and computes the trainer's loss") {
  const std::string dir = (std::filesystem::temp_directory_path() / "lookback-test-runtime-window").string();
  std::filesystem::remove_all(dir);
  auto cfg = window_config("small", 64);
  cfg.seq_len = 20;
  WindowTrain m(cfg);
  const auto w = fp16_weights(m, 7);
  export_folder(dir, m, w.data(), "", {});
  const auto bytes = read_bytes(dir + "/model.safetensors");
  lookback::WindowModel rt(bytes.data(), bytes.size(), read_text(dir + "/config.json"));
  CHECK(rt.config().window == cfg.window);
  lookback::testing::Rng rng(8);
  std::vector<std::uint16_t> ids(cfg.seq_len + 1);
  std::vector<int> ids_int(cfg.seq_len + 1);
  for (int t = 0; t <= cfg.seq_len; ++t) ids_int[t] = ids[t] = std::uint16_t(t == 0 ? 0 : 2 + rng.next() % 62);
  const double want = m.loss_grad(w.data(), ids.data(), 1, nullptr, 1);
  CHECK(rt.loss(ids_int) == doctest::Approx(want).epsilon(1e-4));
  std::filesystem::remove_all(dir);
}
