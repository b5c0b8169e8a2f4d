// Live training (wasm/src/train_live): the task generators, a short run that learns, determinism, and the bundle
// the runtime reads back (same logits as the trainer's own forward). Runs natively and in WebAssembly.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "model/bundle.hpp"
#include "model/session.hpp"
#include "train_live/live_run.hpp"

using namespace lookback;
using namespace lookback::live;

TEST_CASE("live tasks: rows start with the start mark, repeat or copy where the mask says, and follow the seed") {
  const int T = 32;
  for (Task task : {Task::induction, Task::previous, Task::corpus}) {
    CAPTURE(task_name(task));
    const TaskRows a = task_rows(task, T, 8, 5, 0), b = task_rows(task, T, 8, 5, 0), c = task_rows(task, T, 8, 5, 1);
    CHECK(a.ids == b.ids);
    CHECK(a.ids != c.ids);
    REQUIRE(a.rows() == 8);
    for (int r = 0; r < a.rows(); ++r) {
      const std::uint16_t* row = a.ids.data() + std::size_t(r) * (T + 1);
      const std::uint8_t* sc = a.scored.data() + std::size_t(r) * T;
      CHECK(row[0] == 0);
      int scored = 0;
      for (int t = 0; t < T; ++t) scored += sc[t];
      if (task == Task::corpus) {
        CHECK(scored == T);
        continue;
      }
      for (int i = 1; i <= T; ++i) CHECK((row[i] >= kLetterLo && row[i] < kLetterHi));
      if (task == Task::previous) {
        CHECK(scored == T / 3);
        for (int t = 0; t < T; ++t)
          if (sc[t]) CHECK(row[t + 1] == row[t - 1]);
      } else {
        int n = 0;  // the repeat's length: the first scored target
        while (!sc[n]) ++n;
        CHECK(n >= kMinRepeat);
        CHECK(n <= T / 2);
        for (int i = n + 1; i <= T; ++i) CHECK(row[i] == row[i - n]);
      }
    }
  }
  CHECK_THROWS_WITH_AS(parse_task("sorting"), doctest::Contains("induction, previous or corpus"), std::invalid_argument);
}

TEST_CASE("live run: the same seed gives the same losses, and the loss falls") {
  LiveOptions o;
  o.model.layers = 1, o.model.dim = 32, o.model.seq_len = 24, o.batch = 8, o.steps = 40, o.lr = 1e-2f, o.held_out = 8;
  LiveRun a(o), b(o);
  std::vector<double> la, lb;
  for (int s = 0; s < 40; ++s) la.push_back(a.step()), lb.push_back(b.step());
  CHECK(la == lb);
  CHECK(a.steps_done() == 40);
  CHECK(la.back() < la.front() - 0.5);  // from ln 258 towards ln 58: it learns the letters at least
  const Losses e = a.evaluate();
  CHECK(std::isfinite(e.held_out));
  CHECK(std::isfinite(e.task));
}

TEST_CASE("live run: the bundle reads back in the runtime with the trainer's logits, with and without MLPs") {
  for (bool mlp : {false, true}) {
    CAPTURE(mlp);
    LiveOptions o;
    o.task = "previous", o.model.mlp = mlp, o.model.dim = 32, o.model.seq_len = 24, o.batch = 4, o.steps = 5;
    o.held_out = 4;
    LiveRun run(o);
    for (int s = 0; s < 5; ++s) run.step();
    const Bundle b = run.bundle();
    const LoadedModel m = load_bundle(b.weights.data(), b.weights.size(), b.config, b.tokenizer);
    CHECK(m.transformer->config().hidden_dim == (mlp ? 128 : 2));
    const TaskRows rows = task_rows(Task::previous, 24, 1, 9, 1);
    const std::vector<float> want = run.logits(rows.ids.data());
    Session s(m.transformer);
    s.process(std::vector<int>(rows.ids.begin(), rows.ids.begin() + 24));
    CHECK(lookback::testing::closeness(s.all_logits(), want, 1e-4, 1e-4) <= 1.0);
    const ProbeView p = run.probe();
    CHECK(p.attention.size() == std::size_t(2 * 2 * 24 * 24));
    CHECK(p.previous.size() == 4);
    CHECK(p.induction.size() == 4);
  }
}

TEST_CASE("live run: bad settings are errors that name them") {
  LiveOptions o;
  o.model.layers = 9;
  CHECK_THROWS_WITH_AS(LiveRun{o}, doctest::Contains("layers"), std::invalid_argument);
  o = {};
  o.model.dim = 30;
  CHECK_THROWS_WITH_AS(LiveRun{o}, doctest::Contains("dim"), std::invalid_argument);
  o = {};
  o.lr = -1;
  CHECK_THROWS_WITH_AS(LiveRun{o}, doctest::Contains("lr"), std::invalid_argument);
}
