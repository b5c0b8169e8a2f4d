// Row-major GEMM, C (+)= A·B and C (+)= A·Bᵀ, vectorised with a register-tiled micro-kernel.
// B is packed, one panel of NR columns and KC rows at a time, into a zero-padded contiguous buffer;
// the same micro-kernel then serves both layouts and every edge. Not threaded (the caller may split M).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/simd.hpp"
#include "lookback/kernels.hpp"

namespace lookback {
namespace {

using simd::batch;
using simd::W;
constexpr int NV = 2;                  // vectors per micro-tile row
constexpr int NR = NV * W;             // columns per micro-tile
constexpr int MR = W >= 8 ? 6 : 4;     // rows per micro-tile (fits the register file: MR*NV + NV + 1)
constexpr int KC = 256;                // depth of one packed panel

// c[rows, NR] = A[rows, kc] · Bp[kc, NR] (+ c when add); rows <= MR; c has leading dimension ldc.
template <int R>
void micro(int kc, const float* A, int lda, const float* Bp, float* c, int ldc, bool add) {
  batch acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = add ? simd::load(c + r * ldc + v * W) : batch(0.0f);
  for (int k = 0; k < kc; ++k) {
    batch b[NV];
    for (int v = 0; v < NV; ++v) b[v] = simd::load(Bp + k * NR + v * W);
    for (int r = 0; r < R; ++r) {
      const batch a(A[r * lda + k]);
      for (int v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(a, b[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) simd::store(c + r * ldc + v * W, acc[r][v]);
}

using MicroFn = void (*)(int, const float*, int, const float*, float*, int, bool);
MicroFn micro_for(int rows) {
  static const MicroFn table[] = {micro<1>, micro<2>, micro<3>, micro<4>,
                                  micro<(MR > 4 ? 5 : 4)>, micro<(MR > 5 ? 6 : 4)>};
  return table[rows - 1];
}

// One C tile: rows x cols (cols <= NR); edges go through a small padded tile.
void tile(int rows, int cols, int kc, const float* A, int lda, const float* Bp, float* C, int ldc,
          bool add) {
  const MicroFn f = micro_for(rows);
  if (cols == NR) return f(kc, A, lda, Bp, C, ldc, add);
  alignas(64) float t[MR * NR];
  for (int r = 0; r < rows; ++r) {
    std::memcpy(t + r * NR, C + r * ldc, sizeof(float) * cols);
    std::fill(t + r * NR + cols, t + (r + 1) * NR, 0.0f);
  }
  f(kc, A, lda, Bp, t, NR, add);
  for (int r = 0; r < rows; ++r) std::memcpy(C + r * ldc, t + r * NR, sizeof(float) * cols);
}

// Packs B[k0:k0+kc, j0:j0+cols] (or its transpose when trans) into Bp[kc, NR], zero-padded.
void pack(bool trans, const float* B, int ldb, int k0, int kc, int j0, int cols, float* Bp) {
  for (int k = 0; k < kc; ++k) {
    float* dst = Bp + k * NR;
    if (!trans) {
      std::memcpy(dst, B + std::size_t(k0 + k) * ldb + j0, sizeof(float) * cols);
    } else {
      for (int c = 0; c < cols; ++c) dst[c] = B[std::size_t(j0 + c) * ldb + k0 + k];
    }
    std::fill(dst + cols, dst + NR, 0.0f);
  }
}

void zero_rows(int M, int N, float* C, int ldc) {
  for (int i = 0; i < M; ++i) std::fill(C + std::size_t(i) * ldc, C + std::size_t(i) * ldc + N, 0.0f);
}

void gemm(bool trans, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
          int ldc, bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate) zero_rows(M, N, C, ldc);
    return;
  }
  thread_local std::vector<float> panel;
  panel.resize(std::size_t(KC) * NR);
  for (int k0 = 0; k0 < K; k0 += KC) {
    const int kc = std::min(KC, K - k0);
    const bool add = accumulate || k0 > 0;
    for (int j0 = 0; j0 < N; j0 += NR) {
      const int cols = std::min(NR, N - j0);
      pack(trans, B, ldb, k0, kc, j0, cols, panel.data());
      for (int i0 = 0; i0 < M; i0 += MR) {
        const int rows = std::min(MR, M - i0);
        tile(rows, cols, kc, A + std::size_t(i0) * lda + k0, lda, panel.data(),
             C + std::size_t(i0) * ldc + j0, ldc, add);
      }
    }
  }
}

}  // namespace

std::size_t simd_width() { return simd::W; }

void gemm_nn(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate) {
  gemm(false, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void gemm_nt(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate) {
  gemm(true, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

}  // namespace lookback
