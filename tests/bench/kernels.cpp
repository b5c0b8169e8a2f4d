// Benchmark-only entry points into the kernels (no Embind, no copies, no validation): the caller owns
// buffers in the module's heap and passes their addresses. Built by tests/bench/build-kernels.mjs into
// .build/bench/; never part of the web module.
#include <emscripten/emscripten.h>

#include "lookback/kernels.hpp"

extern "C" {

EMSCRIPTEN_KEEPALIVE int bench_attention(const float* q, const float* k, const float* v, float* out, int T, int H,
                                         int D, int causal) {
  lookback::AttentionShape a;
  a.T = a.S = T;
  a.H = a.Hkv = H;
  a.D = D;
  a.scale = 1.0f / __builtin_sqrtf(float(D));
  a.causal = causal != 0;
  return lookback::attention(q, k, v, out, nullptr, a);
}

EMSCRIPTEN_KEEPALIVE void bench_gemm(int M, int N, int K, const float* A, const float* B, float* C, int transB) {
  (transB ? lookback::gemm_nt : lookback::gemm_nn)(M, N, K, A, K, B, transB ? K : N, C, N, false);
}

EMSCRIPTEN_KEEPALIVE int bench_simd_width() { return int(lookback::simd_width()); }
}
