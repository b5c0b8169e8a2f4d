// The weight matrices of a Transformer in the form its products read, chosen once at load: float32 (views of
// the Weights buffer for few rows, plus a copy packed once for the GEMM), float16, Q8 or Q4 blocks (copies made
// once, or filled a part at a time by a loader reading its file in parts; a compact format holds the token
// embedding too; see lookback/matvec.hpp), and the one product every linear layer goes through. Not here: the
// other tensors (norms, biases, positions: Weights) or the forward pass (session.cpp).
// Letters: T rows of x, K input width, N output width.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
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

// ModelError naming what a model of config c held as f needs, and a weight format it would fit in, when it needs
// more than `memory` bytes (0: no limit): loaders call it before allocating.
void check_model_fits(const ModelConfig& c, WeightFormat f, std::size_t memory);

class Matrices {
 public:
  struct Layer {
    Matrix wqkv, wo, w13, w2;
  };
  // f16: halves below the half normal range are flushed to zero; ModelError when a weight exceeds 65504.
  Matrices(const Weights& w, WeightFormat f);
  // Every matrix of w's config in a compact format (f16 or q8), allocated and empty, to be filled a part at a
  // time with put() by a loader that reads its file in parts; w (Weights(c, false)) holds the rest: the biases
  // (pointed at, so w must outlive this or move with it). The token embedding is held here too: as the tied
  // classifier, or in a matrix of its own (embedding()).
  struct Parts {};
  Matrices(const Weights& w, WeightFormat f, Parts);
  Matrices(Matrices&&) = default;  // the compact buffers move with their data
  Matrices(const Matrices&) = delete;
  Matrices& operator=(const Matrices&) = delete;

  // Rows [row, row + n) of one of lookback's matrix tensors (weights.hpp is_matrix_tensor; [n, K] floats),
  // converted into the format. ModelError for a name the config has no matrix for, rows outside it, or a weight
  // that is not finite (naming the tensor and index).
  void put(const std::string& name, int row, int n, const float* rows);
  // The token embedding when this holds it (in a compact format: the tied classifier, or a matrix of its own that
  // no product reads; float32 models read it from the Weights), else null; row() converts one of its rows.
  const Matrix* embedding() const { return holds_embedding_ ? (embedding_.N ? &embedding_ : &classifier_) : nullptr; }
  // Row n of a compact matrix as K floats.
  static void row(const Matrix& W, int n, float* out);
  // Whether put() takes the tensor (a matrix tensor, or the token embedding).
  bool wants(const std::string& name) const { return targets_.count(name) != 0; }
  // Rows [row, row + n) of a matrix tensor held as q4, written straight into the layout by write(n0, N, K, q4)
  // (rows n0..n0+n of the N-row Q4 matrix at q4): for files of 4-bit blocks the layout holds exactly. ModelError
  // as put(), and when the format is not q4 or a scale or min written is not finite.
  using Q4Writer = std::function<void(int n0, int N, int K, std::uint8_t* q4)>;
  void put_q4(const std::string& name, int row, int n, const Q4Writer& write);
  // ModelError naming the first tensor whose rows were not all put.
  void check_filled() const;
  // Bytes the matrices of a config take in a format (bytes()'s value once made).
  static std::uint64_t bytes_for(const ModelConfig& c, WeightFormat f);

  WeightFormat format() const { return format_; }
  const Layer& layer(int l) const { return layers_[std::size_t(l)]; }
  const Matrix& classifier() const { return classifier_; }
  // Bytes of every matrix a decoding step reads, in this format.
  std::size_t bytes() const { return bytes_; }

 private:
  Matrix add(const float* w, int N, int K);
  std::size_t offset() const;  // where the next matrix goes in this format's buffer
  // A tensor's rows inside one of the matrices (put's target), and how many of them were put.
  struct Target {
    Matrix* m;
    int row0, rows, put = 0;
  };
  std::map<std::string, Target> targets_;

  WeightFormat format_;
  std::vector<Layer> layers_;
  Matrix classifier_;
  Matrix embedding_;   // compact, untied: the token embedding in the format (no product reads it)
  bool holds_embedding_ = false;
  std::size_t bytes_ = 0;
  std::vector<std::uint16_t> f16_;
  std::vector<std::int8_t> q8_;
  std::vector<std::uint8_t> q4_;
  std::vector<float> packed_;  // f32: every matrix in the packed GEMM's panels, one after another
};

}  // namespace lookback
