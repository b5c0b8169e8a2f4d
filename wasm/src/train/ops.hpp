// Forward and backward of every op the trainer needs, on raw pointers (one sequence at a time).
// Forward ops store what their backward needs (inverse RMS, softmax weights); backward ops accumulate
// weight gradients (+=) and write input gradients (=) unless noted.
// The matrix products, attention and the SwiGLU gate are the core's (lookback/kernels.hpp: gemm_nn, gemm_nt,
// gemm_tn, causal_attention_forward/backward;
// lookback/nn.hpp: swiglu, swiglu_backward); the trainer includes no kernel internals.
// Not here: parameters, batching, threads (sprout_train / window_train / trainer).
// Letters: T tokens, C channels, H heads, D head width, F MLP hidden, V vocabulary.
#pragma once
#include <cstdint>

namespace lookback::train {

// y[R,n] = x · rsqrt(mean(x²) + eps) · w; rinv[R] receives the inverse RMS of each row.
void rmsnorm_fwd(const float* x, const float* w, float* y, float* rinv, int R, int n, float eps);
// dx[R,n] = ∂/∂x (written, or added when accumulate); dw[n] += ∂/∂w.
void rmsnorm_bwd(const float* x, const float* w, const float* rinv, const float* dy, float* dx, float* dw,
                 int R, int n, bool accumulate);

// Rotary positions on adjacent pairs (2i, 2i+1) of each head, angle pos · theta^(-2i/D), in place on
// x[T, H*D] (row stride ld). pos0 is the position of row 0. bwd rotates by the opposite angle.
struct Rope {
  int T = 0, D = 0;
  float* cs = nullptr;  // [T, D/2, 2] cos, sin (owned by the caller, filled by init)
  void init(float* table, int T_, int D_, float theta, int pos0 = 0);
  void fwd(float* x, int H, int ld) const;
  void bwd(float* dx, int H, int ld) const;
};

// Causal self-attention itself is the core's (lookback/kernels.hpp: causal_attention_forward/backward).
// Its multiply-add work over the visible (query, key) pairs, 2 flops each, for the profile: what the kernels
// compute in whole tiles across the diagonal is not counted. The backward does twice this.
double attention_flops(int T, int H, int D);

// GELU (exact, with erf) in place and its backward (x is the input before the activation).
void gelu_fwd(const float* x, float* y, int n);
void gelu_bwd(const float* x, const float* dy, float* dx, int n);

// Softmax cross-entropy of logits [R, V] against targets[R]. Returns Σ loss (double) and turns logits, in
// place, into its gradient (softmax - onehot) · scale.
double cross_entropy(float* logits, const std::uint16_t* targets, int R, int V, float scale);

}  // namespace lookback::train
