// lookback model kernels: the per-token building blocks of a transformer layer (RMSNorm, LayerNorm, rotary
// positions, SwiGLU/SiLU, GELU exact and tanh, the weight-times-activation product of a linear layer and its
// bias), on raw pointers and sizes.
// Each vectorised kernel (xsimd) has a plain scalar twin named `*_ref` (float64 accumulation) that the tests
// compare against. Not here: attention (kernels.hpp), weights, configs or any allocation policy (the model).
// Letters: T tokens (rows), H heads, D head width, C channels, N/K output/input widths.
#pragma once
#include <cstddef>

namespace lookback {

enum class RopeLayout { adjacent, half };  // pairs (2i, 2i+1) as llama2.c; or (i, i + D/2) as many PyTorch models

// y[R,n] = x · w / sqrt(mean(x²) + eps), row by row. Row strides ldx, ldy in floats (0 = n). y may be x.
void rmsnorm(const float* x, const float* w, float* y, int R, int n, float eps, int ldx = 0, int ldy = 0);
void rmsnorm_ref(const float* x, const float* w, float* y, int R, int n, float eps, int ldx = 0, int ldy = 0);

// y[R,n] = (x - mean(x)) / sqrt(var(x) + eps) · w + b, row by row (LayerNorm; var the biased variance). Row
// strides ldx, ldy in floats (0 = n). y may be x.
void layernorm(const float* x, const float* w, const float* b, float* y, int R, int n, float eps, int ldx = 0,
               int ldy = 0);
void layernorm_ref(const float* x, const float* w, const float* b, float* y, int R, int n, float eps, int ldx = 0,
                   int ldy = 0);

// How the rotary frequencies are stretched for long contexts. none: pair j turns by theta^(-2j/D) per position.
// llama3 (Llama 3.1's rope_scaling): wavelengths longer than original_context / low_freq_factor are divided by
// `factor`, shorter than original_context / high_freq_factor kept, and those between blended smoothly.
struct RopeScaling {
  enum class Type { none, llama3 } type = Type::none;
  float factor = 1.0f, low_freq_factor = 1.0f, high_freq_factor = 4.0f;
  int original_context = 8192;
};
// The angle per position of pair j of a head of width D (float64).
double rope_frequency(int j, int D, float theta, const RopeScaling& scaling = {});

// Rotary positions. A row of the table holds, for one position p, the factors of every element of a head:
//   table[t] = [ C[0..D) | S[0..D) ],  x'[i] = x[i]·C[i] + x[partner(i)]·S[i]
// where the angle of pair j is p · rope_frequency(j), partner(i) = i^1 for RopeLayout::adjacent (pairs
// (2j, 2j+1), as llama2.c) or i ± D/2 for RopeLayout::half (pairs (j, j+D/2)); S carries the sign.
// table: [T, 2, D] for positions[0..T). D must be even. Angles are computed in float64.
void rope_table(float* table, const int* positions, int T, int D, float theta, RopeLayout layout,
                const RopeScaling& scaling = {});
// Rotates every head of x[T, H, D] (row stride ld, 0 = H*D) in place by the rows of the table.
void rope(float* x, int T, int H, int D, int ld, const float* table, RopeLayout layout);
// The twin computes its angles itself from positions (float64), without a table.
void rope_ref(float* x, int T, int H, int D, int ld, const int* positions, float theta, RopeLayout layout,
              const RopeScaling& scaling = {});

// silu(a) = a / (1 + exp(-a)); swiglu: g[i] = silu(a[i]) · b[i]. g may alias a or b.
void swiglu(const float* a, const float* b, float* g, int n);
void swiglu_ref(const float* a, const float* b, float* g, int n);
// Its backward (training): from dg = dL/dg, da[i] = dg[i]·b[i]·silu'(a[i]) and db[i] = dg[i]·silu(a[i]), where
// silu'(a) = s·(1 + a·(1 - s)), s = 1 / (1 + exp(-a)). da and db must not alias a, b or dg.
void swiglu_backward(const float* a, const float* b, const float* dg, float* da, float* db, int n);
void swiglu_backward_ref(const float* a, const float* b, const float* dg, float* da, float* db, int n);
void silu(const float* x, float* y, int n);
void silu_ref(const float* x, float* y, int n);

// Exact GELU: y = x · (1 + erf(x / sqrt 2)) / 2. y may alias x.
void gelu(const float* x, float* y, int n);
void gelu_ref(const float* x, float* y, int n);
// GELU's tanh approximation (GPT-2's "gelu_new"): y = x · (1 + tanh(sqrt(2/π) · (x + 0.044715 x³))) / 2.
void gelu_tanh(const float* x, float* y, int n);
void gelu_tanh_ref(const float* x, float* y, int n);

// A linear layer with weights stored [out, in]: y[T,N] (+)= x[T,K] · W[N,K]ᵀ (row strides ldx, ldy;
// 0 = dense). Few rows (decoding) use row dot products over W without packing; many rows use gemm_nt.
void linear(const float* x, int T, int K, const float* W, int N, float* y, bool accumulate, int ldx = 0,
            int ldy = 0);
void linear_ref(const float* x, int T, int K, const float* W, int N, float* y, bool accumulate, int ldx = 0,
                int ldy = 0);

// y[T,N] += b[N] on every row (row stride ldy, 0 = N): a linear layer's bias.
void add_bias(float* y, const float* b, int T, int N, int ldy = 0);
void add_bias_ref(float* y, const float* b, int T, int N, int ldy = 0);

}  // namespace lookback
