// The all-heads products of attention built on the GEMM, one head at a time: scores (out[H,T,S] =
// scale·q·kᵀ) and blend (out[T,H,D] = Σ_s w·v). Not here: masking and softmax (mask.cpp, softmax.cpp) or the
// fused attention (attention.cpp).
#include "lookback/kernels.hpp"

namespace lookback {

void scores(const float* q, const float* k, float* out, int T, int S, int H, int D, float scale) {
  // q: [T,H,D], k: [S,H,D] -> out: [H,T,S]
  for (int h = 0; h < H; ++h) {
    float* o = out + std::size_t(h) * T * S;
    gemm_nt(T, S, D, q + h * D, H * D, k + h * D, H * D, o, S, false);
    for (std::size_t i = 0; i < std::size_t(T) * S; ++i) o[i] *= scale;
  }
}

void blend(const float* w, const float* v, float* out, int T, int S, int H, int D) {
  // w: [H,T,S], v: [S,H,D] -> out: [T,H,D]
  for (int h = 0; h < H; ++h)
    gemm_nn(T, D, S, w + std::size_t(h) * T * S, S, v + h * D, H * D, out + h * D, H * D, false);
}

}  // namespace lookback
