// Multi-head attention on projected q, k, v, computed transposed on the matrix product's packed panels
// (simd.hpp): per key/value head, scale·K and Vᵀ are packed once as A panels (MR keys / MR channels); per
// block of NR queries, Qᵀ is packed as one B panel. The scores come out as P[key][NR queries], which is at once
// the layout of a B panel, so the blend Oᵀ = Vᵀ·P reads it unchanged, and the softmax runs down the keys with
// the NR queries across SIMD lanes. Only keys some query of the block may see are computed (the causal half
// is skipped, not computed and discarded). Without a weights output the 1/sum is applied to the D outputs.
// Grouped heads (Hkv < H) share the packed key/value head. One or two queries (decoding) go to attention_few.cpp
// instead. Not here: projections, positions or caching.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/attention_few.hpp"
#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::MR;
using simd::NR;
using simd::NV;
using simd::W;

struct Dense {
  int ldq, ldk, ldv, ldo;
  explicit Dense(const AttentionShape& a)
      : ldq(a.ldq ? a.ldq : a.H * a.D), ldk(a.ldk ? a.ldk : a.Hkv * a.D),
        ldv(a.ldv ? a.ldv : a.Hkv * a.D), ldo(a.ldo ? a.ldo : a.H * a.D) {}
};

int round_up(int x, int m) { return (x + m - 1) / m * m; }

// max(a, b) for finite values: f32x4.pmax is one instruction in V8; the SSE-emulating max is four.
inline batch vmax(const batch& a, const batch& b) {
#if defined(__wasm_simd128__)
  return batch(__m128(wasm_f32x4_pmax(v128_t(__m128(a)), v128_t(__m128(b)))));
#else
  return xsimd::max(a, b);
#endif
}

// exp(d) for d <= 0 (softmax arguments x - max): Cody-Waite reduction and Cephes' degree-5 polynomial (within
// 2 ulp of expf), 2^n added into the exponent bits. d below -86 gives exp(-86) ~ 4e-38 instead of less, which
// beside the row's exp(0) = 1 is nothing; -inf must be handled by the caller (it also gives ~4e-38).
inline batch exp_nonpositive(batch d) {
  using ibatch = xsimd::batch<std::int32_t>;
  const batch magic(12582912.0f);  // 1.5·2^23: adding it rounds to an integer in the low mantissa bits
  d = vmax(d, batch(-86.0f));
  const batch fx = d * batch(1.44269504088896341f) + magic;
  const batch n = fx - magic;
  const batch r = (d - n * batch(0.693359375f)) + n * batch(2.12194440e-4f);
  batch p = batch(1.9875691500e-4f) * r + batch(1.3981999507e-3f);
  p = p * r + batch(8.3334519073e-3f);
  p = p * r + batch(4.1665795894e-2f);
  p = p * r + batch(1.6666665459e-1f);
  p = p * r + batch(5.0000001201e-1f);
  p = p * (r * r) + r + batch(1.0f);
  const ibatch e = (xsimd::bitwise_cast<ibatch>(fx) - xsimd::bitwise_cast<ibatch>(magic)) << 23;
  return xsimd::bitwise_cast<batch>(xsimd::bitwise_cast<ibatch>(p) + e);
}

// Softmax down the keys of p[n][NR] for each of the NR query lanes, in place. Where `exact` is false every lane
// must have a finite maximum and every -inf entry must be zeroed by the caller afterwards; where it is true,
// -inf gives exactly 0 and a lane with nothing visible stays all zero. inv[j] receives 1/sum (0 for such a lane).
template <bool exact>
void softmax_columns(float* p, int n, float* inv) {
  const batch ninf(-std::numeric_limits<float>::infinity()), zero(0.0f);
  batch mx[NV], sum[NV];
  for (int v = 0; v < NV; ++v) mx[v] = ninf, sum[v] = zero;
  for (int s = 0; s < n; ++s)
    for (int v = 0; v < NV; ++v) mx[v] = vmax(mx[v], simd::load(p + s * NR + v * W));
  if (exact)
    for (int v = 0; v < NV; ++v) mx[v] = xsimd::select(mx[v] == ninf, zero, mx[v]);
  for (int s = 0; s < n; ++s)
    for (int v = 0; v < NV; ++v) {
      const batch x = simd::load(p + s * NR + v * W);
      batch e = exp_nonpositive(x - mx[v]);
      if (exact) e = xsimd::select(x == ninf, zero, e);
      simd::store(p + s * NR + v * W, e);
      sum[v] += e;
    }
  for (int v = 0; v < NV; ++v)
    simd::store(inv + v * W, xsimd::select(sum[v] > zero, batch(1.0f) / sum[v], zero));
}

// o[j, r] = tile[r, j] · inv[j] for r < n channels and j < nq queries; o has leading dimension ldo.
void store_transposed(const float* tile, int n, int nq, const float* inv, float* o, int ldo) {
  int j0 = 0;
#if defined(__wasm_simd128__)
  if (n == MR && MR >= 4) {  // channels 0-3 of four queries at a time through a 4x4 transpose
    for (; j0 + 4 <= nq; j0 += 4) {
      v128_t c[4];
      for (int r = 0; r < 4; ++r) c[r] = wasm_v128_load(tile + r * NR + j0);
      simd::transpose4(c[0], c[1], c[2], c[3]);
      for (int i = 0; i < 4; ++i) {
        float* dst = o + std::size_t(j0 + i) * ldo;
        wasm_v128_store(dst, wasm_f32x4_mul(c[i], wasm_f32x4_splat(inv[j0 + i])));
        for (int r = 4; r < MR; ++r) dst[r] = tile[r * NR + j0 + i] * inv[j0 + i];
      }
    }
  }
#endif
  for (int j = j0; j < nq; ++j)
    for (int r = 0; r < n; ++r) o[std::size_t(j) * ldo + r] = tile[r * NR + j] * inv[j];
}

}  // namespace

