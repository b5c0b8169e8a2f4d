// Matrix-vector product on Q8 block weights (lookback/matvec.hpp): each row of x is quantised per 32-wide
// block to int16, then four weight rows at a time take integer dot products per block (WebAssembly:
// i32x4.dot_i16x8_s on the int8 weights, eight at a time loaded into int16 lanes), scaled by the two block
// scales into float accumulators. Natively a plain loop of the same arithmetic. Not here: the quantiser
// (matvec_reference.cpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "lookback/matvec.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace lookback {
namespace {

// One row of x -> xq [Kb*32] int16 (zero-padded), xs [Kb] scales; false when the row is not finite.
bool quantize_row(const float* x, int K, std::int16_t* xq, float* xs) {
  const int Kb = q8_blocks(K);
  bool finite = true;
  for (int b = 0; b < Kb; ++b) {
    const float* xb = x + b * kQ8Block;
    const int len = std::min(kQ8Block, K - b * kQ8Block);
    float amax = 0;
    for (int i = 0; i < len; ++i) {
      finite = finite && std::isfinite(xb[i]);
      amax = std::max(amax, std::fabs(xb[i]));
    }
    const float inv = amax > 0 && finite ? 32767.0f / amax : 0.0f;
    xs[b] = amax / 32767.0f;
    for (int i = 0; i < kQ8Block; ++i) xq[b * kQ8Block + i] = i < len ? std::int16_t(std::nearbyint(xb[i] * inv)) : 0;
  }
  return finite;
}

// y[0..R) (+)= rows n..n+R of W · x for one quantised row of x.
template <int R>
void rows_dot(const std::int16_t* xq, const float* xs, int Kb, const std::int8_t* q, const float* scale, float* y,
              bool acc) {
#if defined(__wasm_simd128__)
  v128_t a[R];
  for (int r = 0; r < R; ++r) a[r] = wasm_f32x4_splat(0.0f);
  for (int b = 0; b < Kb; ++b) {
    const std::int16_t* xb = xq + b * kQ8Block;
    const v128_t x0 = wasm_v128_load(xb), x1 = wasm_v128_load(xb + 8), x2 = wasm_v128_load(xb + 16),
                 x3 = wasm_v128_load(xb + 24);
    for (int r = 0; r < R; ++r) {
      const std::int8_t* w = q + (std::size_t(r) * Kb + b) * kQ8Block;
      // eight int8 weights loaded straight into int16 lanes (one sign-extending load each, no shuffle)
      v128_t d = wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w), x0);
      d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 8), x1));
      d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 16), x2));
      d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 24), x3));
      const v128_t s = wasm_f32x4_splat(scale[std::size_t(r) * Kb + b] * xs[b]);
      a[r] = wasm_f32x4_add(a[r], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(d), s));
    }
  }
  for (int r = 0; r < R; ++r) {
    const float s = (wasm_f32x4_extract_lane(a[r], 0) + wasm_f32x4_extract_lane(a[r], 1)) +
                    (wasm_f32x4_extract_lane(a[r], 2) + wasm_f32x4_extract_lane(a[r], 3));
    y[r] = acc ? y[r] + s : s;
  }
#else
  for (int r = 0; r < R; ++r) {
    float s = 0;
    for (int b = 0; b < Kb; ++b) {
      const std::int8_t* w = q + (std::size_t(r) * Kb + b) * kQ8Block;
      std::int32_t d = 0;
      for (int i = 0; i < kQ8Block; ++i) d += std::int32_t(w[i]) * xq[b * kQ8Block + i];
      s += float(d) * (scale[std::size_t(r) * Kb + b] * xs[b]);
    }
    y[r] = acc ? y[r] + s : s;
  }
#endif
}

}  // namespace

void matvec_q8(const float* x, int M, int K, const std::int8_t* q, const float* scale, int N, float* y, bool acc,
               int ldx, int ldy, bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  if (M <= 0 || N <= 0) return;
  const int Kb = q8_blocks(K);
  thread_local std::vector<std::int16_t> xq;
  thread_local std::vector<float> xs;
  thread_local std::vector<char> finite;
  xq.resize(std::size_t(M) * Kb * kQ8Block);
  xs.resize(std::size_t(M) * Kb);
  finite.resize(std::size_t(M));
  for (int m = 0; m < M; ++m)
    finite[m] = quantize_row(x + std::size_t(m) * ldx, K, &xq[std::size_t(m) * Kb * kQ8Block], &xs[std::size_t(m) * Kb]);
  const std::size_t row = std::size_t(Kb) * kQ8Block;
  auto group = [&](int n, int R) {
    for (int m = 0; m < M; ++m) {
      const std::int16_t* xm = &xq[std::size_t(m) * row];
      const float* sm = &xs[std::size_t(m) * Kb];
      float* ym = y + std::size_t(m) * ldy + n;
      const std::int8_t* qn = q + std::size_t(n) * row;
      const float* sn = scale + std::size_t(n) * Kb;
      switch (R) {
        case 4: rows_dot<4>(xm, sm, Kb, qn, sn, ym, acc); break;
        case 3: rows_dot<3>(xm, sm, Kb, qn, sn, ym, acc); break;
        case 2: rows_dot<2>(xm, sm, Kb, qn, sn, ym, acc); break;
        default: rows_dot<1>(xm, sm, Kb, qn, sn, ym, acc); break;
      }
      if (!finite[m])
        for (int r = 0; r < R; ++r) ym[r] = NAN;
    }
  };
  int n = 0;
  if (stream)  // one weight row at a time (lookback/matvec.hpp)
    for (; n < N; ++n) group(n, 1);
  for (; n + 4 <= N; n += 4) group(n, 4);
  if (n < N) group(n, N - n);
}

}  // namespace lookback
