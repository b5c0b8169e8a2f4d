// Gradient checks of the trainer: every backward op and both whole models against central finite
// differences. The forward runs in float32, so the checks use O(1) inputs, a step of 1e-2 and a loss that
// weights every output by a fixed random number; a wrong gradient is off by O(1), the checks allow 1e-2
// of the largest gradient (the measured errors are printed and are around 1e-4..1e-3).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "../test_util.hpp"
#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"
#include "train/model.hpp"
#include "train/ops.hpp"
#include "train/sprout_train.hpp"
#include "train/window_train.hpp"

using namespace lookback::train;
using lookback::testing::Rng;

namespace {

// Largest |numeric - analytic| over the checked entries, relative to the largest |analytic|.
// loss() must read x; grad holds the analytic gradient of loss w.r.t. x.
double fd_error(std::vector<float>& x, const std::vector<float>& grad, const std::function<double()>& loss,
                float h = 1e-2f, std::size_t max_checks = 400) {
  double worst = 0, scale = 1e-12;
  for (float g : grad) scale = std::max(scale, double(std::fabs(g)));
  const std::size_t stride = std::max<std::size_t>(1, x.size() / max_checks);
  for (std::size_t i = 0; i < x.size(); i += stride) {
    const float keep = x[i];
    x[i] = keep + h;
    const double lp = loss();
    x[i] = keep - h;
    const double lm = loss();
    x[i] = keep;
    const double num = (lp - lm) / (2.0 * h);
    worst = std::max(worst, std::fabs(num - grad[i]));
  }
  return worst / scale;
}

double weighted(const std::vector<float>& y, const std::vector<float>& c) {
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) s += double(y[i]) * c[i];
  return s;
}

}  // namespace

TEST_CASE("rmsnorm backward matches finite differences") {
  Rng rng(1);
  const int R = 5, n = 12;
  auto x = rng.vec(R * n), w = rng.vec(n, 0.5f, 1.5f), c = rng.vec(R * n);
  std::vector<float> y(R * n), r(R), dx(R * n), dw(n, 0.0f);
  auto loss = [&] {
    rmsnorm_fwd(x.data(), w.data(), y.data(), r.data(), R, n, 1e-5f);
    return weighted(y, c);
  };
  loss();
  rmsnorm_bwd(x.data(), w.data(), r.data(), c.data(), dx.data(), dw.data(), R, n, false);
  const double ex = fd_error(x, dx, loss), ew = fd_error(w, dw, loss);
  MESSAGE("rmsnorm grad error x " << ex << " w " << ew);
  CHECK(ex < 1e-2);
  CHECK(ew < 1e-2);
  // accumulate adds to what is there
  std::vector<float> dx2(R * n, 1.0f), dw2(n, 0.0f);
  rmsnorm_bwd(x.data(), w.data(), r.data(), c.data(), dx2.data(), dw2.data(), R, n, true);
  for (int i = 0; i < R * n; ++i) CHECK(dx2[i] == doctest::Approx(dx[i] + 1.0f).epsilon(1e-5));
}

TEST_CASE("rope backward matches finite differences and the angle convention") {
  Rng rng(2);
  const int T = 9, H = 2, D = 8, ld = H * D + 3;
  std::vector<float> table(T * D);
  Rope rope;
  rope.init(table.data(), T, D, 10000.0f);
  auto x = rng.vec(T * ld), c = rng.vec(T * ld);
  // position 3, pair 1 of head 0 turns by 3·10000^(-2/8)
  {
    std::vector<float> e(T * ld, 0.0f);
    e[3 * ld + 2] = 1.0f;
    rope.fwd(e.data(), H, ld);
    const double a = 3.0 * std::pow(10000.0, -2.0 / 8.0);
    CHECK(e[3 * ld + 2] == doctest::Approx(std::cos(a)).epsilon(1e-5));
    CHECK(e[3 * ld + 3] == doctest::Approx(std::sin(a)).epsilon(1e-5));
  }
  std::vector<float> y;
  auto loss = [&] {
    y = x;
    rope.fwd(y.data(), H, ld);
    return weighted(y, c);
  };
  auto dx = c;
  rope.bwd(dx.data(), H, ld);
  for (int t = 0; t < T; ++t)  // the padding columns are untouched by rope, so their gradient is c
    for (int j = H * D; j < ld; ++j) CHECK(dx[t * ld + j] == c[t * ld + j]);
  const double e = fd_error(x, dx, loss);
  MESSAGE("rope grad error " << e);
  CHECK(e < 1e-2);
}