int attention(const float* q, const float* k, const float* v, float* out, float* weights,
              const AttentionShape& a, const std::uint8_t* mask) {
  if (a.T <= kFewQueries) return attention_few(q, k, v, out, weights, a, mask);  // decoding: no packing
  const Dense ld(a);
  const int group = a.H / a.Hkv, off = a.S - a.T, D = a.D, S = a.S, T = a.T;
  const float scale = a.scale / a.temperature, ninf = -std::numeric_limits<float>::infinity();
  const int dpanels = (D + MR - 1) / MR;
  thread_local std::vector<float> kp, vp, qp, p;
  kp.resize(std::size_t(round_up(S, MR)) * D);  // scale·K: panels of MR keys, [D][MR] each
  vp.resize(std::size_t(dpanels) * MR * S);     // Vᵀ: panels of MR channels, [S][MR] each
  qp.resize(std::size_t(D) * NR);               // Qᵀ of one block of queries, [D][NR]
  p.resize(std::size_t(round_up(S, MR)) * NR);  // scores, then weights, of one block: [key][NR]
  alignas(64) float inv[NR], tile[MR * NR];
  int empty = 0;
  for (int g = 0; g < a.Hkv; ++g) {
    const float* kg = k + g * D;
    const float* vg = v + g * D;
    for (int s0 = 0; s0 < S; s0 += MR)
      simd::pack_a(std::min(MR, S - s0), D, scale, kg + std::size_t(s0) * ld.ldk, ld.ldk, kp.data() + std::size_t(s0) * D);
    for (int c = 0; c < dpanels; ++c) {
      const int n = std::min(MR, D - c * MR);
      float* dst = vp.data() + std::size_t(c) * MR * S;
      for (int s = 0; s < S; ++s) {
        const float* src = vg + std::size_t(s) * ld.ldv + c * MR;
        if (n == MR) {
          std::memcpy(dst + s * MR, src, sizeof(float) * MR);
        } else {
          for (int r = 0; r < MR; ++r) dst[s * MR + r] = r < n ? src[r] : 0.0f;
        }
      }
    }
    for (int h = g * group; h < (g + 1) * group; ++h) {
      for (int t0 = 0; t0 < T; t0 += NR) {
        const int nq = std::min(NR, T - t0);
        // query t0 + j sees keys [0, lim(j)); the block needs keys up to its last query's limit
        auto lim = [&](int j) { return a.causal ? std::max(0, std::min(S, t0 + j + off + 1)) : S; };
        const int kmax = lim(nq - 1);
        if (kmax > 0) {
          simd::pack_b(true, D, nq, q + std::size_t(t0) * ld.ldq + h * D, ld.ldq, qp.data(), std::size_t(D) * NR);
          for (int s0 = 0; s0 < kmax; s0 += MR)
            simd::tile(MR, NR, D, kp.data() + std::size_t(s0) * D, qp.data(), p.data() + std::size_t(s0) * NR, NR, false);
          // hide what each query may not see: its causal future (a band of at most NR keys) and the caller's mask
          const int band = lim(0);
          for (int s = band; s < kmax; ++s)
            for (int j = 0; j < NR; ++j)
              if (s >= lim(j)) p[std::size_t(s) * NR + j] = ninf;
          if (mask || band == 0) {  // lanes may have nothing visible, or -inf anywhere: the exact softmax
            if (mask)
              for (int j = 0; j < nq; ++j) {
                const std::uint8_t* m = mask + std::size_t(t0 + j) * S;
                for (int s = 0, n = lim(j); s < n; ++s)
                  if (!m[s]) p[std::size_t(s) * NR + j] = ninf;
              }
            softmax_columns<true>(p.data(), kmax, inv);
          } else {  // every lane sees key 0; only the band holds -inf, zeroed again after the exponentials
            softmax_columns<false>(p.data(), kmax, inv);
            for (int s = band; s < kmax; ++s)
              for (int j = 0; j < NR; ++j)
                if (s >= lim(j)) p[std::size_t(s) * NR + j] = 0.0f;
          }
        } else {
          std::fill(inv, inv + NR, 0.0f);
        }
        for (int j = 0; j < nq; ++j) empty += inv[j] == 0.0f;
        if (weights) {
          for (int s = 0; s < kmax; ++s)
            for (int vv = 0; vv < NV; ++vv) {
              float* x = p.data() + std::size_t(s) * NR + vv * W;
              simd::store(x, simd::load(x) * simd::load(inv + vv * W));
            }
          for (int j = 0; j < nq; ++j) {
            float* dst = weights + (std::size_t(h) * T + t0 + j) * S;
            for (int s = 0; s < kmax; ++s) dst[s] = p[std::size_t(s) * NR + j];
            std::fill(dst + kmax, dst + S, 0.0f);
          }
          std::fill(inv, inv + NR, 1.0f);
        }
        // Oᵀ[channels, queries] = Vᵀ · P, one panel of MR channels at a time, stored transposed into out
        float* o = out + std::size_t(t0) * ld.ldo + h * D;
        for (int c = 0; c < dpanels; ++c) {
          const int n = std::min(MR, D - c * MR);
          if (kmax > 0) {
            simd::tile(n, NR, kmax, vp.data() + std::size_t(c) * MR * S, p.data(), tile, NR, false);
          } else {
            std::fill(tile, tile + MR * NR, 0.0f);
          }
          store_transposed(tile, n, nq, inv, o + c * MR, ld.ldo);
        }
      }
    }
  }
  return empty;
}

}  // namespace lookback
