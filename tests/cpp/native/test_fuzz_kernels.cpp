// Fuzzing of the attention kernels with extreme finite floats (float32's largest values, denormals, signed zeros,
// -inf where a softmax allows it), with temperatures and scales over the whole stated range and inputs drawn up to
// the bounds of lookback/float_limits.hpp: every output must be finite (no NaN, no Infinity), for the SIMD kernels
// and their scalar twins. Meant for the AddressSanitizer + UBSan build too; LOOKBACK_FUZZ_ITERATIONS and
// LOOKBACK_FUZZ_SEED set the campaign. Native only. Not the bindings' refusals (tests/js/fuzz.test.mjs).
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "lookback/float_limits.hpp"
#include "lookback/kernels.hpp"
#include "model/rng.hpp"

using namespace lookback;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kIterations = env_int("LOOKBACK_FUZZ_ITERATIONS", 3000);
const std::uint64_t kSeed = std::uint64_t(env_int("LOOKBACK_FUZZ_SEED", 0)) * 1000;

const float kExtremes[] = {0.0f, -0.0f, 1.0f, -1.0f, FLT_MAX, -FLT_MAX, 1e38f, -1e30f, 1e20f, -1e10f, FLT_MIN,
                           -FLT_MIN, 1e-45f, -1e-45f, 1e-30f, 0.5f, 3.0f};

int between(Rng& r, int lo, int hi) { return lo + int(r.next() % std::uint64_t(hi - lo + 1)); }

// n floats: ordinary values, and with probability `wild` an extreme one; then scaled down so that the largest
// magnitude is at most `limit`.
std::vector<float> draw(Rng& r, std::size_t n, double wild, double limit = FLT_MAX) {
  std::vector<float> v(n);
  for (auto& x : v) x = r.uniform() < wild ? kExtremes[r.next() % (sizeof kExtremes / 4)] : (r.uniform() - 0.5f) * 8;
  const double m = max_abs(v.data(), n);
  if (m > limit)
    for (auto& x : v) x = float(double(x) * (limit / m));
  return v;
}

// A temperature or scale over the stated range, log-uniform, often at its ends.
double log_uniform(Rng& r, double lo, double hi) {
  const double u = r.uniform_double();
  if (u < 0.1) return lo;
  if (u < 0.2) return hi;
  return std::exp(std::log(lo) + r.uniform_double() * (std::log(hi) - std::log(lo)));
}

void all_finite(const std::vector<float>& v, const char* what, int i) {
  for (std::size_t j = 0; j < v.size(); ++j)
    if (!std::isfinite(v[j])) FAIL(what << " #" << i << ": element " << j << " is " << v[j]);
}

}  // namespace

TEST_CASE("fuzz: softmax_rows on extreme finite floats and -inf, temperatures over the stated range") {
  Rng r(kSeed + 71);
  for (int i = 0; i < kIterations; ++i) {
    const int R = between(r, 1, 4), C = between(r, 1, 37);
    auto x = draw(r, std::size_t(R) * C, r.uniform());
    for (auto& v : x)
      if (r.uniform() < 0.1f) v = -INFINITY;
    const float t = float(log_uniform(r, kMinTemperature, kMaxTemperature));
    auto y = x;
    softmax_rows(x.data(), R, C, t);
    softmax_rows_ref(y.data(), R, C, t);
    all_finite(x, "softmax_rows", i);
    all_finite(y, "softmax_rows_ref", i);
  }
  MESSAGE("softmax_rows: " << kIterations << " extreme cases, all finite");
}

