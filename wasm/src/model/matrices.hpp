// The weight matrices of a Transformer in the form its products read, chosen once at load: float32 (views of
// the Weights buffer for few rows, plus a copy packed once for the GEMM), float16, Q8 or Q4 blocks (copies made once;
// see lookback/matvec.hpp), and the one product every linear layer goes through. Not here: the other tensors
// (norms, embedding rows: Weights) or the forward pass (session.cpp).
// Letters: T rows of x, K input width, N output width.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/weights.hpp"

namespace lookback {

enum class WeightFormat { f32, f16, q8, q4 };

// Every weight storage, the one list (bindings, API, CLI and tools read it).
const std::vector<WeightFormat>& weight_formats();
// "f32" | "f16" | "q8" | "q4" (ModelError naming the list otherwise) and back.
WeightFormat weight_format(const std::string& name);
const char* weight_format_name(WeightFormat f);

// One [N, K] matrix (y = x·Wᵀ) in one format; only the pointers of its format are set.
struct Matrix {
  WeightFormat format = WeightFormat::f32;
  int N = 0, K = 0;
  const float* f32 = nullptr;         // [N, K]
  const std::uint16_t* f16 = nullptr; // [N, K] halves
  const std::int8_t* q8 = nullptr;    // q8_bytes(N, K): groups of four rows, scales inline (lookback/matvec.hpp)
  const std::uint8_t* q4 = nullptr;   // q4_bytes(N, K): groups of four rows, scales and mins inline (matvec.hpp)
  bool stream = false;                // f32, f16: few-row products read one weight row at a time (matvec.hpp)
  const float* packed = nullptr;      // f32: the matrix in the packed GEMM's panels (lookback/packed_gemm.hpp)
  const float* bias = nullptr;        // [N] float32 in every format (a view of the Weights buffer), or null
};

// Matrices above this many bytes in all (in their format) come from memory, not cache, at each decoding step
// (measured here: Sprout's 7.9 MB of float32 weights decode about 1.7x faster streamed): their few-row products
// in f32 and f16 stream one weight row at a time (Q8 and Q4 matrices are laid out to be read as one stream anyway).
constexpr std::size_t kStreamBytes = std::size_t(4) << 20;

// y[T,N] (+)= x[T,K] · Wᵀ (+ bias on every row) (row strides ldx, ldy; 0 = dense). Up to kMatvecRows rows read each weight once
// (matvec kernels); more rows go through the packed GEMM (float32: on the copy packed at load, so prefill packs
// no weight per call; compact formats: a chunk of rows at a time is converted to float first).
constexpr int kMatvecRows = 8;
void apply(const Matrix& W, const float* x, int T, float* y, bool accumulate, int ldx = 0, int ldy = 0);

class Matrices {
 public:
  struct Layer {
    Matrix wqkv, wo, w13, w2;
  };
  // f16: halves below the half normal range are flushed to zero; ModelError when a weight exceeds 65504.
  Matrices(const Weights& w, WeightFormat f);
  Matrices(const Matrices&) = delete;
  Matrices& operator=(const Matrices&) = delete;

  WeightFormat format() const { return format_; }
  const Layer& layer(int l) const { return layers_[std::size_t(l)]; }
  const Matrix& classifier() const { return classifier_; }
  // Bytes of every matrix a decoding step reads, in this format.
  std::size_t bytes() const { return bytes_; }

 private:
  Matrix add(const float* w, int N, int K);
  std::size_t offset() const;  // where the next matrix goes in this format's buffer

  WeightFormat format_;
  std::vector<Layer> layers_;
  Matrix classifier_;
  std::size_t bytes_ = 0;
  std::vector<std::uint16_t> f16_;
  std::vector<std::int8_t> q8_;
  std::vector<std::uint8_t> q4_;
  std::vector<float> packed_;  // f32: every matrix in the packed GEMM's panels, one after another
};

}  // namespace lookback
