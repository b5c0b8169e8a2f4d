// Attention for a few queries (kernels/attention_few.hpp): per (head, query) row, the scores as dot products
// over D with K read in place (scaled first), the softmax across the keys in SIMD batches (simd_exp.hpp), and the output as the
// weighted sum of V's rows, vectorised over D. Hidden keys (the causal future, the mask) get weight exactly 0; a
// row with none visible gives zero output and counts as empty. Not here: many queries (attention.cpp).
#include "kernels/attention_few.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/simd.hpp"
// GCC 12 sees AVX-512 intrinsics inside simd::exp as "maybe uninitialized" when inlined here (a false positive
// in its own headers; softmax.cpp inlines the same exp without it).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "kernels/simd_exp.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;

// q·(scale·k), scaling k first as the packed kernel does: the argument checks bound scale·k and the scores,
// not the unscaled products, which a tiny scale may let pass float32.
float score(const float* q, const float* k, float scale, int D) {
  batch acc(0.0f);
  const batch sc(scale);
  int d = 0;
  for (; d + W <= D; d += W) acc = xsimd::fma(simd::load(q + d), simd::load(k + d) * sc, acc);
  float s = simd::sum(acc);
  for (; d < D; ++d) s += q[d] * (scale * k[d]);
  return s;
}

// p[0..n) -> softmax weights in place (-inf entries give 0); returns 1/sum, or 0 when nothing is visible.
float softmax_row(float* p, int n) {
  const float ninf = -std::numeric_limits<float>::infinity();
  float mx = ninf;
  for (int s = 0; s < n; ++s) mx = std::max(mx, p[s]);
  if (mx == ninf) {
    std::fill(p, p + n, 0.0f);
    return 0.0f;
  }
  const batch m(mx);
  batch sum(0.0f);
  int s = 0;
  for (; s + W <= n; s += W) {
    const batch e = simd::exp(simd::load(p + s) - m);
    simd::store(p + s, e);
    sum += e;
  }
  float total = simd::sum(sum);
  for (; s < n; ++s) total += (p[s] = std::exp(p[s] - mx));
  return 1.0f / total;
}

}  // namespace

int attention_few(const float* q, const float* k, const float* v, float* out, float* weights, const AttentionShape& a,
                  const std::uint8_t* mask) {
  const int T = a.T, S = a.S, D = a.D, group = a.H / a.Hkv, off = S - T;
  const int ldq = a.ldq ? a.ldq : a.H * D, ldk = a.ldk ? a.ldk : a.Hkv * D, ldv = a.ldv ? a.ldv : a.Hkv * D,
            ldo = a.ldo ? a.ldo : a.H * D;
  const float scale = a.scale / a.temperature, ninf = -std::numeric_limits<float>::infinity();
  thread_local std::vector<float> p;
  p.resize(std::size_t(S));
  int empty = 0;
  for (int h = 0; h < a.H; ++h) {
    const float* kh = k + std::size_t(h / group) * D;
    const float* vh = v + std::size_t(h / group) * D;
    for (int t = 0; t < T; ++t) {
      const float* qt = q + std::size_t(t) * ldq + std::size_t(h) * D;
      const int n = a.causal ? std::max(0, std::min(S, t + off + 1)) : S;  // keys this query may see
      const std::uint8_t* m = mask ? mask + std::size_t(t) * S : nullptr;
      for (int s = 0; s < n; ++s)
        p[s] = (m && !m[s]) ? ninf : score(qt, kh + std::size_t(s) * ldk, scale, D);
      const float inv = softmax_row(p.data(), n);
      empty += inv == 0.0f;
      float* o = out + std::size_t(t) * ldo + std::size_t(h) * D;
      std::fill(o, o + D, 0.0f);
      for (int s = 0; s < n; ++s) {
        const float w = p[s] * inv;
        if (w == 0.0f) continue;
        const float* vs = vh + std::size_t(s) * ldv;
        int d = 0;
        for (; d + W <= D; d += W) simd::store(o + d, xsimd::fma(batch(w), simd::load(vs + d), simd::load(o + d)));
        for (; d < D; ++d) o[d] += w * vs[d];
      }
      if (weights) {
        float* dst = weights + (std::size_t(h) * T + t) * S;
        for (int s = 0; s < n; ++s) dst[s] = p[s] * inv;
        std::fill(dst + n, dst + S, 0.0f);
      }
    }
  }
  return empty;
}

}  // namespace lookback
