// The kernels of lookback/split.hpp: each divides its output into parts, one per thread (attention: one per query
// head, which the threads share out), aligned to the kernel's tiles so that every part computes its elements
// exactly as the whole call would, and calls the one-thread kernel on each part. Calls under kMinWork multiply-adds per part are not split: waking a thread costs more.
// Not here: the pool (threads.cpp) or any arithmetic.
#include "lookback/split.hpp"

#include <algorithm>
#include <cstddef>

#include "kernels/simd.hpp"
#include "lookback/matvec.hpp"
#include "lookback/packed_gemm.hpp"
#include "lookback/threads.hpp"

namespace lookback {
namespace {

constexpr double kMinWork = 32768;  // multiply-adds per part below which a call runs on one thread

// How many parts `n` units (each `work` multiply-adds, taken in multiples of `align`) are worth.
int parts_for(int n, int align, double work) {
  const int threads = thread_count();
  if (threads <= 1 || n <= align) return 1;
  const int by_size = int(std::min<double>(threads, double(n) * work / kMinWork));
  return std::max(1, std::min(by_size, (n + align - 1) / align));
}

// Range [begin, end) of part p of `parts` over n units in multiples of align (the last part takes the rest).
struct Range {
  int begin, end;
};
Range range(int p, int parts, int n, int align) {
  const int blocks = (n + align - 1) / align;
  const int b0 = int(std::size_t(blocks) * p / parts), b1 = int(std::size_t(blocks) * (p + 1) / parts);
  return {std::min(n, b0 * align), std::min(n, b1 * align)};
}

// Splits n output units into parts and calls f(begin, end) for each non-empty range.
template <class F>
void split(int n, int align, double work_per_unit, F&& f) {
  const int parts = parts_for(n, align, work_per_unit);
  if (parts <= 1) return f(0, n);
  parallel_parts(parts, [&](int p) {
    const Range r = range(p, parts, n, align);
    if (r.end > r.begin) f(r.begin, r.end);
  });
}

}  // namespace

int attention_split(const float* q, const float* k, const float* v, float* out, float* weights,
                    const AttentionShape& a, const std::uint8_t* mask) {
  const int group = a.Hkv > 0 ? a.H / a.Hkv : 1;
  const double per_head = double(a.T) * a.S * a.D * 2;
  // one part per query head (when worth splitting at all), so that threads share the heads out evenly
  const int parts = (a.Hkv <= 0 || a.H % a.Hkv || a.H > 64 || parts_for(a.H, 1, per_head) <= 1) ? 1 : a.H;
  if (parts <= 1) return attention(q, k, v, out, weights, a, mask);
  const int ldq = a.ldq ? a.ldq : a.H * a.D, ldk = a.ldk ? a.ldk : a.Hkv * a.D, ldv = a.ldv ? a.ldv : a.Hkv * a.D,
            ldo = a.ldo ? a.ldo : a.H * a.D;
  int empty[64] = {};
  parallel_parts(parts, [&](int p) {
    const Range r = range(p, parts, a.H, 1);
    // the part's query heads, one call per key/value head they read
    for (int h = r.begin; h < r.end;) {
      const int g = h / group, h_end = std::min(r.end, (g + 1) * group);
      AttentionShape s = a;
      s.H = h_end - h, s.Hkv = 1, s.ldq = ldq, s.ldk = ldk, s.ldv = ldv, s.ldo = ldo;
      empty[p] += attention(q + std::size_t(h) * a.D, k + std::size_t(g) * a.D, v + std::size_t(g) * a.D,
                            out + std::size_t(h) * a.D,
                            weights ? weights + std::size_t(h) * a.T * a.S : nullptr, s, mask);
      h = h_end;
    }
  });
  int total = 0;
  for (int p = 0; p < parts; ++p) total += empty[p];
  return total;
}

void gemm_nn_split(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                   bool acc) {
  split(N, simd::NR, double(M) * K, [&](int n0, int n1) {
    gemm_nn(M, n1 - n0, K, A, lda, B + n0, ldb, C + n0, ldc, acc);
  });
}

void gemm_nt_split(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                   bool acc) {
  split(N, simd::NR, double(M) * K, [&](int n0, int n1) {
    gemm_nt(M, n1 - n0, K, A, lda, B + std::size_t(n0) * ldb, ldb, C + n0, ldc, acc);
  });
}

void gemm_packed_split(int M, int N, int K, const float* A, int lda, const float* packed, float* C, int ldc,
                       bool acc) {
  split(M, simd::MR, double(N) * K, [&](int m0, int m1) {
    gemm_packed(m1 - m0, N, K, A + std::size_t(m0) * lda, lda, packed, C + std::size_t(m0) * ldc, ldc, acc);
  });
}

void matvec_split(const float* x, int M, int K, const float* W, int N, float* y, bool acc, int ldx, int ldy,
                  bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  split(N, 4, double(M) * K, [&](int n0, int n1) {
    matvec(x, M, K, W + std::size_t(n0) * K, n1 - n0, y + n0, acc, ldx, ldy, stream);
  });
}

void matvec_f16_split(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool acc, int ldx,
                      int ldy, bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  split(N, 4, double(M) * K, [&](int n0, int n1) {
    matvec_f16(x, M, K, W + std::size_t(n0) * K, n1 - n0, y + n0, acc, ldx, ldy, stream);
  });
}

void matvec_q8_split(const float* x, int M, int K, const std::int8_t* q, const float* scale, int N, float* y,
                     bool acc, int ldx, int ldy, bool stream) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  const std::size_t Kb = std::size_t(q8_blocks(K));
  split(N, 4, double(M) * K, [&](int n0, int n1) {
    matvec_q8(x, M, K, q + std::size_t(n0) * Kb * kQ8Block, scale + std::size_t(n0) * Kb, n1 - n0, y + n0, acc,
              ldx, ldy, stream);
  });
}

}  // namespace lookback