TEST_CASE("causal attention backward matches finite differences (crossing the kernels' tiles)") {
  Rng rng(3);
  const int T = 70, H = 2, D = 8, ld = H * D;
  auto q = rng.vec(T * ld), k = rng.vec(T * ld), v = rng.vec(T * ld), c = rng.vec(T * ld);
  std::vector<float> p(H * T * T), o(T * ld), dq(T * ld), dk(T * ld), dv(T * ld);
  auto loss = [&] {
    lookback::causal_attention_forward(q.data(), k.data(), v.data(), p.data(), o.data(), T, H, D, ld);
    return weighted(o, c);
  };
  loss();
  // forward agrees with the core's causal attention
  {
    lookback::AttentionShape s;
    s.T = s.S = T, s.H = s.Hkv = H, s.D = D, s.scale = 1.0f / std::sqrt(float(D)), s.causal = true;
    std::vector<float> ref(T * ld);
    lookback::attention_ref(q.data(), k.data(), v.data(), ref.data(), nullptr, s);
    CHECK(lookback::testing::closeness(o, ref, 1e-5, 1e-4) <= 1.0);
  }
  lookback::causal_attention_backward(q.data(), k.data(), v.data(), p.data(), c.data(), dq.data(), dk.data(), dv.data(),
                                      T, H, D, ld);
  const double eq = fd_error(q, dq, loss), ek = fd_error(k, dk, loss), ev = fd_error(v, dv, loss);
  MESSAGE("attention grad error q " << eq << " k " << ek << " v " << ev);
  CHECK(eq < 1e-2);
  CHECK(ek < 1e-2);
  CHECK(ev < 1e-2);
  // the future is closed: an output at t does not depend on k, v after t
  CHECK(dk[(T - 1) * ld] != 0.0f);
  std::vector<float> c0(T * ld, 0.0f);
  std::copy(c.begin(), c.begin() + 10 * ld, c0.begin());  // loss only on the first 10 outputs
  lookback::causal_attention_backward(q.data(), k.data(), v.data(), p.data(), c0.data(), dq.data(), dk.data(),
                                      dv.data(), T, H, D, ld);
  for (int i = 10 * ld; i < T * ld; ++i) {
    CHECK(dk[i] == 0.0f);
    CHECK(dv[i] == 0.0f);
  }
}

TEST_CASE("swiglu and gelu backward match finite differences") {
  Rng rng(4);
  const int n = 300;
  auto a = rng.vec(n, -4, 4), b = rng.vec(n, -2, 2), c = rng.vec(n);
  std::vector<float> g(n), da(n), db(n);
  auto loss = [&] {
    lookback::swiglu(a.data(), b.data(), g.data(), n);
    return weighted(g, c);
  };
  lookback::swiglu_backward(a.data(), b.data(), c.data(), da.data(), db.data(), n);
  const double ea = fd_error(a, da, loss), eb = fd_error(b, db, loss);
  std::vector<float> y(n), dx(n);
  auto gl = [&] {
    gelu_fwd(a.data(), y.data(), n);
    return weighted(y, c);
  };
  gelu_bwd(a.data(), c.data(), dx.data(), n);
  const double eg = fd_error(a, dx, gl);
  MESSAGE("swiglu grad error a " << ea << " b " << eb << "; gelu " << eg);
  CHECK(ea < 1e-2);
  CHECK(eb < 1e-2);
  CHECK(eg < 1e-2);
}

