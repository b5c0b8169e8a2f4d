// Private helpers shared by the vectorised kernels: the batch type of this build, small loads/stores, and the
// pieces of the matrix product (gemm.cpp) that attention.cpp reuses with its own loops.
// Not a public header: kernels' callers see only pointers and sizes (lookback/kernels.hpp).
//
// What xsimd does here. xsimd 8 has no WebAssembly architecture, so the WebAssembly build compiles its SSE4.1
// path (-msse4.1 beside -msimd128), and Emscripten turns each SSE intrinsic into wasm SIMD128 instructions
// (its SSE emulation headers). Most of those map one to one; a few do not (a shuffle that becomes several,
// a max that keeps x86's NaN rule, a float<->int conversion done lane by lane), and where one sits in a hot
// loop the kernel has a `#if defined(__wasm_simd128__)` branch with raw wasm intrinsics instead: the 4x4
// transpose below and the packing loops (gemm.cpp), the pairwise max and the row scaling (attention.cpp), the
// half-to-float conversion (matvec_f16.cpp), the int16 dot products (matvec_q8.cpp). Natively xsimd picks the
// machine's widest instruction set (AVX2, AVX-512). So each kernel has at most two branches, the xsimd one
// (native, and WebAssembly by emulation) and the raw-wasm one; the tests run both builds.
#pragma once
#include <cstddef>

#include <xsimd/xsimd.hpp>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace lookback::simd {

using batch = xsimd::batch<float>;
constexpr int W = static_cast<int>(batch::size);

inline batch load(const float* p) { return batch::load_unaligned(p); }
inline void store(float* p, const batch& b) { b.store_unaligned(p); }
inline float sum(const batch& b) { return xsimd::hadd(b); }

#if defined(__wasm_simd128__)
// In place, rows a, b, c, d become columns (four shuffles of pairs, then four of halves).
inline void transpose4(v128_t& a, v128_t& b, v128_t& c, v128_t& d) {
  const v128_t ab0 = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab1 = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
  const v128_t cd0 = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd1 = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
  a = wasm_i32x4_shuffle(ab0, cd0, 0, 1, 4, 5);
  b = wasm_i32x4_shuffle(ab0, cd0, 2, 3, 6, 7);
  c = wasm_i32x4_shuffle(ab1, cd1, 0, 1, 4, 5);
  d = wasm_i32x4_shuffle(ab1, cd1, 2, 3, 6, 7);
}
#endif

// ---- packed-panel matrix product (gemm.cpp) ------------------------------------------------------------
// The micro-kernel keeps an MR x NR tile of C in registers and walks k over a packed panel of A (MR rows,
// [k][MR]) and one of B (NR columns, [k][NR]): per step NV vector loads of B, MR broadcasts of A, MR*NV
// multiply-adds. WebAssembly has no FMA and V8 allocates 15 xmm registers: 5 x 8 needs 10 accumulators,
// 2 B vectors, the broadcast and one product, and does not spill (6 x 8 does, and runs slower). AVX-512 has 32
// registers: 12 x 32 keeps 24 accumulators (12 broadcasts, load-port operations, per 24 multiply-adds), which
// measured faster than 6 x 32 on the trainer's products.
// The sizes can be overridden with -D for tuning experiments (tests/bench/variants.mjs).
#ifndef LOOKBACK_GEMM_MR
#define LOOKBACK_GEMM_MR (W >= 16 ? 12 : W >= 8 ? 6 : 5)
#endif
#ifndef LOOKBACK_GEMM_NV
#define LOOKBACK_GEMM_NV 2
#endif
constexpr int NV = LOOKBACK_GEMM_NV;  // vectors per tile row
constexpr int NR = NV * W;            // columns per tile
constexpr int MR = LOOKBACK_GEMM_MR;  // rows per tile

// Packs alpha · A[rows, kc] (rows <= MR, leading dimension lda) into Ap[kc][MR], padding rows with zeros.
void pack_a(int rows, int kc, float alpha, const float* A, int lda, float* Ap);
// Packs the columns of A[kc, rows] (rows <= MR, leading dimension lda) into Ap[kc][MR], padding with zeros: the
// panel of Aᵀ without a transpose.
void pack_a_trans(int rows, int kc, const float* A, int lda, float* Ap);
// Packs B[kc, cols] (or, when trans, the transpose of B[cols, kc]) into ceil(cols / NR) panels of [kc][NR]
// floats, zero-padded; panel p starts at Bp + p * panel_stride (>= kc * NR).
void pack_b(bool trans, int kc, int cols, const float* B, int ldb, float* Bp, std::size_t panel_stride);
// C[rows, cols] (+= when add) Ap · Bp over kc steps of one A panel and one B panel; rows <= MR, cols <= NR.
void tile(int rows, int cols, int kc, const float* Ap, const float* Bp, float* C, int ldc, bool add);
// The same with A read in place instead of from a packed panel: element (r, k) of A is A[r·ars + k·aks], so a
// row-major A (ars = lda, aks = 1) and a transposed view of one (ars = 1, aks = lda) need no packing. For
// operands that sit in cache (attention's blocks); rows <= MR, cols <= NR.
void tile_strided(int rows, int cols, int kc, const float* A, std::ptrdiff_t ars, std::ptrdiff_t aks,
                  const float* Bp, float* C, int ldc, bool add);

}  // namespace lookback::simd
