// Matrix-vector product on Q4 weights (lookback/matvec.hpp): x quantised per 32-wide block to 8 bits (in int16, in
// the nibbles' unpacked order, times the factor each nibble keeps), then per group of four weight rows and block
// four i32x4.dot_i16x8_s a row on nibbles masked in place, the rows' sums gathered into one vector and scaled
// once. Natively a plain loop of the same arithmetic. Also the conversion back to floats. Not here: the quantiser
// (matvec_reference.cpp) or the layout (matvec.hpp).
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

// Position p (0..31) of a block of quantised x holds weight element order(p): the nibbles of the eight int16
// lanes of a block, low to high (element 2l, 2l + 16, 2l + 1, 2l + 17 of lane l), eight lanes at a time.
constexpr int order(int p) { return 2 * (p % 8) + (p / 8 == 1 ? 16 : p / 8 == 2 ? 1 : p / 8 == 3 ? 17 : 0); }

// One quantised row of x: int16 values [Kb*32] in nibble order (lifted), per block the scale xs and the scaled sum.
struct XRow {
  const std::int16_t* q;
  const float* s;
  const float* sum;
};

// The factor of position p's x in a block: the nibble unpacked for it is 1, 16, 256 or 1 times the weight (masked
// in place, never shifted down but the top one), so that every product is 256 · q · x8.
constexpr int lift(int p) { return p < 8 ? 256 : p < 16 ? 16 : p < 24 ? 1 : 256; }

// One row of x -> xq (x8 = x · 127 / max|x| rounded to nearest even, times lift), xs (max|x| / 127 / 256, for the
// lifted sums), xsum (max|x| / 127 · Σ x8), zero-padded; false when the row is not finite.
bool quantize_row(const float* x, int K, std::int16_t* xq, float* xs, float* xsum) {
  const int Kb = q4_blocks(K);
  bool finite = true;
  for (int b = 0; b < Kb; ++b) {
    const float* xb = x + b * kQ4Block;
    const int len = std::min(kQ4Block, K - b * kQ4Block);
    const float amax = block_absmax(xb, len, finite);
    const float inv = amax > 0 && finite ? 127.0f / amax : 0.0f, scale = amax / 127.0f;
    std::int32_t sum = 0;
    for (int p = 0; p < kQ4Block; ++p) {
      const int i = order(p), v = i < len ? int(std::nearbyint(xb[i] * inv)) : 0;
      xq[b * kQ4Block + p] = std::int16_t(v * lift(p));
      sum += v;
    }
    xs[b] = scale * (1.0f / 256);
    xsum[b] = scale * float(sum);
  }
  return finite;
}

void store(float* y, int r, float v, bool acc) { y[r] = acc ? y[r] + v : v; }

#if defined(__wasm_simd128__)
// 256 · Σ q·x8 of one row's block (16 bytes of nibbles at w) with the lifted block of x in x0..x3, as four lanes.
inline v128_t block_dot(const std::uint8_t* w, v128_t x0, v128_t x1, v128_t x2, v128_t x3) {
  const v128_t v = wasm_v128_load(w);
  v128_t d = wasm_i32x4_dot_i16x8(wasm_v128_and(v, wasm_i16x8_splat(0x000F)), x0);
  d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_v128_and(v, wasm_i16x8_splat(0x00F0)), x1));
  d = wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_v128_and(v, wasm_i16x8_splat(0x0F00)), x2));
  return wasm_i32x4_add(d, wasm_i32x4_dot_i16x8(wasm_u16x8_shr(v, 12), x3));
}

// Lane r: the sum of the four lanes of d_r.
inline v128_t lane_sums(v128_t d0, v128_t d1, v128_t d2, v128_t d3) {
  const v128_t t0 = wasm_i32x4_add(wasm_i32x4_shuffle(d0, d1, 0, 4, 1, 5), wasm_i32x4_shuffle(d0, d1, 2, 6, 3, 7));
  const v128_t t1 = wasm_i32x4_add(wasm_i32x4_shuffle(d2, d3, 0, 4, 1, 5), wasm_i32x4_shuffle(d2, d3, 2, 6, 3, 7));
  return wasm_i32x4_add(wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5), wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
}

// The lane sums of the four rows' blocks at g (one row's 16 bytes after another) with a block of x.
inline v128_t block_sums(const std::uint8_t* g, const std::int16_t* xb) {
  const v128_t x0 = wasm_v128_load(xb), x1 = wasm_v128_load(xb + 8), x2 = wasm_v128_load(xb + 16),
               x3 = wasm_v128_load(xb + 24);
  return lane_sums(block_dot(g, x0, x1, x2, x3), block_dot(g + 16, x0, x1, x2, x3),
                   block_dot(g + 32, x0, x1, x2, x3), block_dot(g + 48, x0, x1, x2, x3));
}

