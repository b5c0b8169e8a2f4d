// ggml's Q4_0 and Q4_K blocks into the Q4 layout (q4_ggml.hpp): per 32-wide block a float scale S and min M with
// the values ggml's dequantize_row_q4_0 / _q4_K compute (S = d, M = 8·d; S = d·sc, M = dmin·m), and the nibbles
// moved to the layout's order. Not here: the product (matvec_q4.cpp).
#include "model/q4_ggml.hpp"

#include <cstring>

#include "base/fp16.hpp"
#include "lookback/matvec.hpp"
#include "model/errors.hpp"

namespace lookback {
namespace {

float half_at(const std::uint8_t* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return half_to_float(h);
}

// Row n's block b of a Q4 matrix: scale S, min M and 32 weights v (0..15).
void put_block(std::uint8_t* out, int N, int K, int n, int b, float S, float M, const std::uint8_t* v) {
  const Q4Offsets at = q4_offsets(N, K, n, b);
  std::memcpy(out + at.scale, &S, 4);
  std::memcpy(out + at.min, &M, 4);
  for (int i = 0; i < 16; ++i) out[at.nibbles + i] = std::uint8_t(v[i] | v[i + 16] << 4);
}

// One Q4_0 block (d, 16 bytes: weight i low, i + 16 high, as the layout's) -> row n's block b.
void from_q4_0(const std::uint8_t* blk, std::uint8_t* out, int N, int K, int n, int b) {
  const float d = half_at(blk);
  std::uint8_t v[kQ4Block];
  for (int i = 0; i < 16; ++i) v[i] = blk[2 + i] & 15, v[i + 16] = blk[2 + i] >> 4;
  put_block(out, N, K, n, b, d, 8.0f * d, v);  // d·q − 8·d = d·(q − 8), exactly
}

// One Q4_K block (d, dmin, 12 scale bytes, 128 bytes: sub-blocks 2p and 2p + 1 in the low and high nibbles of
// bytes 32p..32p+31) -> row n's blocks b0..b0+7.
void from_q4_k(const std::uint8_t* blk, std::uint8_t* out, int N, int K, int n, int b0) {
  const float d = half_at(blk), dmin = half_at(blk + 2);
  const std::uint8_t* qs = blk + 16;
  for (int j = 0; j < 8; ++j) {
    std::uint8_t sc, m, v[kQ4Block];
    scale_min_k4(j, blk + 4, &sc, &m);
    const std::uint8_t* q = qs + 32 * (j / 2);
    for (int l = 0; l < kQ4Block; ++l) v[l] = j % 2 ? q[l] >> 4 : q[l] & 15;
    put_block(out, N, K, n, b0 + j, d * sc, dmin * m, v);
  }
}

}  // namespace

void q4_from_ggml(const GgmlType& t, const std::uint8_t* raw, int N, int K, std::uint8_t* out) {
  q4_from_ggml_rows(t, raw, 0, N, N, K, out);
}

void q4_from_ggml_rows(const GgmlType& t, const std::uint8_t* raw, int n0, int rows, int N, int K, std::uint8_t* out) {
  if (t.id != 2 && t.id != 12) model_error("q4_from_ggml: ", t.name, " is not Q4_0 or Q4_K");
  if (K % t.block) model_error("q4_from_ggml: a row of ", K, " values is not whole ", t.name, " blocks");
  const int per_row = K / t.block, sub = t.block / kQ4Block;
  for (int n = n0; n < n0 + rows; ++n)
    for (int i = 0; i < per_row; ++i) {
      const std::uint8_t* blk = raw + (std::size_t(n - n0) * per_row + i) * std::size_t(t.block_bytes);
      if (t.id == 2)
        from_q4_0(blk, out, N, K, n, i);
      else
        from_q4_k(blk, out, N, K, n, i * sub);
    }
}

}  // namespace lookback
