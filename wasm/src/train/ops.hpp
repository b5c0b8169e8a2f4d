// Forward and backward of every op the trainer needs, on raw pointers (one sequence at a time).
// Forward ops store what their backward needs (inverse RMS, softmax weights); backward ops accumulate
// weight gradients (+=) and write input gradients (=) unless noted.
// The matrix products and the SwiGLU gate are the core's (lookback/kernels.hpp: gemm_nn, gemm_nt, gemm_tn;
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

// Causal self-attention of one sequence, head by head through GEMMs, skipping the masked blocks.
// q, k, v, o: [T, H*D] (row stride ld); p: [H, T, T] softmax weights (upper triangle written as zero).
void attention_fwd(const float* q, const float* k, const float* v, float* p, float* o, int T, int H, int D,
                   int ld);
// Multiply-add work of attention_fwd as executed (2 flops each; the blocks on the diagonal are computed whole);
// attention_bwd does twice this.
double attention_flops(int T, int H, int D);
// dq, dk, dv written (same layout as q); ds: scratch [T, T].
void attention_bwd(const float* q, const float* k, const float* v, const float* p, const float* dout,
                   float* dq, float* dk, float* dv, float* ds, int T, int H, int D, int ld);

// GELU (exact, with erf) in place and its backward (x is the input before the activation).
void gelu_fwd(const float* x, float* y, int n);
void gelu_bwd(const float* x, const float* dy, float* dx, int n);

// Softmax cross-entropy of logits [R, V] against targets[R]. Returns Σ loss (double) and turns logits, in
// place, into its gradient (softmax - onehot) · scale.
double cross_entropy(float* logits, const std::uint16_t* targets, int R, int V, float scale);

}  // namespace lookback::train
