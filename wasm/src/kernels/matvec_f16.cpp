// Matrix-vector product on IEEE half weights (lookback/matvec.hpp), converted to float in registers: four
// weight rows at a time, eight halves per load. WebAssembly has no half conversion, so a half h becomes
// float bits ((sign-extended h) << 13) & 0x8FFFE000 times 2^112: exact for every finite half (subnormal
// halves pass through a float subnormal, exact but slow on x86; the model flushes them at load). Natively a
// plain loop. Not here: the float32 and Q8 formats.
#include "lookback/matvec.hpp"
#include "model/fp16.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace lookback {
namespace {

#if defined(__wasm_simd128__)
// Four halves (sign-extended to int32) -> four floats.
inline v128_t halves_to_floats(v128_t h) {
  const v128_t bits = wasm_v128_and(wasm_i32x4_shl(h, 13), wasm_i32x4_splat(int(0x8FFFE000u)));
  return wasm_f32x4_mul(bits, wasm_f32x4_splat(0x1p112f));
}
#endif

// y[0..R) (+)= W[r]·x for R consecutive half rows (row stride K).
template <int R>
void rows_dot(const float* x, int K, const std::uint16_t* Wr, float* y, bool acc) {
  int k = 0;
  float s[R] = {};
#if defined(__wasm_simd128__)
  v128_t a[R][2];
  for (int r = 0; r < R; ++r) a[r][0] = a[r][1] = wasm_f32x4_splat(0.0f);
  for (; k + 8 <= K; k += 8) {
    const v128_t x0 = wasm_v128_load(x + k), x1 = wasm_v128_load(x + k + 4);
    for (int r = 0; r < R; ++r) {
      const v128_t h = wasm_v128_load(Wr + std::size_t(r) * K + k);
      a[r][0] = wasm_f32x4_add(a[r][0], wasm_f32x4_mul(halves_to_floats(wasm_i32x4_extend_low_i16x8(h)), x0));
      a[r][1] = wasm_f32x4_add(a[r][1], wasm_f32x4_mul(halves_to_floats(wasm_i32x4_extend_high_i16x8(h)), x1));
    }
  }
  for (int r = 0; r < R; ++r) {
    const v128_t v = wasm_f32x4_add(a[r][0], a[r][1]);
    s[r] = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
           (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
  }
#endif
  for (int r = 0; r < R; ++r) {
    for (int i = k; i < K; ++i) s[r] += half_to_float(Wr[std::size_t(r) * K + i]) * x[i];
    y[r] = acc ? y[r] + s[r] : s[r];
  }
}

}  // namespace

void matvec_f16(const float* x, int M, int K, const std::uint16_t* Wt, int N, float* y, bool acc, int ldx, int ldy) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  int n = 0;
  for (; n + 4 <= N; n += 4)
    for (int m = 0; m < M; ++m) rows_dot<4>(x + std::size_t(m) * ldx, K, Wt + std::size_t(n) * K, y + std::size_t(m) * ldy + n, acc);
  for (int m = 0; m < M; ++m) {
    const float* xm = x + std::size_t(m) * ldx;
    float* ym = y + std::size_t(m) * ldy + n;
    const std::uint16_t* Wn = Wt + std::size_t(n) * K;
    switch (N - n) {
      case 3: rows_dot<3>(xm, K, Wn, ym, acc); break;
      case 2: rows_dot<2>(xm, K, Wn, ym, acc); break;
      case 1: rows_dot<1>(xm, K, Wn, ym, acc); break;
      default: break;
    }
  }
}

}  // namespace lookback
