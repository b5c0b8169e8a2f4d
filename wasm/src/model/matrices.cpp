// Building the Transformer's matrices in their load-time format (float32 packed for the GEMM, conversion to
// float16, Q8 or Q4 blocks: once)
// and the product dispatch: matvec kernels for few rows, the packed GEMM for many. Not here: the kernels.
#include "model/matrices.hpp"

#include <algorithm>
#include <cmath>

#include "lookback/kernels.hpp"
#include "lookback/matvec.hpp"
#include "lookback/nn.hpp"
#include "lookback/packed_gemm.hpp"
#include "lookback/split.hpp"
#include "model/errors.hpp"
#include "base/fp16.hpp"

namespace lookback {
namespace {

// Floats of converted weights one GEMM call of a compact matrix works on (rows * K).
constexpr std::size_t kChunkFloats = std::size_t(1) << 18;

// Rows n0..n0+rows of a compact matrix as floats, [rows, K].
void rows_to_float(const Matrix& W, int n0, int rows, float* out) {
  const std::size_t K = std::size_t(W.K);
  if (W.format == WeightFormat::f16) {
    const std::uint16_t* h = W.f16 + n0 * K;
    for (std::size_t i = 0; i < rows * K; ++i) out[i] = half_to_float(h[i]);
    return;
  }
  if (W.format == WeightFormat::q4) return dequantize_q4(q4_rows(W.q4, W.K, n0), rows, W.K, out);  // n0: see below
  dequantize_q8(q8_rows(W.q8, W.K, n0), rows, W.K, out);  // n0: a multiple of the chunk, itself of 16
}

}  // namespace

const std::vector<WeightFormat>& weight_formats() {
  static const std::vector<WeightFormat> all = {WeightFormat::f32, WeightFormat::f16, WeightFormat::q8,
                                                WeightFormat::q4};
  return all;
}

const char* weight_format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::f32: return "f32";
    case WeightFormat::f16: return "f16";
    case WeightFormat::q8: return "q8";
    case WeightFormat::q4: return "q4";
  }
  return "?";
}

WeightFormat weight_format(const std::string& name) {
  std::string names;
  const auto& all = weight_formats();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (name == weight_format_name(all[i])) return all[i];
    names += std::string(i == 0 ? "'" : i + 1 == all.size() ? " or '" : ", '") + weight_format_name(all[i]) + "'";
  }
  model_error("weights must be ", names, " (got '", name, "')");
}

namespace {

// y (+)= x·Wᵀ without the bias.
void product(const Matrix& W, const float* x, int T, float* y, bool acc, int ldx, int ldy) {
  if (T <= kMatvecRows) {
    switch (W.format) {
      case WeightFormat::f32: return matvec_split(x, T, W.K, W.f32, W.N, y, acc, ldx, ldy, W.stream);
      case WeightFormat::f16: return matvec_f16_split(x, T, W.K, W.f16, W.N, y, acc, ldx, ldy, W.stream);
      case WeightFormat::q8: return matvec_q8_split(x, T, W.K, W.q8, W.N, y, acc, ldx, ldy);
      case WeightFormat::q4: return matvec_q4_split(x, T, W.K, W.q4, W.N, y, acc, ldx, ldy);
    }
  }
  if (W.format == WeightFormat::f32) return gemm_packed_split(T, W.N, W.K, x, ldx, W.packed, y, ldy, acc);
  const int chunk = std::max<int>(16, int(kChunkFloats / std::size_t(std::max(W.K, 1))) / 16 * 16);
  thread_local std::vector<float> rows;
  rows.resize(std::size_t(std::min(chunk, W.N)) * W.K);
  for (int n0 = 0; n0 < W.N; n0 += chunk) {
    const int n = std::min(chunk, W.N - n0);
    rows_to_float(W, n0, n, rows.data());
    gemm_nt_split(T, n, W.K, x, ldx, rows.data(), W.K, y + n0, ldy, acc);
  }
}

}  // namespace

void apply(const Matrix& W, const float* x, int T, float* y, bool acc, int ldx, int ldy) {
  if (!ldx) ldx = W.K;
  if (!ldy) ldy = W.N;
  product(W, x, T, y, acc, ldx, ldy);
  if (W.bias) add_bias(y, W.bias, T, W.N, ldy);
}

