// Scalar reference twins of the matrix-vector kernels (lookback/matvec.hpp) and the Q8 and Q4 quantisers: plain loops,
// float64 accumulation. They define what the fast kernels compute; tests compare the two. Not meant to be fast.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/absmax.hpp"
#include "lookback/matvec.hpp"
#include "base/fp16.hpp"

namespace lookback {
namespace {

// One row of x quantised per 32-wide block as the Q8 (levels 32767) and Q4 (127) kernels do: xq (Kb*32,
// zero-padded), scales xs; false when the row is not finite.
bool quantize_x_ref(const float* xr, int K, float levels, std::vector<int>& xq, std::vector<double>& xs) {
  const int Kb = q8_blocks(K);
  xq.assign(std::size_t(Kb) * kQ8Block, 0);
  xs.assign(std::size_t(Kb), 0.0);
  bool finite = true;
  for (int b = 0; b < Kb; ++b) {
    const int len = std::min(kQ8Block, K - b * kQ8Block);
    const float amax = block_absmax(xr + b * kQ8Block, len, finite);
    const float inv = amax > 0 ? levels / amax : 0.0f;
    xs[b] = amax / levels;
    for (int i = 0; i < kQ8Block; ++i)
      xq[b * kQ8Block + i] = i < len && finite ? int(std::nearbyint(xr[b * kQ8Block + i] * inv)) : 0;
  }
  return finite;
}

// y (+)= x · Wᵀ for a block format: block(n, b, xb) is row n's block b times the quantised block xb (32 ints),
// without the x scale; summed in double over the blocks. NaN for a row of x that is not finite.
template <class BlockDot>
void matvec_blocks_ref(const float* x, int M, int K, int N, float* y, bool acc, int ldx, int ldy, float levels,
                       BlockDot block) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  const int Kb = q8_blocks(K);
  std::vector<int> xq;
  std::vector<double> xs;
  for (int m = 0; m < M; ++m) {
    const bool finite = quantize_x_ref(x + std::size_t(m) * ldx, K, levels, xq, xs);
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int b = 0; b < Kb && finite; ++b) sum += block(n, b, &xq[std::size_t(b) * kQ8Block]) * xs[b];
      float& out = y[std::size_t(m) * ldy + n];
      const float v = finite ? float(sum) : NAN;
      out = acc ? out + v : v;
    }
  }
}

// Row n's block b of a Q4 matrix from its weights w (len of them): scale, min, nibbles.
void put_q4_block(const float* w, int len, int N, int K, int n, int b, std::uint8_t* q) {
  const auto [lo, hi] = std::minmax_element(w, w + len);
  const float S = (*hi - *lo) / 15.0f, M = -*lo;
  const Q4Offsets at = q4_offsets(N, K, n, b);
  std::memcpy(q + at.scale, &S, 4);
  std::memcpy(q + at.min, &M, 4);
  std::uint8_t* nib = q + at.nibbles;
  std::memset(nib, 0, 16);
  for (int i = 0; i < len; ++i) {
    const float v = S > 0 ? std::nearbyint((w[i] + M) / S) : 0.0f;
    const int c = int(std::min(15.0f, std::max(0.0f, v)));
    nib[i % 16] |= std::uint8_t(i < 16 ? c : c << 4);
  }
}

template <class WeightAt>
void matvec_generic(const float* x, int M, int K, int N, float* y, bool acc, int ldx, int ldy, WeightAt w) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(w(n, k)) * x[std::size_t(m) * ldx + k];
      float& out = y[std::size_t(m) * ldy + n];
      out = acc ? float(out + s) : float(s);
    }
}

}  // namespace

void matvec_ref(const float* x, int M, int K, const float* W, int N, float* y, bool acc, int ldx, int ldy) {
  matvec_generic(x, M, K, N, y, acc, ldx, ldy, [&](int n, int k) { return W[std::size_t(n) * K + k]; });
}

void matvec_f16_ref(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool acc, int ldx,
                    int ldy) {
  matvec_generic(x, M, K, N, y, acc, ldx, ldy, [&](int n, int k) { return half_to_float(W[std::size_t(n) * K + k]); });
}

void quantize_q8(const float* W, int N, int K, std::int8_t* q) { quantize_q8_rows(W, 0, N, N, K, q); }

void quantize_q8_rows(const float* rows, int n0, int rows_n, int N, int K, std::int8_t* q) {
  const int Kb = q8_blocks(K);
  for (int n = n0; n < n0 + rows_n; ++n)
    for (int b = 0; b < Kb; ++b) {
      const float* w = rows + std::size_t(n - n0) * K + b * kQ8Block;
      const int len = std::min(kQ8Block, K - b * kQ8Block);
      float amax = 0;
      for (int i = 0; i < len; ++i) amax = std::max(amax, std::fabs(w[i]));
      const float inv = amax > 0 ? 127.0f / amax : 0.0f;
      const float scale = amax / 127.0f;
      const Q8Offsets at = q8_offsets(N, K, n, b);
      std::memcpy(q + at.scale, &scale, sizeof scale);
      std::int8_t* qb = q + at.weights;
      for (int i = 0; i < kQ8Block; ++i) qb[i] = i < len ? std::int8_t(std::nearbyint(w[i] * inv)) : 0;
    }
}

void matvec_q8_ref(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool acc, int ldx, int ldy) {
  matvec_blocks_ref(x, M, K, N, y, acc, ldx, ldy, 32767.0f, [&](int n, int b, const int* xb) {
    const Q8Offsets at = q8_offsets(N, K, n, b);
    long long d = 0;
    for (int i = 0; i < kQ8Block; ++i) d += (long long)q[at.weights + i] * xb[i];
    return double(d) * q8_scale(q, at.scale);
  });
}

void quantize_q4(const float* W, int N, int K, std::uint8_t* q) { quantize_q4_rows(W, 0, N, N, K, q); }

void quantize_q4_rows(const float* rows, int n0, int rows_n, int N, int K, std::uint8_t* q) {
  const int Kb = q4_blocks(K);
  for (int n = n0; n < n0 + rows_n; ++n)
    for (int b = 0; b < Kb; ++b)
      put_q4_block(rows + std::size_t(n - n0) * K + b * kQ4Block, std::min(kQ4Block, K - b * kQ4Block), N, K, n, b, q);
}

void matvec_q4_ref(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool acc, int ldx, int ldy) {
  matvec_blocks_ref(x, M, K, N, y, acc, ldx, ldy, 127.0f, [&](int n, int b, const int* xb) {
    const Q4Offsets at = q4_offsets(N, K, n, b);
    const double S = q4_float(q, at.scale), Mn = q4_float(q, at.min);
    long long d = 0, sum = 0;
    for (int i = 0; i < kQ4Block; ++i) d += (long long)q4_nibble(q + at.nibbles, i) * xb[i], sum += xb[i];
    return S * double(d) - Mn * double(sum);
  });
}

}  // namespace lookback
