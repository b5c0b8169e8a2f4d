// GEMM on a B packed once (lookback/packed_gemm.hpp), from the pieces of the per-call GEMM (simd.hpp: pack_a,
// pack_b, tile). Layout of the packed B: K in equal blocks of at most kKc, each block holding every NR-column
// panel [kc][NR] of all N columns (zero-padded). Per K block and per block of MC rows, A is packed once and
// every panel of B streams past it; or, in two steps for the threads, all of A packed once and any range of B's
// panels computed from it. Not threaded (split.cpp divides the work).
#include <algorithm>
#include <vector>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"
#include "lookback/packed_gemm.hpp"

namespace lookback {
namespace {

using simd::MR;
using simd::NR;
// Depth of one K block: one B panel [kc][NR] (24 KiB at 768) stays in L1 while the A panels stream past it, and
// the model shapes up to a width of 768 take one block, so C is written once.
constexpr int kKc = 768;
constexpr int kMc = 256;  // rows of one packed A block at most (M in equal blocks: no thin last block)

struct Blocking {
  int kblocks, kc, panels;
  Blocking(int K, int N) : kblocks((K + kKc - 1) / kKc), kc((K + kblocks - 1) / kblocks), panels((N + NR - 1) / NR) {}
  // start of K block b (depth min(kc, K - b*kc)) in the packed buffer
  std::size_t block(int b) const { return std::size_t(b) * panels * kc * NR; }
};

constexpr int row_panels(int rows) { return (rows + MR - 1) / MR; }

// Row panels r0..r1 of A [rows, kc] (leading dimension lda) packed into Ab, panel r at Ab + r * kc * MR.
void pack_panels(int rows, int kc, const float* A, int lda, int r0, int r1, float* Ab) {
  for (int r = r0; r < r1; ++r)
    simd::pack_a(std::min(MR, rows - r * MR), kc, 1.0f, A + std::size_t(r) * MR * lda, lda,
                 Ab + std::size_t(r) * kc * MR);
}

// C[rows, columns of panels p0..p1] (+)= the packed A block Ab times B's panels p0..p1 of one K block (depth kc).
void panel_tiles(int rows, int N, int kc, const float* Ab, const float* Bb, int p0, int p1, float* C, int ldc,
                 bool add) {
  for (int p = p0; p < p1; ++p) {
    const float* panel = Bb + std::size_t(p) * kc * NR;
    for (int i = 0; i < rows; i += MR)
      simd::tile(std::min(MR, rows - i), std::min(NR, N - p * NR), kc, Ab + std::size_t(i / MR) * kc * MR, panel,
                 C + std::size_t(i) * ldc + p * NR, ldc, add);
  }
}

}  // namespace

std::size_t packed_b_floats(int K, int N) {
  if (K <= 0 || N <= 0) return 0;
  const Blocking g(K, N);
  return std::size_t(g.kblocks) * g.panels * g.kc * NR;
}

void pack_b_matrix(bool trans, int K, int N, const float* B, int ldb, float* packed) {
  if (K <= 0 || N <= 0) return;
  const Blocking g(K, N);
  for (int b = 0; b < g.kblocks; ++b) {
    const int k0 = b * g.kc, kc = std::min(g.kc, K - k0);
    simd::pack_b(trans, kc, N, trans ? B + k0 : B + std::size_t(k0) * ldb, ldb, packed + g.block(b),
                 std::size_t(kc) * NR);
  }
}

void gemm_packed(int M, int N, int K, const float* A, int lda, const float* packed, float* C, int ldc, bool acc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!acc)
      for (int i = 0; i < M; ++i) std::fill(C + std::size_t(i) * ldc, C + std::size_t(i) * ldc + N, 0.0f);
    return;
  }
  const Blocking g(K, N);
  thread_local std::vector<float> ap;
  const int mblocks = (M + kMc - 1) / kMc, mcmax = ((M + mblocks - 1) / mblocks + MR - 1) / MR * MR;
  ap.resize(std::size_t(row_panels(mcmax)) * g.kc * MR);
  for (int b = 0; b < g.kblocks; ++b) {
    const int k0 = b * g.kc, kc = std::min(g.kc, K - k0);
    const float* Bb = packed + g.block(b);
    for (int i0 = 0; i0 < M; i0 += mcmax) {
      const int mc = std::min(mcmax, M - i0);
      pack_panels(mc, kc, A + std::size_t(i0) * lda + k0, lda, 0, row_panels(mc), ap.data());
      panel_tiles(mc, N, kc, ap.data(), Bb, 0, g.panels, C + std::size_t(i0) * ldc, ldc, acc || b > 0);
    }
  }
}

std::size_t packed_a_floats(int M, int K) {
  if (M <= 0 || K <= 0) return 0;
  return std::size_t(row_panels(M)) * MR * K;
}

int packed_panels(int N) { return (N + NR - 1) / NR; }

// Layout of the packed A: per K block b (as B's), every MR-row panel [kc][MR] of all M rows.
void pack_a_rows(int M, int K, const float* A, int lda, int r0, int r1, float* ap) {
  const Blocking g(K, 1);
  for (int b = 0; b < g.kblocks; ++b) {
    const int k0 = b * g.kc, kc = std::min(g.kc, K - k0);
    pack_panels(M, kc, A + k0, lda, r0, r1, ap + std::size_t(b) * row_panels(M) * g.kc * MR);
  }
}

void gemm_packed_panels(int M, int N, int K, const float* ap, const float* packed, int p0, int p1, float* C, int ldc,
                        bool acc) {
  const Blocking g(K, N);
  for (int b = 0; b < g.kblocks; ++b) {
    const int kc = std::min(g.kc, K - b * g.kc);
    panel_tiles(M, N, kc, ap + std::size_t(b) * row_panels(M) * g.kc * MR, packed + g.block(b), p0, p1, C, ldc,
                acc || b > 0);
  }
}

void gemm_packed_ref(int M, int N, int K, const float* A, int lda, bool trans, const float* B, int ldb, float* C,
                     int ldc, bool acc) {
  (trans ? gemm_nt_ref : gemm_nn_ref)(M, N, K, A, lda, B, ldb, C, ldc, acc);
}

}  // namespace lookback
