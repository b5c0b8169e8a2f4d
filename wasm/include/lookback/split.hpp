// lookback kernels split over the thread pool (lookback/threads.hpp): the same arguments and the same results,
// bit for bit, as the one-thread kernels they call, because every output element is still computed by one
// thread in the same order (the work is divided by output columns, rows or heads, never along a sum). Small
// calls, and every call when one thread is in use, run the plain kernel. Not here: the kernels themselves.
#pragma once
#include <cstdint>

#include "lookback/kernels.hpp"

namespace lookback {

// attention (kernels.hpp) with the query heads, and ranges of their queries, divided among the threads.
int attention_split(const float* q, const float* k, const float* v, float* out, float* weights,
                    const AttentionShape& shape, const std::uint8_t* mask = nullptr);
// gemm_nn / gemm_nt (kernels.hpp) with the columns of C divided among the threads.
void gemm_nn_split(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                   bool accumulate);
void gemm_nt_split(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                   bool accumulate);
// gemm_packed (packed_gemm.hpp) with the rows of A and C divided among the threads, or from 64 rows on the column
// panels of B and C, from one A packed once and shared (gemm_packed_panels).
void gemm_packed_split(int M, int N, int K, const float* A, int lda, const float* packed, float* C, int ldc,
                       bool accumulate);
// matvec, matvec_f16, matvec_q8, matvec_q4 (matvec.hpp) with the weight rows divided among the threads.
void matvec_split(const float* x, int M, int K, const float* W, int N, float* y, bool accumulate, int ldx = 0,
                  int ldy = 0, bool stream = false);
void matvec_f16_split(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool accumulate,
                      int ldx = 0, int ldy = 0, bool stream = false);
void matvec_q8_split(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool accumulate,
                     int ldx = 0, int ldy = 0);
void matvec_q4_split(const float* x, int M, int K, const std::uint8_t* q, int N, float* y, bool accumulate,
                     int ldx = 0, int ldy = 0);

// fn(begin, end, context) on ranges of the rows [0, n) divided among the threads, each row about `work` operations
// (rows worth less than one part's minimum stay on the caller, in one call fn(0, n); no call for n <= 0): for the
// row-wise steps between the products (norms, positions, activations), which give the same rows whichever thread
// computes them.
using RowsFn = void (*)(int begin, int end, void* context);
void rows_split(int n, double work_per_row, RowsFn fn, void* context);

// The same with any callable f(begin, end).
template <class F>
void rows_split(int n, double work_per_row, F&& f) {
  rows_split(n, work_per_row, [](int b, int e, void* c) { (*static_cast<F*>(c))(b, e); }, static_cast<void*>(&f));
}

}  // namespace lookback
