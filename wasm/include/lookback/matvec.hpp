// lookback matrix-vector kernels: y[M,N] (+)= x[M,K] · W[N,K]ᵀ for a few rows of x (M = 1..8: decoding one
// token, or a handful), reading each weight from memory once (a group of weight rows stays in cache while
// every row of x passes over it). The weights are float32, float16 (IEEE half, converted in registers) or
// Q8 blocks (32 int8 along K with one float scale per block, as llama.cpp's Q8_0, rows grouped by four; x is
// quantised per block to int16 for an integer dot product). Each kernel has a scalar `_ref` twin (float64 accumulation).
// Not here: many-row products (gemm in kernels.hpp) or choosing a format (the model does, at load).
// Letters: M rows of x, K input width, N output width (weight rows), Kb blocks of 32 along K.
// Scratch: the f16 and Q8 kernels keep per-thread buffers for x (converted or quantised) that grow to the
// largest call on that thread and are kept (never shrunk).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lookback {

// Row strides: ldx, ldy in floats (0 = dense: K, N). accumulate: y += instead of y =.
// stream: read one weight row at a time, front to back (every row of x passing over it while it is in L1) instead
// of four rows at once: for weights that come from memory rather than cache, one stream is what hardware
// prefetchers follow best (about twice the rate on such matrices here); four rows at once win on cached ones.
void matvec(const float* x, int M, int K, const float* W, int N, float* y, bool accumulate, int ldx = 0, int ldy = 0,
            bool stream = false);
void matvec_ref(const float* x, int M, int K, const float* W, int N, float* y, bool accumulate, int ldx = 0,
                int ldy = 0);

// W: [N, K] IEEE half bits, finite (the fast kernel reads exponent 31 as a finite number, not as ±Inf/NaN).
void matvec_f16(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool accumulate, int ldx = 0,
                int ldy = 0, bool stream = false);
void matvec_f16_ref(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool accumulate,
                    int ldx = 0, int ldy = 0);

// ---- Q8 blocks --------------------------------------------------------------------------------------------
constexpr int kQ8Block = 32;
inline int q8_blocks(int K) { return (K + kQ8Block - 1) / kQ8Block; }

// A Q8 matrix is one byte buffer of q8_bytes(N, K): its rows in groups of kQ8Rows (the last group holds the
// N mod 4 rows left, if any); for each group and each 32-wide block along K, the 32 int8 weights of each of the
// group's R rows one row after another, then the R float scales (R·36 bytes). A decoding kernel reads it as one
// stream, front to back. The group starting at row n (a multiple of 4) is itself a Q8 matrix of the rows from n
// on, at byte n·Kb·36 (q8_rows).
constexpr int kQ8Rows = 4;
inline std::size_t q8_bytes(int N, int K) { return std::size_t(N) * std::size_t(q8_blocks(K)) * (kQ8Block + 4); }
inline const std::int8_t* q8_rows(const std::int8_t* q, int K, int n) { return q + q8_bytes(n, K); }

// Byte offsets of row n's block b in a Q8 matrix of N rows: its 32 weights and its scale.
struct Q8Offsets {
  std::size_t weights, scale;
};
inline Q8Offsets q8_offsets(int N, int K, int n, int b) {
  const int g = n - n % kQ8Rows, R = N - g < kQ8Rows ? N - g : kQ8Rows, r = n - g;
  const std::size_t block = q8_bytes(g, K) + std::size_t(b) * R * (kQ8Block + 4);
  return {block + std::size_t(r) * kQ8Block, block + std::size_t(R) * kQ8Block + std::size_t(r) * 4};
}
// The float scale stored at byte `at` of a Q8 matrix (any alignment).
inline float q8_scale(const std::int8_t* q, std::size_t at) {
  float s;
  std::memcpy(&s, q + at, sizeof s);
  return s;
}

// W[N,K] (finite) -> q (q8_bytes(N, K)): w ≈ scale · q per block, with scale = max|w| / 127 over the block (0 for
// an all-zero block) and q = w · (127 / max|w|) rounded to nearest even (in float); K padded with zeros.
void quantize_q8(const float* W, int N, int K, std::int8_t* q);
// The same for rows n0..n0+n of an N-row Q8 matrix only (rows: [n, K]), written at their places in q.
void quantize_q8_rows(const float* rows, int n0, int n, int N, int K, std::int8_t* q);
// q -> [N, K] floats (scale · q), as a product reads them.
void dequantize_q8(const std::int8_t* q, int N, int K, float* out);

// y (+)= x · Wᵀ for W in Q8. Each 32-wide block of a row of x is quantised to int16 with its own scale
// max|x| / 32767 (x · (32767 / max|x|) in float, rounded to nearest even), so the block product is an exact
// integer sum, then float(sum) · (weight scale · x scale) is added to the row's float sum, block after block.
// A row of x holding NaN or ±Inf gives NaN in every output of that row.
void matvec_q8(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool accumulate, int ldx = 0,
               int ldy = 0);
void matvec_q8_ref(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool accumulate,
                   int ldx = 0, int ldy = 0);

}  // namespace lookback
