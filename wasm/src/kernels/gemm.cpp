// Row-major GEMM, C (+)= A·B, C (+)= A·Bᵀ and C (+)= Aᵀ·B, vectorised with a register-tiled micro-kernel on packed panels:
// B in panels of NR columns (either layout packs to the same form), A in panels of MR rows, so that the kernel
// reads two contiguous streams at constant offsets. Blocked over K (KC), N (NC) and M (MC); edges go through a
// small padded tile; a transposed A packs by contiguous row pieces (pack_a_trans); with AVX-512, in A·B, A is read in
// place. The pieces (pack_a, pack_b, tile) are shared with attention.cpp through simd.hpp.
// Not threaded (the caller may split M).
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {
namespace simd {
namespace {

// AVX-512: a B panel [KC][NR] of 32 KiB at 256 stays in L1 (48 KiB) beside an A panel; at 512 it does not.
#ifndef LOOKBACK_GEMM_KC
#define LOOKBACK_GEMM_KC (W >= 16 ? 256 : 512)
#endif
#ifndef LOOKBACK_GEMM_NC
#define LOOKBACK_GEMM_NC 2048
#endif
#ifndef LOOKBACK_GEMM_MC
#define LOOKBACK_GEMM_MC 120
#endif
constexpr int KC = LOOKBACK_GEMM_KC;                        // depth of one packed block
constexpr int NC = LOOKBACK_GEMM_NC;                        // columns of one packed B block
constexpr int MC = (LOOKBACK_GEMM_MC + MR - 1) / MR * MR;  // rows of one packed A block
// With AVX-512, in C = A·B a row-major A is read in place (tile_strided: MR row streams, broadcast loads as from
// a panel) instead of packed, which measured faster on the trainer's backward products. Not in C = A·Bᵀ (the
// trainer's forward measured slower so) nor for a transposed A (its rows are M apart: a new page per step when M
// is the vocabulary). WebAssembly keeps the packed panels.
#ifndef LOOKBACK_GEMM_A_IN_PLACE
#define LOOKBACK_GEMM_A_IN_PLACE (W >= 16)
#endif
constexpr bool kAInPlace = LOOKBACK_GEMM_A_IN_PLACE;
// With AVX-512 the packings that gather rows of B (or columns of Aᵀ) into several panels read the source row by
// row, one sequential stream the prefetchers follow, instead of one strided walk per panel: the trainer's operands
// come cold from memory. WebAssembly keeps the panel-by-panel loops.
constexpr bool kRowOrderPacking = W >= 16;

// c[R, NR] (+)= A · Bp[kc][NR] with element (r, k) of A at A[r·ars + k·aks]: a packed panel Ap[kc][MR]
// (Packed: the strides are the constants 1 and MR) or A read in place (broadcast loads); c has leading
// dimension ldc. Not unrolled: in WebAssembly an unrolled loop keeps two steps of B live and spills accumulators.
template <int R, bool Packed>
void micro_any(int kc, const float* A, std::ptrdiff_t ars, std::ptrdiff_t aks, const float* Bp, float* c, int ldc,
               bool add) {
  if (Packed) ars = 1, aks = MR;
#if !defined(__wasm__)
  for (int r = 0; r < R; ++r)  // the tile of C is written (or read) at the end: start its lines on their way now
    for (int v = 0; v < NR; v += 64 / int(sizeof(float))) __builtin_prefetch(c + r * ldc + v, 1);
#endif
  batch acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = batch(0.0f);
#pragma clang loop unroll(disable)
  for (int k = 0; k < kc; ++k) {
    batch b[NV];
    for (int v = 0; v < NV; ++v) b[v] = load(Bp + v * W);
    for (int r = 0; r < R; ++r) {
      const batch a(A[r * ars]);
      for (int v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(a, b[v], acc[r][v]);
    }
    A += aks;
    Bp += NR;
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) {
      float* p = c + r * ldc + v * W;
      store(p, add ? acc[r][v] + load(p) : acc[r][v]);
    }
}

template <int R>
void micro(int kc, const float* Ap, const float* Bp, float* c, int ldc, bool add) {
  micro_any<R, true>(kc, Ap, 1, MR, Bp, c, ldc, add);
}

template <int R>
void micro_strided(int kc, const float* A, std::ptrdiff_t ars, std::ptrdiff_t aks, const float* Bp, float* c,
                   int ldc, bool add) {
  micro_any<R, false>(kc, A, ars, aks, Bp, c, ldc, add);
}

using MicroFn = void (*)(int, const float*, const float*, float*, int, bool);
template <int... R>
MicroFn micro_for(int rows, std::integer_sequence<int, R...>) {
  static constexpr MicroFn table[] = {micro<R + 1>...};
  return table[rows - 1];
}

using MicroStridedFn = void (*)(int, const float*, std::ptrdiff_t, std::ptrdiff_t, const float*, float*, int, bool);
template <int... R>
MicroStridedFn micro_strided_for(int rows, std::integer_sequence<int, R...>) {
  static constexpr MicroStridedFn table[] = {micro_strided<R + 1>...};
  return table[rows - 1];
}

// Runs f on C directly when the tile is whole, else on a padded copy of its rows x cols corner.
template <class F>
void on_tile(int rows, int cols, float* C, int ldc, bool add, F f) {
  if (cols == NR) return f(C, ldc);
  alignas(64) float t[MR * NR];
  if (add)
    for (int r = 0; r < rows; ++r) {
      std::memcpy(t + r * NR, C + std::size_t(r) * ldc, sizeof(float) * cols);
      std::fill(t + r * NR + cols, t + (r + 1) * NR, 0.0f);
    }
  f(t, NR);
  for (int r = 0; r < rows; ++r) std::memcpy(C + std::size_t(r) * ldc, t + r * NR, sizeof(float) * cols);
}

}  // namespace

void pack_a(int rows, int kc, float alpha, const float* A, int lda, float* Ap) {
  int k0 = 0;
#if defined(__wasm_simd128__)
  if (rows == MR && MR >= 4) {  // four rows at a time through 4x4 transposes, the rest one by one
    const v128_t f = wasm_f32x4_splat(alpha);
    for (; k0 + 4 <= kc; k0 += 4) {
      v128_t a[4];
      for (int r = 0; r < 4; ++r) a[r] = wasm_f32x4_mul(f, wasm_v128_load(A + std::size_t(r) * lda + k0));
      transpose4(a[0], a[1], a[2], a[3]);
      for (int i = 0; i < 4; ++i) wasm_v128_store(Ap + std::size_t(k0 + i) * MR, a[i]);
      for (int r = 4; r < MR; ++r)
        for (int i = 0; i < 4; ++i) Ap[std::size_t(k0 + i) * MR + r] = alpha * A[std::size_t(r) * lda + k0 + i];
    }
  }
#endif
  for (int r = 0; r < rows; ++r) {
    const float* src = A + std::size_t(r) * lda;
    for (int k = k0; k < kc; ++k) Ap[std::size_t(k) * MR + r] = alpha * src[k];
  }
  for (int r = rows; r < MR; ++r)
    for (int k = 0; k < kc; ++k) Ap[std::size_t(k) * MR + r] = 0.0f;
}

void pack_a_trans(int rows, int kc, const float* A, int lda, float* Ap) {
  for (int k = 0; k < kc; ++k) {
    const float* src = A + std::size_t(k) * lda;
    float* dst = Ap + std::size_t(k) * MR;
    for (int r = 0; r < rows; ++r) dst[r] = src[r];
    for (int r = rows; r < MR; ++r) dst[r] = 0.0f;
  }
}

void pack_b(bool trans, int kc, int cols, const float* B, int ldb, float* Bp, std::size_t panel_stride) {
  if (!trans && kRowOrderPacking) {  // row k of B into row k of every panel: B read in its own order, one stream
    for (int k = 0; k < kc; ++k) {
      const float* src = B + std::size_t(k) * ldb;
      float* dst = Bp + std::size_t(k) * NR;
      for (int j0 = 0; j0 < cols; j0 += NR, dst += panel_stride) {
        const int n = std::min(NR, cols - j0);
        std::memcpy(dst, src + j0, sizeof(float) * n);
        std::fill(dst + n, dst + NR, 0.0f);
      }
    }
    return;
  }
  for (int j0 = 0; j0 < cols; j0 += NR, Bp += panel_stride) {
    const int n = std::min(NR, cols - j0);
    if (!trans) {
      for (int k = 0; k < kc; ++k) {
        float* dst = Bp + std::size_t(k) * NR;
        std::memcpy(dst, B + std::size_t(k) * ldb + j0, sizeof(float) * n);
        std::fill(dst + n, dst + NR, 0.0f);
      }
    } else {
      // column j of the panel is row j0 + j of B: read rows contiguously, write with stride NR
      int k0 = 0;
#if defined(__wasm_simd128__)
      if (n == NR) {  // 4 x 4 blocks through transposes
        for (; k0 + 4 <= kc; k0 += 4)
          for (int j = 0; j < NR; j += 4) {
            v128_t b[4];
            for (int i = 0; i < 4; ++i) b[i] = wasm_v128_load(B + std::size_t(j0 + j + i) * ldb + k0);
            transpose4(b[0], b[1], b[2], b[3]);
            for (int i = 0; i < 4; ++i) wasm_v128_store(Bp + std::size_t(k0 + i) * NR + j, b[i]);
          }
      }
#endif
      for (int j = 0; j < n; ++j) {
        const float* src = B + std::size_t(j0 + j) * ldb;
        for (int k = k0; k < kc; ++k) Bp[std::size_t(k) * NR + j] = src[k];
      }
      if (n < NR)
        for (int k = 0; k < kc; ++k) std::fill(Bp + std::size_t(k) * NR + n, Bp + std::size_t(k + 1) * NR, 0.0f);
    }
  }
}

void tile(int rows, int cols, int kc, const float* Ap, const float* Bp, float* C, int ldc, bool add) {
  const MicroFn f = micro_for(rows, std::make_integer_sequence<int, MR>());
  on_tile(rows, cols, C, ldc, add, [&](float* c, int ld) { f(kc, Ap, Bp, c, ld, add); });
}

void tile_strided(int rows, int cols, int kc, const float* A, std::ptrdiff_t ars, std::ptrdiff_t aks,
                  const float* Bp, float* C, int ldc, bool add) {
  const MicroStridedFn f = micro_strided_for(rows, std::make_integer_sequence<int, MR>());
  on_tile(rows, cols, C, ldc, add, [&](float* c, int ld) { f(kc, A, ars, aks, Bp, c, ld, add); });
}

}  // namespace simd

namespace {

void zero_rows(int M, int N, float* C, int ldc) {
  for (int i = 0; i < M; ++i) std::fill(C + std::size_t(i) * ldc, C + std::size_t(i) * ldc + N, 0.0f);
}

// The panels of Aᵀ for mc rows of C (A [kc, mc], leading dimension lda), panel p at Ap + p·kc·MR: row k of A is
// read whole and dealt out to every panel, one stream instead of a stride-lda walk per panel.
void pack_a_trans_block(int mc, int kc, const float* A, int lda, float* Ap) {
  using simd::MR;
  const std::size_t ps = std::size_t(kc) * MR;
  for (int k = 0; k < kc; ++k) {
    const float* src = A + std::size_t(k) * lda;
    float* dst = Ap + std::size_t(k) * MR;
    for (int i = 0; i < mc; i += MR, dst += ps) {
      const int rows = std::min(MR, mc - i);
      for (int r = 0; r < rows; ++r) dst[r] = src[i + r];
      for (int r = rows; r < MR; ++r) dst[r] = 0.0f;
    }
  }
}

// transA: A is [K, M] (C = Aᵀ·B); trans: B is [N, K] (C = A·Bᵀ).
void gemm(bool transA, bool trans, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
          int ldc, bool accumulate) {
  using namespace simd;
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate) zero_rows(M, N, C, ldc);
    return;
  }
  // K in equal blocks of at most KC, so that no block is a thin remainder
  const int kblocks = (K + KC - 1) / KC, kcmax = (K + kblocks - 1) / kblocks;
  const int ncmax = std::min(N, NC), mcmax = std::min(M, MC);
  thread_local std::vector<float> bp, ap;
  bp.resize(std::size_t((ncmax + NR - 1) / NR) * kcmax * NR);
  ap.resize(std::size_t((mcmax + MR - 1) / MR) * kcmax * MR);
  for (int k0 = 0; k0 < K; k0 += kcmax) {
    const int kc = std::min(kcmax, K - k0);
    const bool add = accumulate || k0 > 0;
    for (int j0 = 0; j0 < N; j0 += ncmax) {
      const int nc = std::min(ncmax, N - j0);
      pack_b(trans, kc, nc, trans ? B + std::size_t(j0) * ldb + k0 : B + std::size_t(k0) * ldb + j0, ldb,
             bp.data(), std::size_t(kc) * NR);
      if (kAInPlace && !transA && !trans) {
        for (int j = 0; j < nc; j += NR) {
          const float* panel = bp.data() + std::size_t(j / NR) * kc * NR;
          for (int i = 0; i < M; i += MR)
            tile_strided(std::min(MR, M - i), std::min(NR, nc - j), kc, A + std::size_t(i) * lda + k0, lda, 1, panel,
                         C + std::size_t(i) * ldc + j0 + j, ldc, add);
        }
        continue;
      }
      for (int i0 = 0; i0 < M; i0 += mcmax) {
        const int mc = std::min(mcmax, M - i0);
        if (transA && kRowOrderPacking)
          pack_a_trans_block(mc, kc, A + std::size_t(k0) * lda + i0, lda, ap.data());
        else
          for (int i = 0; i < mc; i += MR) {
            float* panel = ap.data() + std::size_t(i / MR) * kc * MR;
            if (transA)
              pack_a_trans(std::min(MR, mc - i), kc, A + std::size_t(k0) * lda + i0 + i, lda, panel);
            else
              pack_a(std::min(MR, mc - i), kc, 1.0f, A + std::size_t(i0 + i) * lda + k0, lda, panel);
          }
        for (int j = 0; j < nc; j += NR) {
          const float* panel = bp.data() + std::size_t(j / NR) * kc * NR;
          for (int i = 0; i < mc; i += MR)
            tile(std::min(MR, mc - i), std::min(NR, nc - j), kc, ap.data() + std::size_t(i / MR) * kc * MR, panel,
                 C + std::size_t(i0 + i) * ldc + j0 + j, ldc, add);
        }
      }
    }
  }
}

}  // namespace

void gemm_nn(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate) {
  gemm(false, false, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void gemm_nt(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate) {
  gemm(false, true, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void gemm_tn(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate) {
  gemm(true, false, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

}  // namespace lookback
