// The forward pass of a Session: embedding (plus learned positions); per layer pre-norm attention (RMSNorm or
// LayerNorm; one GEMM for q, k and v with their biases, optional QK-norm, rotary positions, causal attention
// over the cache through lookback::attention, output projection added to the residual) and pre-norm MLP
// (SwiGLU, GELU or tanh-GELU) added to the residual; final norm and classifier. Plus the prefix reuse and the
// per-position records.
// Not here: kernels (src/kernels), sampling, tokenizers.
#include "model/session.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"
#include "lookback/split.hpp"
#include "model/errors.hpp"

namespace lookback {
namespace {

// Offset of row t in the triangular attention record: rows before it hold L*H*(i+1) floats each.
std::size_t tri_offset(int t, int LH) { return std::size_t(LH) * (std::size_t(t) * (t + 1) / 2); }

template <class V>
void grow(V& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

Session::Session(std::shared_ptr<const Transformer> model) : model_(std::move(model)) {
  const ModelConfig& c = model_->config();
  kv_width_ = c.n_kv_heads * c.head_dim;
}

void Session::reserve_kv(int S) {
  if (S <= kv_rows_) return;
  const ModelConfig& c = model_->config();
  const int rows = std::min(c.max_seq_len, std::max({S, 2 * kv_rows_, 64}));
  std::vector<float> kv(std::size_t(c.n_layers) * 2 * rows * kv_width_);
  const std::size_t keep = std::size_t(length()) * kv_width_;
  for (int block = 0; block < 2 * c.n_layers; ++block)
    std::copy_n(kv_.data() + std::size_t(block) * kv_rows_ * kv_width_, keep, kv.data() + std::size_t(block) * rows * kv_width_);
  kv_.swap(kv);
  kv_rows_ = rows;
}

void Session::reset() { truncate(0); }

void Session::truncate(int n) {
  tokens_.resize(std::size_t(n));
  logits_rows_ = std::min(logits_rows_, n);
  attn_rows_ = std::min(attn_rows_, n);
  resid_rows_ = std::min(resid_rows_, n);
}

void Session::check_ids(const int* ids, int n, int first_index) const {
  const ModelConfig& c = model_->config();
  for (int i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= c.vocab_size)
      model_error("token id ", ids[i], " at index ", first_index + i, " is outside the vocabulary [0, ", c.vocab_size, ")");
}

int Session::process(const std::vector<int>& ids, const StepOptions& o) {
  const ModelConfig& c = model_->config();
  const int n = int(ids.size());
  if (n == 0) model_error("no tokens to process (at least the start mark is needed)");
  if (n > c.max_seq_len)
    model_error("the text is ", n, " tokens but the model's context holds ", c.max_seq_len,
                "; use a sliding window to keep only the last ", c.max_seq_len);
  check_ids(ids.data(), n, 0);
  if (o.positions != positions_) truncate(0), positions_ = o.positions;
  int p = 0;
  while (p < length() && p < n - 1 && tokens_[p] == ids[p]) ++p;
  if (o.all_logits) p = std::min(p, logits_rows_);
  if (o.attention) p = std::min(p, attn_rows_);
  if (o.residuals) p = std::min(p, resid_rows_);
  truncate(p);
  run(ids.data() + p, n - p, o);
  return p;
}

void Session::append(int id, const StepOptions& o) {
  const ModelConfig& c = model_->config();
  if (length() >= c.max_seq_len) model_error("the context (", c.max_seq_len, " tokens) is full");
  if (o.positions != positions_) model_error("append: the cached tokens were computed with positions ",
                                             positions_ ? "on" : "off");
  check_ids(&id, 1, length());
  run(&id, 1, o);
}

void Session::reserve_workspace(int T, int S, bool attention) {
  const ModelConfig& c = model_->config();
  const std::size_t HD = std::size_t(c.n_heads) * c.head_dim, QKV = HD + 2 * std::size_t(kv_width_);
  const std::size_t F = std::size_t(c.hidden_dim) * (c.mlp == Mlp::swiglu ? 2 : 1);
  grow(x_, std::size_t(T) * c.dim);
  grow(xn_, std::size_t(T) * c.dim);
  grow(qkv_, std::size_t(T) * QKV);
  grow(att_, std::size_t(T) * HD);
  grow(hid_, std::size_t(T) * F);
  if (attention) grow(weights_, std::size_t(c.n_heads) * T * S);
}

void Session::run(const int* ids, int T, const StepOptions& o) {
  const ModelConfig& c = model_->config();
  const Weights& w = model_->weights();
  const int start = length(), S = start + T, C = c.dim, L = c.n_layers, V = c.vocab_size;
  reserve_workspace(T, S, o.attention);
  reserve_kv(S);
  tokens_.insert(tokens_.end(), ids, ids + T);
  if (o.attention) grow(attn_, tri_offset(S, L * c.n_heads));
  if (o.residuals) grow(resid_, std::size_t(S) * (L + 1) * C);
  // x: [T, C] token embeddings
  for (int t = 0; t < T; ++t) {
    float* x = &x_[std::size_t(t) * C];
    if (const Matrix* e = model_->matrices().embedding()) Matrices::row(*e, ids[t], x);  // held in a compact format
    else std::memcpy(x, w.embedding() + std::size_t(ids[t]) * C, sizeof(float) * C);
  }
  if (w.positions() && o.positions)  // learned positions: x += pos_embeddings rows start..start+T
    for (int t = 0; t < T; ++t) add_bias(&x_[std::size_t(t) * C], w.positions() + std::size_t(start + t) * C, 1, C);
  // Only the last position's logits and nothing recorded: the last layer needs every row's keys and values
  // (the cache) but the rest of it only for the last row, as nothing reads the others' outputs.
  const bool last_only = !o.all_logits && !o.attention && !o.residuals;
  for (int l = 0; l <= L; ++l) {
    if (o.residuals)
      for (int t = 0; t < T; ++t)
        std::memcpy(&resid_[(std::size_t(start + t) * (L + 1) + l) * C], &x_[std::size_t(t) * C], sizeof(float) * C);
    if (l == L) break;
    const int first = last_only && l == L - 1 ? T - 1 : 0;
    layer(l, T, start, first, o);
    mlp(l, first, T - first);
  }
  // logits: [rows, V] of the last `rows` positions
  const int rows = o.all_logits ? T : 1, first = T - rows;
  grow(logits_, std::size_t(S) * V);
  norm(&x_[std::size_t(first) * C], w.final_norm(), w.final_norm_bias(), xn_.data(), rows);
  apply(model_->matrices().classifier(), xn_.data(), rows, &logits_[std::size_t(start + first) * V], false);
  check_finite_logits(start, first, rows);
  // the records now cover every position only if they did up to `start`
  if (o.all_logits && logits_rows_ == start) logits_rows_ = S;
  if (o.attention && attn_rows_ == start) attn_rows_ = S;
  if (o.residuals && resid_rows_ == start) resid_rows_ = S;
}

// Finite weights can still overflow float32 on the way (huge values squared in a norm, scores past 3.4e38):
// logits that are not finite are an error, never NaN probabilities, and the new positions are dropped.
void Session::check_finite_logits(int start, int first, int rows) {
  const int V = model_->config().vocab_size;
  const float* lg = &logits_[std::size_t(start + first) * V];
  for (std::size_t i = 0, n = std::size_t(rows) * V; i < n; ++i)
    if (!std::isfinite(lg[i])) {
      truncate(start);
      model_error("the model's computation overflowed float32 at position ", start + first + int(i / V),
                  " (its weights are too large for this text): the logits are not finite");
    }
}

// x += attention(norm(x)) · woᵀ for the T new positions start..start+T: every row's keys and values go to the
// cache, the attention and output projection only from row `first` on.
void Session::layer(int l, int T, int start, int first, const StepOptions& o) {
  const ModelConfig& c = model_->config();
  const LayerView lw = model_->weights().layer(l);
  const Matrices::Layer& m = model_->matrices().layer(l);
  const int D = c.head_dim, H = c.n_heads, Hkv = c.n_kv_heads, HD = H * D, KD = kv_width_,
            QKV = HD + 2 * KD, S = start + T, L = c.n_layers;
  norm_rows(lw.attention_norm, lw.attention_norm_bias, 0, T);
  apply(m.wqkv, xn_.data(), T, qkv_.data(), false);  // qkv: [T, H*D | Hkv*D | Hkv*D]
  float* q = qkv_.data();
  float* k = q + HD;
  // per row: QK-norm, rotary positions, then this layer's keys and values appended to the cache
  rows_split(T, double(H + Hkv) * D * 4, [&](int t0, int t1) {
    const int n = t1 - t0;
    float* qr = q + std::size_t(t0) * QKV;
    float* kr = k + std::size_t(t0) * QKV;
    if (lw.q_norm)
      for (int t = 0; t < n; ++t) {
        rmsnorm(qr + std::size_t(t) * QKV, lw.q_norm, qr + std::size_t(t) * QKV, H, D, c.norm_eps);
        rmsnorm(kr + std::size_t(t) * QKV, lw.k_norm, kr + std::size_t(t) * QKV, Hkv, D, c.norm_eps);
      }
    if (o.positions && c.positions == Positions::rope) {
      rope(qr, n, H, D, QKV, model_->rope_row(start + t0), c.rope_layout);
      rope(kr, n, Hkv, D, QKV, model_->rope_row(start + t0), c.rope_layout);
    }
    for (int t = t0; t < t1; ++t) {
      std::memcpy(kv(l, 0, start + t), k + std::size_t(t) * QKV, sizeof(float) * KD);
      std::memcpy(kv(l, 1, start + t), k + std::size_t(t) * QKV + KD, sizeof(float) * KD);
    }
  });
  AttentionShape a;  // the queries from row `first` on: the last T - first positions of S
  a.T = T - first, a.S = S, a.H = H, a.Hkv = Hkv, a.D = D;
  a.ldq = QKV, a.ldk = a.ldv = KD, a.ldo = HD;
  a.scale = 1.0f / std::sqrt(float(D));
  a.causal = true;
  lookback::attention_split(q + std::size_t(first) * QKV, kv(l, 0, 0), kv(l, 1, 0), att_.data(),
                            o.attention ? weights_.data() : nullptr, a);
  if (o.attention)  // weights: [H, T, S] -> record row start+t: [L, H, start+t+1]
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h)
        std::memcpy(&attn_[tri_offset(start + t, L * H) + (std::size_t(l) * H + h) * (start + t + 1)],
                    &weights_[(std::size_t(h) * T + t) * S], sizeof(float) * (start + t + 1));
  apply(m.wo, att_.data(), T - first, &x_[std::size_t(first) * c.dim], true);
}

// x += mlp(norm(x)) for the T rows from row `first`: SwiGLU w2(silu(w1 x) · w3 x) or GELU w2(gelu(w1 x)) (exact
// or tanh), the matrices' biases added by apply().
void Session::mlp(int l, int first, int T) {
  const ModelConfig& c = model_->config();
  const LayerView lw = model_->weights().layer(l);
  const Matrices::Layer& m = model_->matrices().layer(l);
  const int F = c.hidden_dim;
  float* x = &x_[std::size_t(first) * c.dim];
  norm_rows(lw.ffn_norm, lw.ffn_norm_bias, first, T);
  const float* xn = &xn_[std::size_t(first) * c.dim];
  if (c.mlp == Mlp::swiglu) {
    apply(m.w13, xn, T, hid_.data(), false);  // hid: [T, F | F]
    rows_split(T, double(F) * 16, [&](int t0, int t1) {
      for (int t = t0; t < t1; ++t) {
        float* h = &hid_[std::size_t(t) * 2 * F];
        swiglu(h, h + F, h, F);
      }
    });
    apply(m.w2, hid_.data(), T, x, true, 2 * F);
  } else {
    apply(m.w13, xn, T, hid_.data(), false);  // hid: [T, F]
    // in blocks of 64 floats, so that every element takes the same (vector or tail) path as in one call
    const std::size_t n = std::size_t(T) * F, blocks = (n + 63) / 64;
    rows_split(int(blocks), 64.0 * 16, [&](int b0, int b1) {
      const std::size_t i0 = std::size_t(b0) * 64, i1 = std::min(n, std::size_t(b1) * 64);
      (c.mlp == Mlp::gelu ? gelu : gelu_tanh)(&hid_[i0], &hid_[i0], int(i1 - i0));
    });
    apply(m.w2, hid_.data(), T, x, true);
  }
}

// y = the model's norm of x (RMSNorm · w, or LayerNorm · w + b), `rows` rows of C.
void Session::norm(const float* x, const float* w, const float* b, float* y, int rows) const {
  const ModelConfig& c = model_->config();
  if (c.norm == Norm::layer)
    layernorm(x, w, b, y, rows, c.dim, c.norm_eps);
  else
    rmsnorm(x, w, y, rows, c.dim, c.norm_eps);
}

// xn = norm(x) for the T rows from row `first`, divided among the threads.
void Session::norm_rows(const float* w, const float* b, int first, int T) {
  const int C = model_->config().dim;
  rows_split(T, double(C) * 4, [&](int t0, int t1) {
    t0 += first, t1 += first;
    norm(&x_[std::size_t(t0) * C], w, b, &xn_[std::size_t(t0) * C], t1 - t0);
  });
}

const float* Session::logits(int t) const {
  if (t < 0 || t >= length() || (t >= logits_rows_ && t != length() - 1))
    model_error("logits of position ", t, " were not computed");
  return &logits_[std::size_t(t) * model_->config().vocab_size];
}

std::vector<float> Session::all_logits() const {
  const int T = length(), V = model_->config().vocab_size;
  if (logits_rows_ < T) model_error("the logits of every position were not computed");
  return std::vector<float>(logits_.begin(), logits_.begin() + std::size_t(T) * V);
}

std::vector<float> Session::attention() const {
  const ModelConfig& c = model_->config();
  const int T = length(), L = c.n_layers, H = c.n_heads;
  if (attn_rows_ < T) model_error("attention weights were not recorded for every position");
  std::vector<float> out(std::size_t(L) * H * T * T, 0.0f);  // [L, H, T, T]
  for (int t = 0; t < T; ++t)
    for (int lh = 0; lh < L * H; ++lh)
      std::memcpy(&out[(std::size_t(lh) * T + t) * T], &attn_[tri_offset(t, L * H) + std::size_t(lh) * (t + 1)],
                  sizeof(float) * (t + 1));
  return out;
}

std::vector<float> Session::residuals() const {
  const ModelConfig& c = model_->config();
  const int T = length(), L = c.n_layers, C = c.dim;
  if (resid_rows_ < T) model_error("the residual stream was not recorded for every position");
  std::vector<float> out(std::size_t(L + 1) * T * C);  // [L+1, T, C]
  for (int t = 0; t < T; ++t)
    for (int l = 0; l <= L; ++l)
      std::memcpy(&out[(std::size_t(l) * T + t) * C], &resid_[(std::size_t(t) * (L + 1) + l) * C], sizeof(float) * C);
  return out;
}

}  // namespace lookback