TEST_CASE("cross-entropy value and gradient") {
  Rng rng(5);
  const int R = 4, V = 37;
  auto x = rng.vec(R * V, -3, 3);
  std::vector<std::uint16_t> t = {0, 36, 5, 5};
  std::vector<float> work;
  auto loss = [&] {
    work = x;
    return cross_entropy(work.data(), t.data(), R, V, 1.0f);
  };
  // value against a direct log-sum-exp in double
  double ref = 0;
  for (int r = 0; r < R; ++r) {
    double s = 0;
    for (int j = 0; j < V; ++j) s += std::exp(double(x[r * V + j]));
    ref += std::log(s) - x[r * V + t[r]];
  }
  CHECK(loss() == doctest::Approx(ref).epsilon(1e-5));
  const std::vector<float> g = work;
  const double e = fd_error(x, g, loss);
  MESSAGE("cross-entropy grad error " << e);
  CHECK(e < 1e-2);
  // huge logits stay finite
  std::vector<float> big(V, 0.0f);
  big[3] = 200.0f;
  std::uint16_t tt = 4;
  CHECK(cross_entropy(big.data(), &tt, 1, V, 1.0f) == doctest::Approx(200.0).epsilon(1e-5));
}

namespace {

// Whole-model check: every tensor, a sample of its entries, against finite differences of the mean loss.
void check_model(TrainModel& m, std::uint64_t seed, float spread) {
  Rng rng(seed);
  std::vector<float> w(m.n_params());
  m.init(w.data(), seed);
  for (auto& x : w) x += rng.uniform(-spread, spread);  // away from the tiny init so every path matters
  const int T = m.seq_len(), rows = 3;
  std::vector<std::uint16_t> ids(rows * (T + 1));
  for (auto& id : ids) id = std::uint16_t(rng.next() % m.vocab());
  ids[0] = 0;
  std::vector<float> g(m.n_params()), g2(m.n_params());
  m.loss_grad(w.data(), ids.data(), rows, g.data(), 1);
#ifndef __EMSCRIPTEN__
  // threads give the same gradient up to summation order (natively: the WebAssembly build of the trainer runs
  // on one thread, wasm/compat/omp.h, and its callers ask for one)
  const double l2 = m.loss_grad(w.data(), ids.data(), rows, g2.data(), 2);
  CHECK(l2 == doctest::Approx(m.loss_grad(w.data(), ids.data(), rows, nullptr, 1)).epsilon(1e-9));
  CHECK(lookback::testing::closeness(g2, g, 1e-6, 1e-4) <= 1.0);
#endif
  for (const ParamInfo& p : m.params()) {
    std::vector<float> x(w.begin() + p.offset, w.begin() + p.offset + p.size);
    std::vector<float> gp(g.begin() + p.offset, g.begin() + p.offset + p.size);
    auto loss = [&] {
      std::copy(x.begin(), x.end(), w.begin() + p.offset);
      return m.loss_grad(w.data(), ids.data(), rows, nullptr, 1);
    };
    const double e = fd_error(x, gp, loss, 1e-2f, 24);
    std::copy(x.begin(), x.end(), w.begin() + p.offset);
    double gmax = 0;
    for (float v : gp) gmax = std::max(gmax, double(std::fabs(v)));
    MESSAGE(m.kind() << " " << p.name << " grad error " << e << " (max |g| " << gmax << ")");
    CHECK(gmax > 0);
    CHECK(e < 2e-2);
  }
}

}  // namespace

TEST_CASE("whole Sprout (small config) gradient matches finite differences") {
  auto cfg = sprout_config("small", 50);
  cfg.max_seq_len = 12;
  SproutTrain m(cfg);
  check_model(m, 11, 0.3f);
}

TEST_CASE("whole window model (small config) gradient matches finite differences") {
  auto cfg = window_config("small", 40);
  cfg.seq_len = 10;
  WindowTrain m(cfg);
  check_model(m, 12, 0.2f);
}
