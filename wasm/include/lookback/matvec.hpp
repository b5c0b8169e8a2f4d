// lookback matrix-vector kernels: y[M,N] (+)= x[M,K] · W[N,K]ᵀ for a few rows of x (M = 1..8: decoding one
// token, or a handful), reading each weight from memory once (a group of weight rows stays in cache while
// every row of x passes over it). The weights are float32, float16 (IEEE half, converted in registers) or
// Q8 blocks (32 int8 along K with one float scale per block, as llama.cpp's Q8_0, rows grouped by four; x is
// quantised per block to int16 for an integer dot product) or Q4 blocks (32 4-bit weights along K with a float
// scale and min per block, rows grouped by four; x quantised per block to 8 bits; see below). Each kernel has a
// scalar `_ref` twin (float64 accumulation).
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

// ---- Q4 blocks -------------------------------------------------------------------------------------------
// Weight n, k of a Q4 matrix is w = S·q − M, q in 0..15, with a float scale S and a float min M per 32-wide block
// along K. That holds ggml's Q4_0 exactly (S = d, M = 8·d) and Q4_K (S = d·sc, M = dmin·m of each 32-wide
// sub-block: products of a half and a 6-bit integer, exact in float). 24 bytes a block and row, 0.75 a weight
// against Q8's 1.125. Chosen by measurement (WebAssembly under Node, one decoding step's matrices of the
// stories15M shape, M = 1): half scales and mins (a half per block times a float per 256, exact for ggml's blocks
// too, 20.25 bytes a block) took 0.73 ms against 0.65-0.67 ms with float ones (Q8: 0.65-0.67 ms); groups of
// eight rows instead of four were 3% faster, within the noise, so the groups stay Q8's four. The integer work
// per weight is Q8's (four i32x4.dot_i16x8_s per row and block) and bounds these products on this machine, so
// fewer bytes gain little once the weights come from cache.
// The buffer holds the rows in groups of kQ4Rows (the last group the N mod 4 rows left); within a group of R rows,
// for each block: the R rows' 16 bytes of nibbles one row after another, then the R scales, then the R mins.
// Byte i of a block holds weight i in its low nibble and weight i + 16 in its high one (as ggml's Q4_0). A
// decoding kernel reads the buffer as one stream; the group starting at row n (a multiple of 4) is itself a Q4
// matrix at byte q4_bytes(n, K) (q4_rows).
constexpr int kQ4Block = 32;
constexpr int kQ4Rows = 4;
constexpr int kQ4BlockBytes = 24;  // per row and block: 16 bytes of nibbles, the scale, the min
inline int q4_blocks(int K) { return (K + kQ4Block - 1) / kQ4Block; }
inline std::size_t q4_bytes(int N, int K) { return std::size_t(N) * std::size_t(q4_blocks(K)) * kQ4BlockBytes; }
inline const std::uint8_t* q4_rows(const std::uint8_t* q, int K, int n) { return q + q4_bytes(n, K); }
inline std::uint8_t* q4_rows(std::uint8_t* q, int K, int n) { return q + q4_bytes(n, K); }

// Byte offsets of row n's block b in a Q4 matrix of N rows: its 16 bytes of nibbles, its scale, its min.
struct Q4Offsets {
  std::size_t nibbles, scale, min;
};
inline Q4Offsets q4_offsets(int N, int K, int n, int b) {
  const int g = n - n % kQ4Rows, R = N - g < kQ4Rows ? N - g : kQ4Rows, r = n - g;
  const std::size_t block = q4_bytes(g, K) + std::size_t(b) * R * kQ4BlockBytes;
  return {block + std::size_t(r) * 16, block + std::size_t(R) * 16 + std::size_t(r) * 4,
          block + std::size_t(R) * 20 + std::size_t(r) * 4};
}
// The float stored at byte `at` of a Q4 matrix (any alignment).
inline float q4_float(const std::uint8_t* q, std::size_t at) {
  float f;
  std::memcpy(&f, q + at, sizeof f);
  return f;
}
// Weight i (0..31) of the block whose nibbles are at `nibbles`.
inline int q4_nibble(const std::uint8_t* nibbles, int i) { return i < 16 ? nibbles[i] & 15 : nibbles[i - 16] >> 4; }

// W[N,K] (finite) -> q (q4_bytes(N, K)): per block, S = (max − min) / 15 and M = −min over its weights (in float),
// q = (w + M) / S rounded to nearest and clamped to 0..15 (0 when S is 0). K padded with q = 0.
void quantize_q4(const float* W, int N, int K, std::uint8_t* q);
// The same for rows n0..n0+n of an N-row Q4 matrix only (rows: [n, K]), written at their places in q.
void quantize_q4_rows(const float* rows, int n0, int n, int N, int K, std::uint8_t* q);
// q -> [N, K] floats (S · q − M, in float), as a product reads them.
void dequantize_q4(const std::uint8_t* q, int N, int K, float* out);

// y (+)= x · Wᵀ for W in Q4. x is quantised per 32-wide block to 8 bits, xq = x · (127 / max|x|) rounded to
// nearest even in float, xs = max|x| / 127 (as ggml quantises x for its 4-bit products: the 4-bit weights' own
// rounding is some eight times larger); per block and row the exact integer sums Σ q·xq and Σ xq give
// float(Σq·xq)·(S·xs) − M·(xs·Σxq), summed in float block after block.
// A row of x holding NaN or ±Inf gives NaN in every output of that row.
void matvec_q4(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool accumulate, int ldx = 0,
               int ldy = 0);
void matvec_q4_ref(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool accumulate,
                   int ldx = 0, int ldy = 0);

}  // namespace lookback
