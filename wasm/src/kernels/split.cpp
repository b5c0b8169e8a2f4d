// The kernels of lookback/split.hpp: each divides its output into parts, a few per thread (attention: query heads
// or ranges of a head's queries), which the threads take as they come free; parts are aligned to the kernel's tiles
// so that every part computes its elements exactly as the whole call would, and each calls the one-thread kernel;
// rows_split divides rows the same way for the model's row-wise steps. Calls under kMinWork multiply-adds per part are not
// split: waking a thread costs more. Not here: the pool or any arithmetic.
#include "lookback/split.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "kernels/simd.hpp"
#include "lookback/matvec.hpp"
#include "lookback/packed_gemm.hpp"
#include "lookback/threads.hpp"

namespace lookback {
namespace {

constexpr double kMinWork = 32768;  // multiply-adds per part below which a call runs on one thread
constexpr int kPartsPerThread = 4;  // parts per thread wanted, so that a thread slowed for a moment leaves little
constexpr int kMaxRanges = 8;       // attention: query ranges per head at most
constexpr int kMinColumnSplitRows = 64;  // packed GEMM: rows from which it divides B's columns, not A's rows

// Of the part counts from two per thread up to `most` (all of them when `most` is fewer) for `blocks` equal blocks,
// the one that leaves the busiest thread the fewest blocks when the threads take the parts in turn
// (ceil(parts / threads) parts of at most ceil(blocks / parts) blocks), the largest on a tie: 18 blocks on 2
// threads make 6 parts of 3 (9 blocks each), where 8 parts of 2 or 3 leave one thread 10. At least two parts per
// thread, so that a thread paused for a while still holds back no more than half its share.
int balanced_parts(int blocks, int threads, int most) {
  const int least = std::min(most, 2 * threads);
  int best = least;
  long long best_load = (least + threads - 1) / threads * (long long)((blocks + least - 1) / least);
  for (int parts = least + 1; parts <= most; ++parts) {
    const long long load = (parts + threads - 1) / threads * (long long)((blocks + parts - 1) / parts);
    if (load <= best_load) best = parts, best_load = load;
  }
  return best;
}

// How many parts `n` units (each `work` multiply-adds, taken in multiples of `align`) are worth: up to
// kPartsPerThread per thread, none under kMinWork, as evenly shared as the blocks allow. The threads take parts
// as they come free, so a thread the system pauses for a while holds back one small part, not half the call.
int parts_for(int n, int align, double work) {
  const int threads = thread_count();
  if (threads <= 1 || n <= align) return 1;
  const int blocks = (n + align - 1) / align;
  const int by_size = int(std::min<double>(threads * kPartsPerThread, double(n) * work / kMinWork));
  return balanced_parts(blocks, threads, std::max(1, std::min(by_size, blocks)));
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

// Ranges per head for attention_split: of the counts r that make at least two parts per thread (up to
// kMaxRanges), the one whose H·r parts leave the busiest thread the least work (ceil(H·r / threads) parts of 1/r
// head each), the fewest on a tie: each range packs its head's keys and values again, so 6 heads on 2 threads stay
// whole (3 each) where 2 ranges each made 12 parts for the same share; 1 head on 2 threads makes 4 ranges.
int ranges_per_head(int H, int threads) {
  const int least = std::min(kMaxRanges, (2 * threads + H - 1) / H);
  int best = least;
  long long num = (1LL * H * least + threads - 1) / threads, den = least;  // the busiest thread's heads: num / den
  for (int r = least + 1; r <= kMaxRanges; ++r) {
    const long long n = (1LL * H * r + threads - 1) / threads;
    if (n * den < num * r) best = r, num = n, den = r;
  }
  return best;
}

// Query ranges [b[i], b[i + 1]) of about equal work (keys seen, counting the causal limit), each starting on a block
// of NR queries and at least NR long, at most c of them; returns their number.
int query_ranges(const AttentionShape& a, int c, int* b) {
  const int off = a.S - a.T;
  auto seen = [&](int t) { return a.causal ? double(std::min(a.S, t + off + 1)) : double(a.S); };
  double total = 0;
  for (int t = 0; t < a.T; ++t) total += seen(t);
  int n = 0;
  b[0] = 0;
  double done = 0;
  for (int t = 0; t < a.T - 1 && n + 1 < c; ++t) {
    done += seen(t);
    // the last range keeps at least NR queries: one or two would take attention_few's path, summing otherwise
    if ((t + 1) % simd::NR == 0 && a.T - (t + 1) >= simd::NR && done >= total * (n + 1) / c) b[++n] = t + 1;
  }
  b[++n] = a.T;
  return n;
}

}  // namespace

int attention_split(const float* q, const float* k, const float* v, float* out, float* weights,
                    const AttentionShape& a, const std::uint8_t* mask) {
  const int group = a.Hkv > 0 ? a.H / a.Hkv : 1;
  if (a.Hkv <= 0 || a.H % a.Hkv || a.H > 64 || parts_for(a.H * a.T, 1, double(a.S) * a.D * 2) <= 1)
    return attention(q, k, v, out, weights, a, mask);
  // Parts: each query head, and when there are fewer heads than two parts per thread, or the heads do not share
  // evenly, each head's queries in ranges of equal work too (ranges_per_head), so that a thread slowed for a moment
  // leaves little behind. A range of a causal call sees only the keys up to its last query (the causal offset then
  // stays S - T for its queries), so its mask and weights rows would be narrower than the caller's: causal calls
  // with either, or with fewer keys than queries, keep whole heads.
  const bool ranged = !a.causal || (!mask && !weights && a.S >= a.T);
  const int want = ranges_per_head(a.H, thread_count());
  int b[kMaxRanges + 1];
  const int ranges = ranged && want > 1 ? query_ranges(a, want, b) : (b[0] = 0, b[1] = a.T, 1);
  const int ldq = a.ldq ? a.ldq : a.H * a.D, ldk = a.ldk ? a.ldk : a.Hkv * a.D, ldv = a.ldv ? a.ldv : a.Hkv * a.D,
            ldo = a.ldo ? a.ldo : a.H * a.D, off = a.S - a.T;
  std::atomic<int> empty{0};
  parallel_parts(a.H * ranges, [&](int p) {
    const int h = p / ranges, g = h / group, t0 = b[p % ranges], t1 = b[p % ranges + 1];
    AttentionShape s = a;
    s.H = 1, s.Hkv = 1, s.T = t1 - t0, s.ldq = ldq, s.ldk = ldk, s.ldv = ldv, s.ldo = ldo;
    if (a.causal) s.S = std::min(a.S, t1 + off);
    empty += attention(q + std::size_t(t0) * ldq + std::size_t(h) * a.D, k + std::size_t(g) * a.D,
                       v + std::size_t(g) * a.D, out + std::size_t(t0) * ldo + std::size_t(h) * a.D,
                       weights ? weights + (std::size_t(h) * a.T + t0) * a.S : nullptr, s,
                       mask ? mask + std::size_t(t0) * a.S : nullptr);
  });
  return empty.load();
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
  // Few rows: by rows (each part streams all of B past its rows; few parts, as few rows make few)
  if (M < kMinColumnSplitRows) {
    split(M, simd::MR, double(N) * K, [&](int m0, int m1) {
      gemm_packed(m1 - m0, N, K, A + std::size_t(m0) * lda, lda, packed, C + std::size_t(m0) * ldc, ldc, acc);
    });
    return;
  }
  // More: by B's column panels (two at a time: a cache line of C), so that B is read once in all, from one A
  // packed once and shared; A's row panels are divided first
  const int panels = packed_panels(N), rows = (M + simd::MR - 1) / simd::MR;
  if (K <= 0 || parts_for(panels, 2, double(M) * K * simd::NR) <= 1)
    return gemm_packed(M, N, K, A, lda, packed, C, ldc, acc);
  thread_local std::vector<float> scratch;  // the caller's: the parts see it through `ap`
  scratch.resize(packed_a_floats(M, K));
  float* ap = scratch.data();
  split(rows, 1, double(simd::MR) * K, [&](int r0, int r1) { pack_a_rows(M, K, A, lda, r0, r1, ap); });
  split(panels, 2, double(M) * K * simd::NR, [&](int p0, int p1) {
    gemm_packed_panels(M, N, K, ap, packed, p0, p1, C, ldc, acc);
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

namespace {

// A block format's matvec over whole groups of `group` rows per part (each group on is a matrix of the format
// itself, at rows_at(q, K, n0)).
template <class T, class RowsAt, class Kernel>
void grouped_matvec_split(const float* x, int M, int K, const T* q, int N, float* y, bool acc, int ldx, int ldy,
                          int group, RowsAt rows_at, Kernel kernel) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  split(N, group, double(M) * K, [&](int n0, int n1) {
    kernel(x, M, K, rows_at(q, K, n0), n1 - n0, y + n0, acc, ldx, ldy);
  });
}

}  // namespace

void matvec_q8_split(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool acc, int ldx,
                     int ldy) {
  grouped_matvec_split(x, M, K, q, N, y, acc, ldx, ldy, kQ8Rows, q8_rows, matvec_q8);
}

void matvec_q4_split(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool acc, int ldx,
                     int ldy) {
  grouped_matvec_split(x, M, K, q, N, y, acc, ldx, ldy, kQ4Rows,
                       [](const std::uint8_t* p, int k, int n) { return q4_rows(p, k, n); }, matvec_q4);
}

void rows_split(int n, double work_per_row, RowsFn fn, void* context) {
  if (n <= 0) return;
  split(n, 1, work_per_row, [&](int r0, int r1) { fn(r0, r1, context); });
}

}  // namespace lookback
