// Building the Transformer's matrices in their load-time format (float32 packed for the GEMM, conversion to
// float16, Q8 or Q4 blocks: once, or a part at a time as a loader reads them)
// and the product dispatch: matvec kernels for few rows, the packed GEMM for many. Not here: the kernels.
#include "model/matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

// n floats -> halves; subnormal halves are flushed to zero (they are slow to convert).
void to_halves(const float* w, std::size_t n, std::uint16_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::fabs(w[i]) > 65504.0f) model_error("weights \"f16\": a weight is ", w[i], ", outside the half range");
    const std::uint16_t h = float_to_half(w[i]);
    out[i] = (h & 0x7C00u) ? h : 0;
  }
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
      to_halves(w, n, f16_.data() + at);
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

namespace {

// One matrix of a config: its shape, bias, where its floats lie in a Weights holding them (or null), and the
// tensors whose rows it stacks ({name, rows}, in order).
struct Slot {
  int N, K;
  const float* bias;
  const float* floats;
  std::vector<std::pair<std::string, int>> parts;
};

// Every matrix of w's config in order: per layer wqkv, wo, w13, w2, then the classifier.
std::vector<Slot> slots(const Weights& w) {
  const ModelConfig& c = w.config();
  const int C = c.dim, HD = c.n_heads * c.head_dim, KD = c.n_kv_heads * c.head_dim;
  const int F = c.hidden_dim;
  const bool swiglu = c.mlp == Mlp::swiglu;
  std::vector<Slot> out;
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerView v = w.layer(l);
    const std::string p = "layers." + std::to_string(l) + ".";
    out.push_back({HD + 2 * KD, C, v.qkv_bias, v.wqkv,
                   {{p + "attention.wq.weight", HD}, {p + "attention.wk.weight", KD}, {p + "attention.wv.weight", KD}}});
    out.push_back({C, HD, v.wo_bias, v.wo, {{p + "attention.wo.weight", C}}});
    std::vector<std::pair<std::string, int>> up = {{p + "feed_forward.w1.weight", F}};
    if (swiglu) up.push_back({p + "feed_forward.w3.weight", F});
    out.push_back({swiglu ? 2 * F : F, C, v.w13_bias, v.w13, up});
    out.push_back({C, F, v.w2_bias, v.w2, {{p + "feed_forward.w2.weight", C}}});
  }
  std::vector<std::pair<std::string, int>> head;
  if (!c.tied_embeddings) head.push_back({"output.weight", c.vocab_size});
  out.push_back({c.vocab_size, C, nullptr, w.classifier(), head});
  return out;
}

std::uint64_t format_bytes(WeightFormat f, int N, int K) {
  const std::uint64_t n = std::uint64_t(N) * std::uint64_t(K);
  switch (f) {
    case WeightFormat::f32: return 4 * n;
    case WeightFormat::f16: return 2 * n;
    case WeightFormat::q8: return std::uint64_t(N) * std::uint64_t(q8_blocks(K)) * (kQ8Block + 4);
    case WeightFormat::q4: return std::uint64_t(N) * std::uint64_t(q4_blocks(K)) * kQ4BlockBytes;
  }
  return 0;
}

// The Matrix members of a Layer in slots() order.
Matrix* slot_matrix(std::vector<Matrices::Layer>& layers, Matrix& classifier, std::size_t i) {
  if (i / 4 == layers.size()) return &classifier;
  Matrices::Layer& L = layers[i / 4];
  Matrix* const members[] = {&L.wqkv, &L.wo, &L.w13, &L.w2};
  return members[i % 4];
}

void check_finite_rows(const std::string& name, int row, int n, int K, const float* rows) {
  for (std::size_t i = 0, all = std::size_t(n) * std::size_t(K); i < all; ++i)
    if (!std::isfinite(rows[i]))
      model_error("tensor '", name, "' holds ", std::isnan(rows[i]) ? "NaN" : rows[i] > 0 ? "+Inf" : "-Inf", " at [",
                  row + int(i / std::size_t(K)), ", ", i % std::size_t(K), "]; weights must be finite");
}

// Bytes a model of config c takes held as f (about: the float32 GEMM panels are padded a little).
std::uint64_t model_bytes(const ModelConfig& c, WeightFormat f) {
  std::uint64_t held = 0, matrices = 0;
  for (const TensorSpec& s : tensor_specs(c)) (is_matrix_tensor(s.name) ? matrices : held) += s.size();
  if (f == WeightFormat::f32) return 4 * held + 8 * matrices;
  // compact: the embedding too (as the tied classifier, or a matrix of its own)
  const std::uint64_t embedding = std::uint64_t(c.vocab_size) * std::uint64_t(c.dim);
  return 4 * (held - embedding) + Matrices::bytes_for(c, f) + (c.tied_embeddings ? 0 : format_bytes(f, c.vocab_size, c.dim));
}

std::string gigabytes(std::uint64_t bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f GB", double(bytes) / 1e9);
  return s;
}

}  // namespace

