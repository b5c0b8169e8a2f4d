// The training loop: loss falls on a small repetitive data set, checkpoint/resume continues bit for bit,
// runs are deterministic, the schedule has its shape, and the export writes the shipped names as fp16.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "../shared_files.hpp"
#include "../test_util.hpp"
#include "base/fp16.hpp"
#include "train/export.hpp"
#include "train/sprout_train.hpp"
#include "train/trainer.hpp"
#include "train/window_train.hpp"

using namespace lookback::train;
using lookback::float_to_half;
using lookback::half_to_float;

namespace {

using lookback::testing::read_text;

// Stories <s> a b c ... </s> built from a few fixed phrases over a 64-token vocabulary: easy to learn.
std::vector<std::uint16_t> toy_data(int stories, std::uint64_t seed) {
  lookback::testing::Rng rng(seed);
  std::vector<std::uint16_t> d;
  for (int s = 0; s < stories; ++s) {
    d.push_back(0);
    const int phrase = int(rng.next() % 4), reps = 2 + int(rng.next() % 4);
    for (int r = 0; r < reps; ++r)
      for (int i = 0; i < 7; ++i) d.push_back(std::uint16_t(2 + phrase * 8 + i));
    d.push_back(1);
  }
  return d;
}

TrainOptions quiet_options(long steps, int threads) {
  TrainOptions o;
  o.steps = steps, o.threads = threads, o.batch = 6, o.lr = 1e-2f, o.warmup = 3, o.quiet = true;
  return o;
}

std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("lookback-test-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

}  // namespace

TEST_CASE("fp16 conversion rounds to nearest even and keeps the range") {
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(-2.0f) == 0xC000);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(70000.0f) == 0x7C00);
  CHECK(float_to_half(0.0f) == 0x0000);
  CHECK(float_to_half(1e-8f) == 0x0000);
  CHECK(float_to_half(6e-8f) == 0x0001);                      // the smallest subnormal, 2^-24
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // tie -> even
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie -> even (up)
  lookback::testing::Rng rng(3);
  for (int i = 0; i < 10000; ++i) {
    const float x = rng.uniform(-4, 4) * std::ldexp(1.0f, int(rng.next() % 20) - 10);
    const float y = half_to_float(float_to_half(x));
    CHECK(std::fabs(y - x) <= std::fabs(x) * std::ldexp(1.0f, -11) + std::ldexp(1.0f, -25));
  }
}

TEST_CASE("a 30-step run on a small repetitive data set brings the loss down from ln V") {
  const auto data = toy_data(400, 1);
  for (const char* kind : {"sprout", "window"}) {
    Trainer tr(make_model(kind, "small", 64), quiet_options(30, 2), &data, &data);
    tr.init();
    const double v0 = tr.validate();
    double first = 0, last = 0;
    for (int s = 0; s < 30; ++s) {
      const double l = tr.step();
      if (s == 0) first = l;
      last = l;
    }
    const double v1 = tr.validate();
    MESSAGE(std::string(kind) << ": loss " << first << " -> " << last << ", validation " << v0 << " -> " << v1);
    CHECK(first == doctest::Approx(std::log(64.0)).epsilon(0.05));
    CHECK(last < 0.5 * first);
    CHECK(v1 < 0.5 * v0);
  }
}