Matrix Matrices::add(const float* w, int N, int K) {
  Matrix m;
  m.format = format_, m.N = N, m.K = K;
  const std::size_t n = std::size_t(N) * K;
  switch (format_) {
    case WeightFormat::f32: {
      m.f32 = w;
      bytes_ += 4 * n;
      const std::size_t at = packed_.size();
      packed_.resize(at + packed_b_floats(K, N));
      pack_b_matrix(true, K, N, w, K, packed_.data() + at);
      break;
    }
    case WeightFormat::f16: {
      const std::size_t at = f16_.size();
      f16_.resize(at + n);
      for (std::size_t i = 0; i < n; ++i) {
        if (std::fabs(w[i]) > 65504.0f) model_error("weights \"f16\": a weight is ", w[i], ", outside the half range");
        const std::uint16_t h = float_to_half(w[i]);
        f16_[at + i] = (h & 0x7C00u) ? h : 0;  // subnormal halves flushed to zero (they are slow to convert)
      }
      bytes_ += 2 * n;
      break;
    }
    case WeightFormat::q8: {
      const std::size_t at = q8_.size();
      q8_.resize(at + q8_bytes(N, K));
      quantize_q8(w, N, K, q8_.data() + at);
      bytes_ += q8_bytes(N, K);
      break;
    }
    case WeightFormat::q4: {
      const std::size_t at = q4_.size();
      q4_.resize(at + q4_bytes(N, K));
      quantize_q4(w, N, K, q4_.data() + at);
      bytes_ += q4_bytes(N, K);
      break;
    }
  }
  return m;
}

std::size_t Matrices::offset() const {
  switch (format_) {
    case WeightFormat::f32: return packed_.size();
    case WeightFormat::f16: return f16_.size();
    case WeightFormat::q8: return q8_.size();
    case WeightFormat::q4: return q4_.size();
  }
  return 0;
}

Matrices::Matrices(const Weights& w, WeightFormat f) : format_(f) {
  const ModelConfig& c = w.config();
  const int C = c.dim, HD = c.n_heads * c.head_dim, QKV = HD + 2 * c.n_kv_heads * c.head_dim;
  const int F = c.hidden_dim, F13 = c.mlp == Mlp::swiglu ? 2 * F : F;
  // offsets first (the compact buffers grow while adding), pointers after
  struct Pending {
    Matrix* m;
    std::size_t at;
  };
  std::vector<Pending> pending;
  auto put = [&](Matrix& m, const float* src, int N, int K, const float* bias = nullptr) {
    const std::size_t at = offset();
    m = add(src, N, K);
    m.bias = bias;
    pending.push_back({&m, at});
  };
  std::size_t total = 0, q8 = 0, q4 = 0, packed = 0;  // elements, Q8 and Q4 bytes, packed floats: allocated once
  auto count = [&](int N, int K) {
    total += std::size_t(N) * K, q8 += q8_bytes(N, K), q4 += q4_bytes(N, K), packed += packed_b_floats(K, N);
  };
  for (int l = 0; l < c.n_layers; ++l) count(QKV, C), count(C, HD), count(F13, C), count(C, F);
  count(c.vocab_size, C);
  if (format_ == WeightFormat::f32) packed_.reserve(packed);
  if (format_ == WeightFormat::f16) f16_.reserve(total);
  if (format_ == WeightFormat::q8) q8_.reserve(q8);
  if (format_ == WeightFormat::q4) q4_.reserve(q4);
  layers_.resize(std::size_t(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerView v = w.layer(l);
    put(layers_[l].wqkv, v.wqkv, QKV, C, v.qkv_bias);
    put(layers_[l].wo, v.wo, C, HD, v.wo_bias);
    put(layers_[l].w13, v.w13, F13, C, v.w13_bias);
    put(layers_[l].w2, v.w2, C, F, v.w2_bias);
  }
  put(classifier_, w.classifier(), c.vocab_size, C);
  for (const Pending& p : pending) {
    p.m->stream = (format_ == WeightFormat::f32 || format_ == WeightFormat::f16) && bytes_ > kStreamBytes;
    if (format_ == WeightFormat::f32) p.m->packed = packed_.data() + p.at;
    if (format_ == WeightFormat::f16) p.m->f16 = f16_.data() + p.at;
    if (format_ == WeightFormat::q8) p.m->q8 = q8_.data() + p.at;
    if (format_ == WeightFormat::q4) p.m->q4 = q4_.data() + p.at;
  }
}

}  // namespace lookback