void check_model_fits(const ModelConfig& c, WeightFormat f, std::size_t memory) {
  if (memory == 0) return;
  const std::uint64_t need = model_bytes(c, f);
  if (need <= memory) return;
  std::string instead;  // the first storage of the list (the most exact) that fits
  for (WeightFormat o : weight_formats())
    if (instead.empty() && model_bytes(c, o) <= memory)
      instead = std::string("; held as '") + weight_format_name(o) + "' it would take " + gigabytes(model_bytes(c, o));
  model_error("the model needs ", gigabytes(need), " with its weights held as '", weight_format_name(f), "', more than the ",
              gigabytes(memory), " WebAssembly's memory can still take", instead.empty() ? " in any weight format" : instead);
}

std::uint64_t Matrices::bytes_for(const ModelConfig& c, WeightFormat f) {
  std::uint64_t total = 0;
  const int C = c.dim, HD = c.n_heads * c.head_dim, KD = c.n_kv_heads * c.head_dim, F = c.hidden_dim;
  const int F13 = c.mlp == Mlp::swiglu ? 2 * F : F;
  for (int l = 0; l < c.n_layers; ++l)
    total += format_bytes(f, HD + 2 * KD, C) + format_bytes(f, C, HD) + format_bytes(f, F13, C) + format_bytes(f, C, F);
  return total + format_bytes(f, c.vocab_size, C);
}

Matrices::Matrices(const Weights& w, WeightFormat f) : format_(f) {
  const std::vector<Slot> all = slots(w);
  // offsets first (the compact buffers grow while adding), pointers after
  struct Pending {
    Matrix* m;
    std::size_t at;
  };
  std::vector<Pending> pending;
  std::size_t total = 0, q8 = 0, q4 = 0, packed = 0;  // elements, Q8 and Q4 bytes, packed floats: allocated once
  for (const Slot& s : all)
    total += std::size_t(s.N) * s.K, q8 += q8_bytes(s.N, s.K), q4 += q4_bytes(s.N, s.K), packed += packed_b_floats(s.K, s.N);
  if (format_ == WeightFormat::f32) packed_.reserve(packed);
  if (format_ == WeightFormat::f16) f16_.reserve(total);
  if (format_ == WeightFormat::q8) q8_.reserve(q8);
  if (format_ == WeightFormat::q4) q4_.reserve(q4);
  layers_.resize(std::size_t(w.config().n_layers));
  for (std::size_t i = 0; i < all.size(); ++i) {
    Matrix& m = *slot_matrix(layers_, classifier_, i);
    const std::size_t at = offset();
    m = add(all[i].floats, all[i].N, all[i].K);
    m.bias = all[i].bias;
    pending.push_back({&m, at});
  }
  // a compact format holds the token embedding too (the tied classifier, or a matrix of its own that no product
  // reads, not counted in bytes()), so that every loader gives the same model for the same weights
  holds_embedding_ = f != WeightFormat::f32;
  if (holds_embedding_ && !w.config().tied_embeddings) {
    const std::size_t at = offset(), counted = bytes_;
    embedding_ = add(w.embedding(), w.config().vocab_size, w.config().dim);
    bytes_ = counted;
    pending.push_back({&embedding_, at});
  }
  for (const Pending& p : pending) {
    p.m->stream = (format_ == WeightFormat::f32 || format_ == WeightFormat::f16) && bytes_ > kStreamBytes;
    if (format_ == WeightFormat::f32) p.m->packed = packed_.data() + p.at;
    if (format_ == WeightFormat::f16) p.m->f16 = f16_.data() + p.at;
    if (format_ == WeightFormat::q8) p.m->q8 = q8_.data() + p.at;
    if (format_ == WeightFormat::q4) p.m->q4 = q4_.data() + p.at;
  }
}

Matrices::Matrices(const Weights& w, WeightFormat f, Parts) : format_(f) {
  if (f == WeightFormat::f32) model_error("matrices filled in parts are held in a compact format, not f32");
  const std::vector<Slot> all = slots(w);
  holds_embedding_ = true;
  const ModelConfig& c = w.config();
  // the matrices, then (untied) the embedding, which no product reads: not in bytes()
  const std::uint64_t embedding = c.tied_embeddings ? 0 : format_bytes(f, c.vocab_size, c.dim);
  const std::uint64_t bytes = bytes_for(c, f);
  if (bytes > std::numeric_limits<std::size_t>::max() / 2) model_error("the matrices need ", bytes, " bytes, more than this build addresses");
  bytes_ = std::size_t(bytes);
  if (f == WeightFormat::f16) f16_.resize(std::size_t(bytes + embedding) / 2);
  if (f == WeightFormat::q8) q8_.resize(std::size_t(bytes + embedding));
  if (f == WeightFormat::q4) q4_.resize(std::size_t(bytes + embedding));
  layers_.resize(std::size_t(w.config().n_layers));
  std::size_t at = 0;  // bytes
  for (std::size_t i = 0; i < all.size(); ++i) {
    Matrix& m = *slot_matrix(layers_, classifier_, i);
    m.format = f, m.N = all[i].N, m.K = all[i].K, m.bias = all[i].bias;
    m.stream = f == WeightFormat::f16 && bytes_ > kStreamBytes;
    if (f == WeightFormat::f16) m.f16 = f16_.data() + at / 2;
    if (f == WeightFormat::q8) m.q8 = q8_.data() + at;
    if (f == WeightFormat::q4) m.q4 = q4_.data() + at;
    at += std::size_t(format_bytes(f, m.N, m.K));
    int row = 0;
    for (const auto& [name, rows] : all[i].parts) {
      targets_[name] = {&m, row, rows};
      row += rows;
    }
    if (all[i].parts.empty()) targets_["tok_embeddings.weight"] = {&m, 0, m.N};  // a classifier tied to the embedding
  }
  if (!c.tied_embeddings) {
    embedding_.format = f, embedding_.N = c.vocab_size, embedding_.K = c.dim;
    if (f == WeightFormat::f16) embedding_.f16 = f16_.data() + at / 2;
    if (f == WeightFormat::q8) embedding_.q8 = q8_.data() + at;
    if (f == WeightFormat::q4) embedding_.q4 = q4_.data() + at;
    targets_["tok_embeddings.weight"] = {&embedding_, 0, embedding_.N};
  }
}

