// Matrix-vector product on IEEE half weights (lookback/matvec.hpp), converted to float in registers: four
// weight rows at a time, eight halves per load. WebAssembly has no half conversion; the bits of a half h
// placed at the top of an int32 lane, shifted right by 3 (arithmetically) and masked with 0x8FFFE000, are the
// float h · 2^-112, exact for every finite half (subnormal halves become float subnormals: exact, but slow on
// x86, so the model flushes them at load). The even halves of a load come from a left shift by 16 first,
// the odd ones need none, so x is read in the same order: each 8-wide group of x is stored evens then odds,
// times 2^112 (rows of x with |x| >= 2^15 go through a path that multiplies each weight by 2^112 instead).
// Natively a plain loop. Not here: the float32 and Q8 formats.
#include <cmath>
#include <vector>

#include "lookback/matvec.hpp"
#include "base/fp16.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace lookback {
namespace {

constexpr float kTwo112 = 0x1p112f;

#if defined(__wasm_simd128__)
// Eight halves -> the even four and the odd four as floats times 2^-112.
inline void halves_scaled(v128_t h, v128_t& even, v128_t& odd) {
  const v128_t mask = wasm_i32x4_splat(int(0x8FFFE000u));
  even = wasm_v128_and(wasm_i32x4_shr(wasm_i32x4_shl(h, 16), 3), mask);
  odd = wasm_v128_and(wasm_i32x4_shr(h, 3), mask);
}
#endif

// y[0..R) (+)= W[r]·x for R consecutive half rows (row stride K). xp: x in groups of 8 (evens, odds) times
// 2^112, or null: then x as it is and each weight times 2^112.
template <int R>
void rows_dot(const float* x, const float* xp, int K, const std::uint16_t* Wr, float* y, bool acc) {
  int k = 0;
  float s[R] = {};
#if defined(__wasm_simd128__)
  v128_t a[R][2];
  for (int r = 0; r < R; ++r) a[r][0] = a[r][1] = wasm_f32x4_splat(0.0f);
  if (xp) {
    for (; k + 8 <= K; k += 8) {
      const v128_t xe = wasm_v128_load(xp + k), xo = wasm_v128_load(xp + k + 4);
      for (int r = 0; r < R; ++r) {
        v128_t we, wo;
        halves_scaled(wasm_v128_load(Wr + std::size_t(r) * K + k), we, wo);
        a[r][0] = wasm_f32x4_add(a[r][0], wasm_f32x4_mul(we, xe));
        a[r][1] = wasm_f32x4_add(a[r][1], wasm_f32x4_mul(wo, xo));
      }
    }
  } else {
    const v128_t two112 = wasm_f32x4_splat(kTwo112);
    for (; k + 8 <= K; k += 8) {
      const v128_t xe = wasm_i32x4_shuffle(wasm_v128_load(x + k), wasm_v128_load(x + k + 4), 0, 2, 4, 6);
      const v128_t xo = wasm_i32x4_shuffle(wasm_v128_load(x + k), wasm_v128_load(x + k + 4), 1, 3, 5, 7);
      for (int r = 0; r < R; ++r) {
        v128_t we, wo;
        halves_scaled(wasm_v128_load(Wr + std::size_t(r) * K + k), we, wo);
        a[r][0] = wasm_f32x4_add(a[r][0], wasm_f32x4_mul(wasm_f32x4_mul(we, two112), xe));
        a[r][1] = wasm_f32x4_add(a[r][1], wasm_f32x4_mul(wasm_f32x4_mul(wo, two112), xo));
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    const v128_t v = wasm_f32x4_add(a[r][0], a[r][1]);
    s[r] = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
           (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
  }
#else
  (void)xp;
#endif
  for (int r = 0; r < R; ++r) {
    for (int i = k; i < K; ++i) s[r] += half_to_float(Wr[std::size_t(r) * K + i]) * x[i];
    y[r] = acc ? y[r] + s[r] : s[r];
  }
}

// x [K] -> xp: every full group of 8 as its evens then its odds, times 2^112; false (xp unused) when some
// |x| >= 2^15 or is not finite (the product would overflow).
bool prepare_x(const float* x, int K, float* xp) {
  for (int k = 0; k < K; ++k)
    if (!(std::fabs(x[k]) < 32768.0f)) return false;
  for (int k = 0; k + 8 <= K; k += 8)
    for (int i = 0; i < 4; ++i) xp[k + i] = x[k + 2 * i] * kTwo112, xp[k + 4 + i] = x[k + 2 * i + 1] * kTwo112;
  return true;
}

}  // namespace

void matvec_f16(const float* x, int M, int K, const std::uint16_t* Wt, int N, float* y, bool acc, int ldx, int ldy,
                bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  if (M <= 0 || N <= 0) return;
  thread_local std::vector<float> xp_all;
  thread_local std::vector<const float*> xp;
  xp_all.resize(std::size_t(M) * K);
  xp.resize(std::size_t(M));
  for (int m = 0; m < M; ++m)
    xp[m] = prepare_x(x + std::size_t(m) * ldx, K, &xp_all[std::size_t(m) * K]) ? &xp_all[std::size_t(m) * K] : nullptr;
  auto group = [&](int n, int R) {
    for (int m = 0; m < M; ++m) {
      const float* xm = x + std::size_t(m) * ldx;
      float* ym = y + std::size_t(m) * ldy + n;
      const std::uint16_t* Wn = Wt + std::size_t(n) * K;
      switch (R) {
        case 4: rows_dot<4>(xm, xp[m], K, Wn, ym, acc); break;
        case 3: rows_dot<3>(xm, xp[m], K, Wn, ym, acc); break;
        case 2: rows_dot<2>(xm, xp[m], K, Wn, ym, acc); break;
        default: rows_dot<1>(xm, xp[m], K, Wn, ym, acc); break;
      }
    }
  };
  int n = 0;
  if (stream)  // one weight row at a time (lookback/matvec.hpp)
    for (; n < N; ++n) group(n, 1);
  for (; n + 4 <= N; n += 4) group(n, 4);
  if (n < N) group(n, N - n);
}

}  // namespace lookback