TEST_CASE("fuzz: attention on extreme finite floats within the stated bounds") {
  Rng r(kSeed + 72);
  for (int i = 0; i < kIterations; ++i) {
    AttentionShape a;
    a.T = between(r, 1, 11), a.S = a.T + between(r, 0, 5), a.Hkv = between(r, 1, 2), a.H = a.Hkv * between(r, 1, 2);
    a.D = between(r, 1, 13);
    a.causal = r.uniform() < 0.5f;
    a.temperature = float(log_uniform(r, kMinTemperature, kMaxTemperature));
    const double s = std::min(log_uniform(r, 1e-30, kMaxScale), kMaxResult * double(a.temperature));
    a.scale = float(r.uniform() < 0.5f ? s : -s);
    const double eff = std::fabs(double(a.scale)) / double(a.temperature);
    // q and k up to what keeps scale·k and every score under kMaxResult; v up to what keeps S·|v| under it
    const double kmax = std::min(double(FLT_MAX), kMaxResult / std::max(eff, 1e-300));
    auto k = draw(r, std::size_t(a.S) * a.Hkv * a.D, r.uniform(), kmax);
    const double mk = std::max(max_abs(k.data(), k.size()), 1e-300);
    auto q = draw(r, std::size_t(a.T) * a.H * a.D, r.uniform(), std::min(double(FLT_MAX), kMaxResult / (a.D * mk * eff)));
    auto v = draw(r, std::size_t(a.S) * a.Hkv * a.D, r.uniform(), kMaxResult / a.S);
    std::vector<std::uint8_t> mask(std::size_t(a.T) * a.S);
    for (auto& m : mask) m = r.uniform() < 0.8f;
    const std::uint8_t* mp = r.uniform() < 0.3f ? mask.data() : nullptr;
    std::vector<float> out(std::size_t(a.T) * a.H * a.D), w(std::size_t(a.H) * a.T * a.S), out2 = out, w2 = w;
    attention(q.data(), k.data(), v.data(), out.data(), r.uniform() < 0.5f ? w.data() : nullptr, a, mp);
    attention_ref(q.data(), k.data(), v.data(), out2.data(), w2.data(), a, mp);
    all_finite(out, "attention", i);
    all_finite(w, "attention weights", i);
    all_finite(out2, "attention_ref", i);
    all_finite(w2, "attention_ref weights", i);
  }
  MESSAGE("attention: " << kIterations << " extreme cases, all finite");
}

TEST_CASE("fuzz: scores, blend, gemm and dot on extreme finite floats within the stated bounds") {
  Rng r(kSeed + 73);
  for (int i = 0; i < kIterations; ++i) {
    const int T = between(r, 1, 9), S = between(r, 1, 9), H = between(r, 1, 3), D = between(r, 1, 11);
    const double scale = log_uniform(r, 1e-30, kMaxScale);
    auto k = draw(r, std::size_t(S) * H * D, r.uniform(), std::sqrt(kMaxResult / D));
    auto q = draw(r, std::size_t(T) * H * D, r.uniform(), std::sqrt(kMaxResult / D));
    const double worst = worst_score(D, max_abs(q.data(), q.size()), max_abs(k.data(), k.size()), scale);
    const float sc = float(worst > kMaxResult ? scale * kMaxResult / worst : scale);
    std::vector<float> s(std::size_t(H) * T * S), s2 = s;
    scores(q.data(), k.data(), s.data(), T, S, H, D, sc);
    scores_ref(q.data(), k.data(), s2.data(), T, S, H, D, sc);
    all_finite(s, "scores", i);
    all_finite(s2, "scores_ref", i);
    auto w = draw(r, std::size_t(H) * T * S, r.uniform(), 1.0);
    auto v = draw(r, std::size_t(S) * H * D, r.uniform(), kMaxResult / S);
    std::vector<float> o(std::size_t(T) * H * D), o2 = o;
    blend(w.data(), v.data(), o.data(), T, S, H, D);
    blend_ref(w.data(), v.data(), o2.data(), T, S, H, D);
    all_finite(o, "blend", i);
    all_finite(o2, "blend_ref", i);
    const int M = T, N = S, K = D;
    auto A = draw(r, std::size_t(M) * K, r.uniform(), std::sqrt(kMaxResult / K));
    auto B = draw(r, std::size_t(K) * N, r.uniform(), std::sqrt(kMaxResult / K));
    std::vector<float> c(std::size_t(M) * N), c2 = c;
    gemm_nn(M, N, K, A.data(), K, B.data(), N, c.data(), N, false);
    gemm_nn_ref(M, N, K, A.data(), K, B.data(), N, c2.data(), N, false);
    all_finite(c, "gemm_nn", i);
    all_finite(c2, "gemm_nn_ref", i);
    const float d = dot(A.data(), A.data(), int(A.size()) < K ? int(A.size()) : K);
    if (!std::isfinite(d)) FAIL("dot #" << i << " is " << d);
  }
  MESSAGE("scores, blend, gemm, dot: " << kIterations << " extreme cases each, all finite");
}
