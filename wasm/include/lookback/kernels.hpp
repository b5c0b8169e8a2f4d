// lookback kernels: the numeric building blocks of attention, on raw pointers, sizes and strides.
// Each vectorised kernel (xsimd) has a plain scalar twin named `*_ref` that the tests compare against.
// Not here: argument validation for callers from JS (the bindings do it), allocation policy, models.
// Letters: T queries, S keys, H heads, D head width, C channels (d_model), M/N/K matrix sizes.
// Scratch: gemm_nn/gemm_nt/gemm_tn and attention pack their operands into per-thread buffers (thread_local vectors)
// that grow to the largest call made on that thread and are kept for the next one (never shrunk).
#pragma once
#include <cstddef>
#include <cstdint>

namespace lookback {

// Width of one SIMD vector of floats in this build (4 in WebAssembly, 8 or 16 natively).
std::size_t simd_width();

// C[M,N] (+)= A[M,K] · B[K,N]; row-major with leading dimensions lda, ldb, ldc.
void gemm_nn(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate);
void gemm_nn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate);
// C[M,N] (+)= A[M,K] · B[N,K]ᵀ.
void gemm_nt(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate);
void gemm_nt_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate);
// C[M,N] (+)= A[K,M]ᵀ · B[K,N] (a weight gradient: the sum over K rows of outer products).
void gemm_tn(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
             bool accumulate);
void gemm_tn_ref(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                 bool accumulate);

// Σ a[i]·b[i] over n elements.
float dot(const float* a, const float* b, int n);
float dot_ref(const float* a, const float* b, int n);

// Scores of every head: out[H,T,S] = scale · q[t,h,:]·k[s,h,:], q: [T,H,D], k: [S,H,D].
void scores(const float* q, const float* k, float* out, int T, int S, int H, int D, float scale);
void scores_ref(const float* q, const float* k, float* out, int T, int S, int H, int D, float scale);

// Masks, as bytes [T,S]: 1 = the query may look at the key, 0 = hidden.
// Causal: query t sits at absolute position t + (S - T) and sees keys s <= that position.
void causal_mask(std::uint8_t* mask, int T, int S);
// Padding: keys s >= valid are hidden from every query.
void padding_mask(std::uint8_t* mask, int T, int S, int valid);
// x[R,C]: entries whose mask byte is 0 become -inf.
void apply_mask(float* x, const std::uint8_t* mask, int R, int C);

// Row softmax of x[R,C] in place: exp((x - rowmax) / temperature) normalised. -inf gives exactly 0;
// a row with no finite entry (fully masked) becomes all zeros. Returns the number of such rows.
// temperature must be > 0.
int softmax_rows(float* x, int R, int C, float temperature);
int softmax_rows_ref(float* x, int R, int C, float temperature);

// Weighted blend of values: out[T,H,D] = Σ_s w[h,t,s] · v[s,h,:], w: [H,T,S], v: [S,H,D].
void blend(const float* w, const float* v, float* out, int T, int S, int H, int D);
void blend_ref(const float* w, const float* v, float* out, int T, int S, int H, int D);

// Causal self-attention for training, keeping what the backward needs. q, k, v, o: [T, H*D] with row stride
// ld (floats); p: [H, T, T] softmax weights of softmax(q·kᵀ / sqrt(D)), written whole (zero above the diagonal).
void causal_attention_forward(const float* q, const float* k, const float* v, float* p, float* o, int T, int H,
                              int D, int ld);
void causal_attention_forward_ref(const float* q, const float* k, const float* v, float* p, float* o, int T,
                                  int H, int D, int ld);
// Its backward from the forward's p and dout = ∂loss/∂o: dq, dk, dv written (same layout as q).
void causal_attention_backward(const float* q, const float* k, const float* v, const float* p, const float* dout,
                               float* dq, float* dk, float* dv, int T, int H, int D, int ld);
void causal_attention_backward_ref(const float* q, const float* k, const float* v, const float* p,
                                   const float* dout, float* dq, float* dk, float* dv, int T, int H, int D, int ld);

// Multi-head attention on already-projected q, k, v (token-major, with row strides in floats).
struct AttentionShape {
  int T = 1, S = 1;      // queries, keys
  int H = 1, Hkv = 1;    // query heads; key/value heads (H % Hkv == 0; query head h reads h / (H / Hkv))
  int D = 1;             // head width
  int ldq = 0, ldk = 0, ldv = 0, ldo = 0;  // floats between consecutive tokens; 0 = dense (H*D or Hkv*D)
  float scale = 1.0f;    // usually 1/sqrt(D)
  float temperature = 1.0f;
  bool causal = false;   // causal with offset S - T (the queries are the last T positions)
};
// q: [T,H,D], k and v: [S,Hkv,D], out: [T,H,D]; weights (optional, may be null): [H,T,S].
// mask (optional): [T,S] bytes, 1 = visible, combined with causal. Causal work skips the hidden half.
// Returns the number of (head, query) rows that had no visible key (their output is zero).
int attention(const float* q, const float* k, const float* v, float* out, float* weights,
              const AttentionShape& shape, const std::uint8_t* mask = nullptr);
int attention_ref(const float* q, const float* k, const float* v, float* out, float* weights,
                  const AttentionShape& shape, const std::uint8_t* mask = nullptr);

}  // namespace lookback