void Matrices::row(const Matrix& W, int n, float* out) {
  if (W.format == WeightFormat::f32) {
    std::copy_n(W.f32 + std::size_t(n) * W.K, W.K, out);
  } else if (W.format == WeightFormat::f16) {
    const std::uint16_t* h = W.f16 + std::size_t(n) * W.K;
    for (int k = 0; k < W.K; ++k) out[k] = half_to_float(h[k]);
  } else if (W.format == WeightFormat::q4) {
    for (int b = 0; b < q4_blocks(W.K); ++b) {
      const Q4Offsets at = q4_offsets(W.N, W.K, n, b);
      const float S = q4_float(W.q4, at.scale), M = q4_float(W.q4, at.min);
      for (int i = 0; i < kQ4Block && b * kQ4Block + i < W.K; ++i) out[b * kQ4Block + i] = S * float(q4_nibble(W.q4 + at.nibbles, i)) - M;
    }
  } else {
    for (int b = 0; b < q8_blocks(W.K); ++b) {
      const Q8Offsets at = q8_offsets(W.N, W.K, n, b);
      const float scale = q8_scale(W.q8, at.scale);
      for (int i = 0; i < kQ8Block && b * kQ8Block + i < W.K; ++i) out[b * kQ8Block + i] = scale * float(W.q8[at.weights + std::size_t(i)]);
    }
  }
}

void Matrices::put(const std::string& name, int row, int n, const float* rows) {
  const auto it = targets_.find(name);
  if (it == targets_.end()) model_error("the model has no weight matrix named '", name, "'");
  Target& t = it->second;
  if (row < 0 || n < 0 || row > t.rows - n) model_error("rows ", row, "..", row + n, " of '", name, "', which has ", t.rows);
  const Matrix& m = *t.m;
  check_finite_rows(name, row, n, m.K, rows);
  const int n0 = t.row0 + row;
  if (format_ == WeightFormat::f16) {
    to_halves(rows, std::size_t(n) * m.K, const_cast<std::uint16_t*>(m.f16) + std::size_t(n0) * m.K);
  } else if (format_ == WeightFormat::q4) {
    quantize_q4_rows(rows, n0, n, m.N, m.K, const_cast<std::uint8_t*>(m.q4));
  } else {
    quantize_q8_rows(rows, n0, n, m.N, m.K, const_cast<std::int8_t*>(m.q8));
  }
  t.put += n;
}

void Matrices::put_q4(const std::string& name, int row, int n, const Q4Writer& write) {
  const auto it = targets_.find(name);
  if (it == targets_.end()) model_error("the model has no weight matrix named '", name, "'");
  if (format_ != WeightFormat::q4) model_error("put_q4: the matrices are held as ", weight_format_name(format_), ", not q4");
  Target& t = it->second;
  if (row < 0 || n < 0 || row > t.rows - n) model_error("rows ", row, "..", row + n, " of '", name, "', which has ", t.rows);
  const Matrix& m = *t.m;
  std::uint8_t* q = const_cast<std::uint8_t*>(m.q4);
  write(t.row0 + row, m.N, m.K, q);
  for (int r = t.row0 + row; r < t.row0 + row + n; ++r)
    for (int b = 0; b < q4_blocks(m.K); ++b) {
      const Q4Offsets at = q4_offsets(m.N, m.K, r, b);
      if (!std::isfinite(q4_float(q, at.scale)) || !std::isfinite(q4_float(q, at.min)))
        model_error("tensor '", name, "' holds a block whose scale or min is not finite at row ", r - t.row0, "; weights must be finite");
    }
  t.put += n;
}

void Matrices::check_filled() const {
  for (const auto& [name, t] : targets_)
    if (t.put != t.rows) model_error("the weights for ", name, " are missing (", t.put, " of its ", t.rows, " rows came)");
}

}  // namespace lookback