TEST_CASE("checkpoint and resume continue bit for bit; runs are deterministic") {
  const auto data = toy_data(300, 2);
  const std::string dir = temp_dir("resume");
  for (const char* kind : {"sprout", "window"})
    for (int threads : {1, 2}) {
      Trainer a(make_model(kind, "small", 64), quiet_options(20, threads), &data, nullptr);
      a.init();
      for (int s = 0; s < 20; ++s) a.step();

      Trainer b(make_model(kind, "small", 64), quiet_options(20, threads), &data, nullptr);
      b.init();
      for (int s = 0; s < 10; ++s) b.step();
      b.save_checkpoint(dir + "/ckpt.bin");
      for (int s = 0; s < 10; ++s) b.step();  // the same run, uninterrupted

      Trainer c(make_model(kind, "small", 64), quiet_options(20, threads), &data, nullptr);
      c.load_checkpoint(dir + "/ckpt.bin");
      CHECK(c.state().step == 10);
      for (int s = 0; s < 10; ++s) c.step();

      const auto& A = a.state();
      for (const TrainState* o : {&b.state(), &c.state()}) {
        CHECK(o->step == A.step);
        CHECK(o->tokens == A.tokens);
        CHECK(o->cursor == A.cursor);
        CHECK(std::memcmp(o->w.data(), A.w.data(), 4 * A.w.size()) == 0);
        CHECK(std::memcmp(o->m.data(), A.m.data(), 4 * A.m.size()) == 0);
        CHECK(std::memcmp(o->v.data(), A.v.data(), 4 * A.v.size()) == 0);
      }
      // a different seed gives different weights (the comparison above can fail)
      TrainOptions o2 = quiet_options(20, threads);
      o2.seed = 2;
      Trainer d(make_model(kind, "small", 64), o2, &data, nullptr);
      d.init();
      d.step();
      CHECK(std::memcmp(d.state().w.data(), A.w.data(), 4 * A.w.size()) != 0);
    }
  // a checkpoint of another model or a damaged file is refused
  Trainer w(make_model("window", "small", 64), quiet_options(20, 1), &data, nullptr);
  CHECK_NOTHROW(w.load_checkpoint(dir + "/ckpt.bin"));  // the last one written is a window checkpoint
  {
    std::string bytes = read_text(dir + "/ckpt.bin");
    bytes.resize(bytes.size() - 4);
    write_atomic(dir + "/bad.bin", bytes);
  }
  CHECK_THROWS(w.load_checkpoint(dir + "/bad.bin"));
  Trainer s(make_model("sprout", "small", 64), quiet_options(20, 1), &data, nullptr);
  CHECK_THROWS(s.load_checkpoint(dir + "/ckpt.bin"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run stopped by SIGTERM reports it is unfinished; resumed, it finishes") {
  const auto data = toy_data(300, 3);
  const std::string dir = temp_dir("stop");
  TrainOptions o = quiet_options(12, 1);
  o.out_dir = o.export_dir = dir, o.log_every = 1, o.val_every = 0;
  Trainer a(make_model("sprout", "small", 64), o, &data, nullptr);
  a.log = [](const std::string& line) {
    if (line.rfind("step 5/", 0) == 0) std::raise(SIGTERM);
  };
  CHECK_FALSE(a.run());
  CHECK(a.state().step == 5);
  CHECK(std::filesystem::exists(dir + "/checkpoint.bin"));
  o.resume = true;
  Trainer b(make_model("sprout", "small", 64), o, &data, nullptr);
  b.log = [](const std::string&) {};
  CHECK(b.run());
  CHECK(b.state().step == 12);
  std::filesystem::remove_all(dir);
}

TEST_CASE("schedule: linear warm-up, cosine decay to the floor at the last step") {
  const auto data = toy_data(50, 3);
  TrainOptions o = quiet_options(1000, 1);
  o.warmup = 100, o.lr = 1e-3f, o.min_lr_frac = 0.1f;
  Trainer tr(make_model("window", "small", 64), o, &data, nullptr);
  tr.init();
  CHECK(tr.lr_at(0) == doctest::Approx(1e-5));
  CHECK(tr.lr_at(99) == doctest::Approx(1e-3));
  CHECK(tr.lr_at(100) == doctest::Approx(1e-3));
  CHECK(tr.lr_at(550) == doctest::Approx(0.55e-3));
  CHECK(tr.lr_at(1000) == doctest::Approx(1e-4));
  for (int s = 101; s < 1000; ++s) CHECK(tr.lr_at(s) <= tr.lr_at(s - 1));
}

TEST_CASE("--init: a fresh run starts from an exported model's weights, refused for another shape") {
  const auto data = toy_data(80, 5);
  const std::string dir = temp_dir("init");
  Trainer a(make_model("sprout", "small", 64), quiet_options(10, 1), &data, nullptr);
  a.init();
  for (int s = 0; s < 5; ++s) a.step();
  a.export_model(dir + "/a");
  // the weights come back as the export rounded them (fp16), the optimiser's moments zero, the step 0
  Trainer b(make_model("sprout", "small", 64), quiet_options(10, 1), &data, &data);
  b.init();
  b.load_weights(dir + "/a/model.safetensors");
  const auto& A = a.state().w;
  const auto& B = b.state().w;
  REQUIRE(A.size() == B.size());
  bool same = true;
  for (std::size_t i = 0; i < A.size(); ++i) same = same && B[i] == half_to_float(float_to_half(A[i]));
  CHECK(same);
  CHECK(b.state().step == 0);
  CHECK(std::all_of(b.state().m.begin(), b.state().m.end(), [](float x) { return x == 0.0f; }));
  // run() with init_weights set starts there: its first step's loss is the loaded model's, below a fresh one's
  TrainOptions o = quiet_options(1, 1);
  o.out_dir = dir + "/c";
  o.init_weights = dir + "/a/model.safetensors";
  Trainer c(make_model("sprout", "small", 64), o, &data, &data);
  c.run();
  Trainer fresh(make_model("sprout", "small", 64), quiet_options(1, 1), &data, &data);
  fresh.init();
  CHECK(b.validate() < fresh.validate());
  CHECK(c.state().step == 1);
  CHECK(c.validate() < fresh.validate());
  // another vocabulary or another model is refused
  Trainer v(make_model("sprout", "small", 96), quiet_options(10, 1), &data, nullptr);
  CHECK_THROWS(v.load_weights(dir + "/a/model.safetensors"));
  Trainer w(make_model("window", "small", 64), quiet_options(10, 1), &data, nullptr);
  CHECK_THROWS(w.load_weights(dir + "/a/model.safetensors"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("export writes the shipped tensor names and shapes as fp16, with config.json") {
  const auto data = toy_data(50, 4);
  const std::string dir = temp_dir("export");
  {
    Trainer tr(make_model("sprout", "small", 64), quiet_options(10, 1), &data, nullptr);
    tr.init();
    tr.step();
    tr.export_model(dir + "/sprout");
    const std::string b = read_text(dir + "/sprout/model.safetensors");
    std::uint64_t n = 0;
    std::memcpy(&n, b.data(), 8);
    REQUIRE(8 + n <= b.size());
    CHECK(n % 8 == 0);
    const auto h = nlohmann::json::parse(b.substr(8, n));
    const auto cfg = nlohmann::json::parse(read_text(dir + "/sprout/config.json"));
    const int C = cfg.at("dim"), D = cfg.at("head_dim"), F = cfg.at("hidden_dim"), V = cfg.at("vocab_size");
    CHECK(V == 64);
    CHECK(cfg.at("rope_layout") == "adjacent");
    CHECK(cfg.at("mlp") == "swiglu");
    CHECK(cfg.at("qk_norm") == true);
    std::map<std::string, std::vector<int>> want = {{"tok_embeddings.weight", {V, C}}, {"norm.weight", {C}}};
    for (int l = 0; l < int(cfg.at("n_layers")); ++l) {
      const std::string p = "layers." + std::to_string(l) + ".";
      want[p + "attention_norm.weight"] = {C};
      for (const char* m : {"wq", "wk", "wv", "wo"}) want[p + "attention." + m + ".weight"] = {C, C};
      want[p + "attention.q_norm.weight"] = {D};
      want[p + "attention.k_norm.weight"] = {D};
      want[p + "ffn_norm.weight"] = {C};
      want[p + "feed_forward.w1.weight"] = {F, C};
      want[p + "feed_forward.w3.weight"] = {F, C};
      want[p + "feed_forward.w2.weight"] = {C, F};
    }
    std::size_t seen = 0, end = 0;
    for (auto it = h.begin(); it != h.end(); ++it) {
      if (it.key() == "__metadata__") continue;
      ++seen;
      REQUIRE(want.count(it.key()) == 1);
      CHECK(it.value().at("dtype") == "F16");
      CHECK(it.value().at("shape").get<std::vector<int>>() == want[it.key()]);
      end = std::max<std::size_t>(end, it.value().at("data_offsets")[1].get<std::size_t>());
    }
    CHECK(seen == want.size());
    CHECK(8 + n + end == b.size());
    // the values are the weights, rounded to fp16
    const auto& e = h.at("tok_embeddings.weight");
    const std::size_t off = 8 + n + e.at("data_offsets")[0].get<std::size_t>();
    const auto& p = tr.model().params().front();
    for (std::size_t i = 0; i < p.size; i += 7) {
      std::uint16_t v;
      std::memcpy(&v, b.data() + off + 2 * i, 2);
      CHECK(half_to_float(v) == half_to_float(float_to_half(tr.state().w[p.offset + i])));
    }
  }
  {
    Trainer tr(make_model("window", "full", 64), quiet_options(10, 1), &data, nullptr);
    tr.init();
    tr.export_model(dir + "/window");
    const std::string b = read_text(dir + "/window/model.safetensors");
    std::uint64_t n = 0;
    std::memcpy(&n, b.data(), 8);
    const auto h = nlohmann::json::parse(b.substr(8, n));
    CHECK(h.at("embed.weight").at("shape") == nlohmann::json({64, 48}));
    CHECK(h.at("hidden.weight").at("shape") == nlohmann::json({384, 384}));
    CHECK(h.at("hidden.bias").at("shape") == nlohmann::json({384}));
    CHECK(h.at("out.weight").at("shape") == nlohmann::json({64, 384}));
    CHECK(h.at("out.bias").at("shape") == nlohmann::json({64}));
    const auto cfg = nlohmann::json::parse(read_text(dir + "/window/config.json"));
    CHECK(cfg.at("arch") == "window");
    CHECK(cfg.at("window") == 8);
    CHECK(cfg.at("embed_dim") == 48);
    CHECK(cfg.at("hidden_dim") == 384);
    CHECK(cfg.at("vocab_size") == 64);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("sampler: rows start at <s>, cover every story once per epoch, and seek reproduces the order") {
  const auto data = toy_data(40, 5);
  const int T = 16;
  Sampler a(&data, T, 9, 0), b(&data, T, 9, 0);
  CHECK(a.stories() == 40);
  std::vector<std::uint16_t> row(T + 1), row2(T + 1);
  std::vector<std::vector<std::uint16_t>> first;
  for (int i = 0; i < 40; ++i) {
    a.next_row(row.data());
    CHECK(row[0] == 0);
    first.push_back(row);
  }
  CHECK(a.epoch == 0);
  a.next_row(row.data());
  CHECK(a.epoch == 1);
  b.seek(0, 17);
  b.next_row(row2.data());
  CHECK(row2 == first[17]);
}

TEST_CASE("sampler: copy drills take their share of slots, repeat random ids and resume like stories") {
  const auto data = toy_data(2000, 6);
  const int T = 64;
  Drills d;
  d.share = 0.25, d.lo = 40, d.hi = 64, d.min_len = 3, d.max_len = 30;
  Sampler a(&data, T, 4, 0, d), plain(&data, T, 4, 0);
  std::vector<std::uint16_t> row(T + 1), other(T + 1);
  int drills = 0;
  std::set<int> periods;
  for (std::uint64_t c = 0; c < 1000; ++c) {
    const bool drill = a.drill_at(0, c);
    a.next_row(row.data());
    plain.next_row(other.data());
    CHECK(row[0] == 0);
    if (!drill) {
      CHECK(row == other);  // a story slot holds the same story as without drills
      continue;
    }
    ++drills;
    int n = 1;  // the smallest period of row[1..T]
    while (n <= T && !std::equal(row.begin() + 1 + n, row.end(), row.begin() + 1)) ++n;
    CHECK(n <= d.max_len);
    periods.insert(n);
    for (int i = 1; i <= T; ++i) CHECK((row[i] >= d.lo && row[i] < d.hi));
  }
  CHECK(drills > 200);
  CHECK(drills < 300);
  CHECK(periods.size() > 15);
  Sampler b(&data, T, 4, 0, d);  // seek lands on the same drill
  for (std::uint64_t c = 0; c < 1000; ++c)
    if (a.drill_at(0, c)) {
      Sampler x(&data, T, 4, 0, d);
      x.seek(0, c);
      x.next_row(row.data());
      b.seek(0, c);
      b.next_row(other.data());
      CHECK(row == other);
      break;
    }
  d.hi = d.lo;
  CHECK_THROWS(Sampler(&data, T, 4, 0, d));
}
