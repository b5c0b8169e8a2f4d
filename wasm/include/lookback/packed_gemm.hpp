// lookback GEMM on a constant matrix packed once: C[M,N] (+)= A[M,K] · B, where B ([K,N], or [N,K] used
// transposed) was laid out beforehand in the panels the matrix product's micro-kernel reads, so that no call
// packs it again (a weight matrix kept resident, as other runtimes keep their constant tensors). Has a
// scalar `_ref` twin on the unpacked B. Not here: the per-call GEMM (kernels.hpp) or few-row products
// (matvec.hpp).
// Letters: M rows of A, K depth, N columns of C.
// Scratch: the packed A of each call lives in a per-thread buffer that grows to the largest call and is kept.
#pragma once
#include <cstddef>

namespace lookback {

// Floats needed to hold B [K,N] packed.
std::size_t packed_b_floats(int K, int N);
// Packs B: [K,N] with leading dimension ldb, or when trans, B: [N,K] (C = A·Bᵀ). packed: packed_b_floats(K, N).
void pack_b_matrix(bool trans, int K, int N, const float* B, int ldb, float* packed);
// C[M,N] (+)= A[M,K] · B for B packed by pack_b_matrix with the same K and N.
void gemm_packed(int M, int N, int K, const float* A, int lda, const float* packed, float* C, int ldc, bool accumulate);
// The same product in two steps, so that threads can share one packed A and divide B's column panels: A packed
// once (row panels r0..r1 of ceil(M / MR) per call, into packed_a_floats(M, K) floats), then any range of B's
// packed_panels(N) column panels computed from it. Every element of C is summed as gemm_packed sums it.
std::size_t packed_a_floats(int M, int K);
int packed_panels(int N);
void pack_a_rows(int M, int K, const float* A, int lda, int r0, int r1, float* ap);
void gemm_packed_panels(int M, int N, int K, const float* ap, const float* packed, int p0, int p1, float* C, int ldc,
                        bool accumulate);
// The twin reads B unpacked (trans as for pack_b_matrix).
void gemm_packed_ref(int M, int N, int K, const float* A, int lda, bool trans, const float* B, int ldb, float* C,
                     int ldc, bool accumulate);

}  // namespace lookback
