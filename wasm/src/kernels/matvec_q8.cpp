// Matrix-vector product on Q8 weights (lookback/matvec.hpp): each row of x is quantised per 32-wide block to
// int16, then each group of four weight rows takes integer dot products per block (WebAssembly:
// i32x4.dot_i16x8_s on the int8 weights, eight at a time loaded into int16 lanes); the four rows' block sums are
// gathered into one vector, so one conversion, one scale product and one add per block serve four rows. The
// groups are read front to back, one stream. Natively a plain loop of the same arithmetic. Also the conversion
// back to floats (for the many-row products). Not here: the quantiser (matvec_reference.cpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/absmax.hpp"
#include "lookback/matvec.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace lookback {
namespace {

constexpr int kQ8Stride = kQ8Block + 4;  // bytes per row and block: 32 weights and a float scale

// One row of x -> xq [Kb*32] int16 (zero-padded), xs [Kb] scales; false when the row is not finite.
bool quantize_row(const float* x, int K, std::int16_t* xq, float* xs) {
  const int Kb = q8_blocks(K);
  bool finite = true;
  for (int b = 0; b < Kb; ++b) {
    const float* xb = x + b * kQ8Block;
    const int len = std::min(kQ8Block, K - b * kQ8Block);
    const float amax = block_absmax(xb, len, finite);
    const float inv = amax > 0 && finite ? 32767.0f / amax : 0.0f;
    xs[b] = amax / 32767.0f;
    for (int i = 0; i < kQ8Block; ++i) xq[b * kQ8Block + i] = i < len ? std::int16_t(std::nearbyint(xb[i] * inv)) : 0;
  }
  return finite;
}

void store(float* y, int r, float v, bool acc) { y[r] = acc ? y[r] + v : v; }

#if defined(__wasm_simd128__)
// Integer sum of one row's block (32 int8 weights at w) with the block of x in x0..x3, as four lanes.
inline v128_t block_dot(const std::int8_t* w, v128_t x0, v128_t x1, v128_t x2, v128_t x3) {
  // eight int8 weights loaded straight into int16 lanes (one sign-extending load each, no shuffle)
  v128_t d = wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w), x0);
  d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 8), x1));
  d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 16), x2));
  return wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(w + 24), x3));
}

// y[0..4) (+)= the four rows of the group at g · one quantised row of x.
void group4(const std::int16_t* xq, const float* xs, int Kb, const std::int8_t* g, float* y, bool acc) {
  v128_t a = wasm_f32x4_splat(0.0f);
  for (int b = 0; b < Kb; ++b, g += kQ8Rows * kQ8Stride) {
    const std::int16_t* xb = xq + b * kQ8Block;
    const v128_t x0 = wasm_v128_load(xb), x1 = wasm_v128_load(xb + 8), x2 = wasm_v128_load(xb + 16),
                 x3 = wasm_v128_load(xb + 24);
    const v128_t d0 = block_dot(g, x0, x1, x2, x3), d1 = block_dot(g + 32, x0, x1, x2, x3),
                 d2 = block_dot(g + 64, x0, x1, x2, x3), d3 = block_dot(g + 96, x0, x1, x2, x3);
    // lanes summed across the four rows: lane r of u is row r's exact block sum
    const v128_t t0 = wasm_i32x4_add(wasm_i32x4_shuffle(d0, d1, 0, 4, 1, 5), wasm_i32x4_shuffle(d0, d1, 2, 6, 3, 7));
    const v128_t t1 = wasm_i32x4_add(wasm_i32x4_shuffle(d2, d3, 0, 4, 1, 5), wasm_i32x4_shuffle(d2, d3, 2, 6, 3, 7));
    const v128_t u = wasm_i32x4_add(wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5), wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
    const v128_t s = wasm_f32x4_mul(wasm_v128_load(g + kQ8Rows * kQ8Block), wasm_f32x4_splat(xs[b]));
    a = wasm_f32x4_add(a, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(u), s));
  }
  float sums[4];
  wasm_v128_store(sums, a);
  for (int r = 0; r < 4; ++r) store(y, r, sums[r], acc);
}
#endif

// y[0..R) (+)= the R rows of the group at g · one quantised row of x, one row after another (R < 4: the last
// group of a matrix; natively every group).
void group_rows(const std::int16_t* xq, const float* xs, int Kb, const std::int8_t* g, int R, float* y, bool acc) {
  const std::size_t block = std::size_t(R) * kQ8Stride;
  for (int r = 0; r < R; ++r) {
    float a = 0;
    for (int b = 0; b < Kb; ++b) {
      const std::int8_t* w = g + b * block + r * kQ8Block;
      const std::int16_t* xb = xq + b * kQ8Block;
#if defined(__wasm_simd128__)
      const v128_t d = block_dot(w, wasm_v128_load(xb), wasm_v128_load(xb + 8), wasm_v128_load(xb + 16),
                                 wasm_v128_load(xb + 24));
      const std::int32_t sum = (wasm_i32x4_extract_lane(d, 0) + wasm_i32x4_extract_lane(d, 1)) +
                               (wasm_i32x4_extract_lane(d, 2) + wasm_i32x4_extract_lane(d, 3));
#else
      std::int32_t sum = 0;
      for (int i = 0; i < kQ8Block; ++i) sum += std::int32_t(w[i]) * xb[i];
#endif
      a += float(sum) * (q8_scale(g, b * block + R * kQ8Block + r * 4) * xs[b]);
    }
    store(y, r, a, acc);
  }
}

}  // namespace

void dequantize_q8(const std::int8_t* q, int N, int K, float* out) {
  const int Kb = q8_blocks(K);
  for (int n = 0; n < N; n += kQ8Rows) {
    const int R = std::min(kQ8Rows, N - n);
    const std::int8_t* g = q8_rows(q, K, n);
    for (int b = 0; b < Kb; ++b, g += R * kQ8Stride) {
      const int len = std::min(kQ8Block, K - b * kQ8Block);
      for (int r = 0; r < R; ++r) {
        const float s = q8_scale(g, R * kQ8Block + r * 4);
        const std::int8_t* w = g + r * kQ8Block;
        float* o = out + std::size_t(n + r) * K + b * kQ8Block;
        for (int i = 0; i < len; ++i) o[i] = s * float(w[i]);
      }
    }
  }
}

void matvec_q8(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool acc, int ldx, int ldy) {
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
  for (int n = 0; n < N; n += kQ8Rows) {  // a group stays in L1 while every row of x passes over it
    const int R = std::min(kQ8Rows, N - n);
    const std::int8_t* g = q8_rows(q, K, n);
    for (int m = 0; m < M; ++m) {
      const std::int16_t* xm = &xq[std::size_t(m) * Kb * kQ8Block];
      const float* sm = &xs[std::size_t(m) * Kb];
      float* ym = y + std::size_t(m) * ldy + n;
#if defined(__wasm_simd128__)
      if (R == kQ8Rows)
        group4(xm, sm, Kb, g, ym, acc);
      else
#endif
        group_rows(xm, sm, Kb, g, R, ym, acc);
      if (!finite[m])
        for (int r = 0; r < R; ++r) ym[r] = NAN;
    }
  }
}

}  // namespace lookback
