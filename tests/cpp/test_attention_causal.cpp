// Training attention (causal_attention_forward/backward) against its scalar `_ref` twins: sizes around the
// vector width and the tile's rows and columns, strided rows, logits near 100, and bit-identical reruns.
// Runs natively and in WebAssembly under Node (the same file, two builds).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lookback/kernels.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::closeness;
using lookback::testing::Rng;

namespace {

struct Case {
  int T, H, D, ld;
  std::vector<float> q, k, v, dout;
  Case(int T_, int H_, int D_, Rng& rng, float spread) : T(T_), H(H_), D(D_), ld(H_ * D_ + 3) {
    const std::size_t n = std::size_t(T) * ld;
    q = rng.vec(n, -spread, spread), k = rng.vec(n, -spread, spread), v = rng.vec(n), dout = rng.vec(n);
  }
  std::size_t size() const { return std::size_t(T) * ld; }
};

// Runs both twins on c; returns the worst closeness of p, o (forward) and dq, dk, dv (backward, both from the
// kernel's p), each within atol + rtol·|reference|.
void check_against_ref(const Case& c, double atol, double rtol) {
  const std::size_t n = c.size(), np = std::size_t(c.H) * c.T * c.T;
  std::vector<float> p1(np, 9.0f), p2(np), o1(n, 0.0f), o2(n, 0.0f);
  causal_attention_forward(c.q.data(), c.k.data(), c.v.data(), p1.data(), o1.data(), c.T, c.H, c.D, c.ld);
  causal_attention_forward_ref(c.q.data(), c.k.data(), c.v.data(), p2.data(), o2.data(), c.T, c.H, c.D, c.ld);
  CHECK(closeness(p1, p2, atol, rtol) <= 1.0);
  CHECK(closeness(o1, o2, atol, rtol) <= 1.0);
  std::vector<float> g1[3], g2[3];
  for (int i = 0; i < 3; ++i) g1[i].assign(n, 0.0f), g2[i].assign(n, 0.0f);
  causal_attention_backward(c.q.data(), c.k.data(), c.v.data(), p1.data(), c.dout.data(), g1[0].data(),
                            g1[1].data(), g1[2].data(), c.T, c.H, c.D, c.ld);
  causal_attention_backward_ref(c.q.data(), c.k.data(), c.v.data(), p1.data(), c.dout.data(), g2[0].data(),
                                g2[1].data(), g2[2].data(), c.T, c.H, c.D, c.ld);
  for (int i = 0; i < 3; ++i) {
    INFO("gradient " << "qkv"[i]);
    CHECK(closeness(g1[i], g2[i], atol, rtol) <= 1.0);
  }
}

}  // namespace

TEST_CASE("causal attention for training matches its reference around the vector width and the tile sizes") {
  Rng rng(71);
  const int w = int(simd_width());
  // T crosses the tile's rows (5 or 6) and columns (2 or 4 vectors); D crosses the vector width
  for (int T : {1, 2, 5, 6, 7, 2 * w - 1, 2 * w + 1, 4 * w + 3, 37, 70})
    for (int D : {1, w - 1, w, w + 1, 2 * w + 3, 32, 48}) {
      INFO("T=" << T << " D=" << D);
      Case c(T, 2, D, rng, 1.0f);
      check_against_ref(c, 1e-5, 1e-4);
    }
}

TEST_CASE("causal attention for training with logits near 100, long rows, and a rerun gives the same bits") {
  Rng rng(72);
  for (int D : {32, 48}) {
    INFO("D=" << D);
    // q·k / sqrt(D) reaches about ±100: each weight row is nearly one-hot, nothing overflows
    const float spread = 10.0f;
    Case hot(40, 2, D, rng, spread);
    check_against_ref(hot, 1e-5, 1e-4);
    Case longer(300, 1, D, rng, 1.0f);
    check_against_ref(longer, 1e-5, 2e-4);
    // the same inputs twice: identical bits (fixed order of every sum)
    const std::size_t n = longer.size(), np = std::size_t(longer.T) * longer.T;
    std::vector<float> p[2], o[2], dq[2], dk[2], dv[2];
    for (int r = 0; r < 2; ++r) {
      p[r].assign(np, 0.0f), o[r].assign(n, 0.0f), dq[r].assign(n, 0.0f), dk[r].assign(n, 0.0f), dv[r].assign(n, 0.0f);
      causal_attention_forward(longer.q.data(), longer.k.data(), longer.v.data(), p[r].data(), o[r].data(),
                               longer.T, 1, D, longer.ld);
      causal_attention_backward(longer.q.data(), longer.k.data(), longer.v.data(), p[r].data(), longer.dout.data(),
                                dq[r].data(), dk[r].data(), dv[r].data(), longer.T, 1, D, longer.ld);
    }
    CHECK(p[0] == p[1]);
    CHECK(o[0] == o[1]);
    CHECK(dq[0] == dq[1]);
    CHECK(dk[0] == dk[1]);
    CHECK(dv[0] == dv[1]);
  }
  // one key far above the rest in every row: the weights are one-hot, the gradients finite
  Case sharp(20, 1, 16, rng, 1.0f);
  for (int t = 0; t < sharp.T; ++t)
    for (int d = 0; d < 16; ++d) sharp.q[std::size_t(t) * sharp.ld + d] = 10.0f, sharp.k[std::size_t(t) * sharp.ld + d] = t == 0 ? 10.0f : -10.0f;
  check_against_ref(sharp, 1e-5, 1e-4);
}