// y[0..4) (+)= the four rows of the group at g · one quantised row of x.
void group4(const XRow& x, int Kb, const std::uint8_t* g, float* y, bool acc) {
  v128_t a = wasm_f32x4_splat(0.0f);
  for (int b = 0; b < Kb; ++b, g += kQ4Rows * kQ4BlockBytes) {
    const v128_t u = wasm_f32x4_convert_i32x4(block_sums(g, x.q + b * kQ4Block));
    const v128_t S = wasm_v128_load(g + 64), M = wasm_v128_load(g + 80);
    a = wasm_f32x4_add(a, wasm_f32x4_sub(wasm_f32x4_mul(u, wasm_f32x4_mul(S, wasm_f32x4_splat(x.s[b]))),
                                         wasm_f32x4_mul(M, wasm_f32x4_splat(x.sum[b]))));
  }
  float sums[4];
  wasm_v128_store(sums, a);
  for (int r = 0; r < 4; ++r) store(y, r, sums[r], acc);
}
#endif

// 256 · Σ q·x8 of one row's block (nibbles at w) with a lifted block of x in nibble order.
std::int32_t block_sum(const std::uint8_t* w, const std::int16_t* xb) {
#if defined(__wasm_simd128__)
  const v128_t d = block_dot(w, wasm_v128_load(xb), wasm_v128_load(xb + 8), wasm_v128_load(xb + 16),
                             wasm_v128_load(xb + 24));
  return (wasm_i32x4_extract_lane(d, 0) + wasm_i32x4_extract_lane(d, 1)) +
         (wasm_i32x4_extract_lane(d, 2) + wasm_i32x4_extract_lane(d, 3));
#else
  std::int32_t sum = 0;
  for (int l = 0; l < 8; ++l) {
    const int lane = w[2 * l] | w[2 * l + 1] << 8;
    sum += (lane & 0x000F) * xb[l] + (lane & 0x00F0) * xb[8 + l] + (lane & 0x0F00) * xb[16 + l] +
           (lane >> 12) * xb[24 + l];
  }
  return sum;
#endif
}

// y[0..R) (+)= the R rows of the group at g · one quantised row of x, one row after another (R < 4: the last
// group of a matrix; natively every group). The same sums, in the same order, as group4.
void group_rows(const XRow& x, int Kb, const std::uint8_t* g, int R, float* y, bool acc) {
  const std::size_t block = std::size_t(R) * kQ4BlockBytes;
  for (int r = 0; r < R; ++r) {
    float a = 0;
    for (int b = 0; b < Kb; ++b) {
      const std::uint8_t* w = g + b * block;
      const float u = float(block_sum(w + 16 * r, x.q + b * kQ4Block));
      a += u * (q4_float(w, 16 * R + 4 * r) * x.s[b]) - q4_float(w, 20 * R + 4 * r) * x.sum[b];
    }
    store(y, r, a, acc);
  }
}

}  // namespace

void dequantize_q4(const std::uint8_t* q, int N, int K, float* out) {
  const int Kb = q4_blocks(K);
  for (int n = 0; n < N; n += kQ4Rows) {
    const int R = std::min(kQ4Rows, N - n);
    const std::uint8_t* g = q4_rows(q, K, n);
    for (int b = 0; b < Kb; ++b, g += R * kQ4BlockBytes) {
      const int len = std::min(kQ4Block, K - b * kQ4Block), low = std::min(len, 16);
      for (int r = 0; r < R; ++r) {
        const float S = q4_float(g, 16 * R + 4 * r), M = q4_float(g, 20 * R + 4 * r);
        const std::uint8_t* w = g + 16 * r;
        float* o = out + std::size_t(n + r) * K + b * kQ4Block;
        for (int i = 0; i < low; ++i) o[i] = S * float(w[i] & 15) - M;
        for (int i = 16; i < len; ++i) o[i] = S * float(w[i - 16] >> 4) - M;
      }
    }
  }
}

void matvec_q4(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool acc, int ldx, int ldy) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  if (M <= 0 || N <= 0) return;
  const int Kb = q4_blocks(K);
  thread_local std::vector<std::int16_t> xq;
  thread_local std::vector<float> xs;
  thread_local std::vector<char> finite;
  xq.resize(std::size_t(M) * Kb * kQ4Block);
  xs.resize(std::size_t(M) * Kb * 2);  // per row: the scales, then the scaled sums
  thread_local std::vector<XRow> rows;
  finite.resize(std::size_t(M));
  rows.resize(std::size_t(M));
  for (int m = 0; m < M; ++m) {
    std::int16_t* xm = &xq[std::size_t(m) * Kb * kQ4Block];
    float* sm = &xs[std::size_t(m) * Kb * 2];
    finite[m] = quantize_row(x + std::size_t(m) * ldx, K, xm, sm, sm + Kb);
    rows[m] = {xm, sm, sm + Kb};
  }
  for (int n = 0; n < N; n += kQ4Rows) {  // a group stays in L1 while every row of x passes over it
    const int R = std::min(kQ4Rows, N - n);
    const std::uint8_t* g = q4_rows(q, K, n);
    for (int m = 0; m < M; ++m) {
      float* ym = y + std::size_t(m) * ldy + n;
#if defined(__wasm_simd128__)
      if (R == kQ4Rows)
        group4(rows[m], Kb, g, ym, acc);
      else
#endif
        group_rows(rows[m], Kb, g, R, ym, acc);
      if (!finite[m])
        for (int r = 0; r < R; ++r) ym[r] = NAN;
    }
  }
}

}  // namespace lookback
