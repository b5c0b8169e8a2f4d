// A scalar reference forward pass for the tests: plain loops over the named tensors, float64 accumulation,
// no cache, no fused matrices, no SIMD, every variant of model_config.hpp written out from its definition (RMSNorm
// or LayerNorm, rotary (llama3-scaled) or learned positions, biases, SwiGLU/GELU/tanh-GELU). It defines what the
// optimised Session must compute.
// Not a model anyone should run for speed.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "model/weights.hpp"

namespace lookback::testing {

struct ReferenceOutput {
  std::vector<float> logits;     // [T, V]
  std::vector<float> attention;  // [L, H, T, T]
  std::vector<float> residuals;  // [L+1, T, C]
};

inline ReferenceOutput reference_forward(const Weights& w, const std::vector<int>& ids, bool positions = true) {
  const ModelConfig& c = w.config();
  const int T = int(ids.size()), C = c.dim, H = c.n_heads, Hkv = c.n_kv_heads, D = c.head_dim, F = c.hidden_dim,
            V = c.vocab_size, L = c.n_layers, group = H / Hkv;
  using Vec = std::vector<double>;
  auto W = [&](const std::string& name) { return w.tensor(name); };
  const bool layer_norm = c.norm == Norm::layer;
  // y[T, N] = x[T, K] · M[N, K]ᵀ
  auto matmul = [](const std::vector<Vec>& x, const float* M, int N, int K) {
    std::vector<Vec> y(x.size(), Vec(N));
    for (std::size_t t = 0; t < x.size(); ++t)
      for (int n = 0; n < N; ++n) {
        double s = 0;
        for (int k = 0; k < K; ++k) s += x[t][k] * M[std::size_t(n) * K + k];
        y[t][n] = s;
      }
    return y;
  };
  auto add_bias = [&](std::vector<Vec>& y, const std::string& name) {  // y[t] += b, when the model has b
    if (!w.find(name)) return;
    const float* b = W(name);
    for (auto& row : y)
      for (std::size_t i = 0; i < row.size(); ++i) row[i] += b[i];
  };
  auto rmsnorm = [&](const Vec& x, const float* g, int off, int n) {
    double ss = 0;
    for (int i = 0; i < n; ++i) ss += x[off + i] * x[off + i];
    const double r = 1.0 / std::sqrt(ss / n + c.norm_eps);
    Vec y(n);
    for (int i = 0; i < n; ++i) y[i] = x[off + i] * r * g[i];
    return y;
  };
  // the model's norm of a residual row: RMSNorm · g, or LayerNorm · g + bias (name + ".bias")
  auto norm = [&](const Vec& x, const std::string& name) {
    const float* g = W(name + ".weight");
    if (!layer_norm) return rmsnorm(x, g, 0, C);
    const float* b = W(name + ".bias");
    double mean = 0, var = 0;
    for (int i = 0; i < C; ++i) mean += x[i];
    mean /= C;
    for (int i = 0; i < C; ++i) var += (x[i] - mean) * (x[i] - mean);
    const double r = 1.0 / std::sqrt(var / C + c.norm_eps);
    Vec y(C);
    for (int i = 0; i < C; ++i) y[i] = (x[i] - mean) * r * g[i] + b[i];
    return y;
  };
  // angle per position of pair j; llama3 scaling (Llama 3.1): wavelengths 2π/f above original_context /
  // low_freq_factor are divided by factor, below original_context / high_freq_factor kept, blended between
  auto frequency = [&](int j) {
    const double f = std::pow(double(c.rope_theta), -2.0 * j / D);
    const RopeScaling& s = c.rope_scaling;
    if (s.type == RopeScaling::Type::none) return f;
    const double wavelen = 2 * 3.14159265358979323846 / f, ctx = s.original_context;
    if (wavelen < ctx / s.high_freq_factor) return f;
    if (wavelen > ctx / s.low_freq_factor) return f / s.factor;
    const double smooth = (ctx / wavelen - s.low_freq_factor) / (double(s.high_freq_factor) - s.low_freq_factor);
    return (1 - smooth) * f / s.factor + smooth * f;
  };
  auto rotate = [&](Vec& v, int off, int pos) {  // one head at v[off .. off+D)
    for (int j = 0; j < D / 2; ++j) {
      const double angle = pos * frequency(j);
      const int i0 = c.rope_layout == RopeLayout::adjacent ? off + 2 * j : off + j;
      const int i1 = c.rope_layout == RopeLayout::adjacent ? off + 2 * j + 1 : off + j + D / 2;
      const double a = v[i0], b = v[i1];
      v[i0] = a * std::cos(angle) - b * std::sin(angle);
      v[i1] = a * std::sin(angle) + b * std::cos(angle);
    }
  };
  ReferenceOutput out;
  out.attention.assign(std::size_t(L) * H * T * T, 0.0f);
  std::vector<Vec> x(T, Vec(C));
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < C; ++i)
      x[t][i] = double(W("tok_embeddings.weight")[std::size_t(ids[t]) * C + i]) +
                (c.positions == Positions::learned && positions ? W("pos_embeddings.weight")[std::size_t(t) * C + i] : 0.0);
  auto record = [&] {
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < C; ++i) out.residuals.push_back(float(x[t][i]));
  };
  for (int l = 0; l < L; ++l) {
    record();
    const std::string p = "layers." + std::to_string(l) + ".";
    std::vector<Vec> xn(T);
    for (int t = 0; t < T; ++t) xn[t] = norm(x[t], p + "attention_norm");
    auto q = matmul(xn, W(p + "attention.wq.weight"), H * D, C);
    auto k = matmul(xn, W(p + "attention.wk.weight"), Hkv * D, C);
    auto v = matmul(xn, W(p + "attention.wv.weight"), Hkv * D, C);
    add_bias(q, p + "attention.wq.bias");
    add_bias(k, p + "attention.wk.bias");
    add_bias(v, p + "attention.wv.bias");
    for (int t = 0; t < T; ++t) {
      if (c.qk_norm) {
        for (int h = 0; h < H; ++h) {
          Vec n = rmsnorm(q[t], W(p + "attention.q_norm.weight"), h * D, D);
          std::copy(n.begin(), n.end(), q[t].begin() + h * D);
        }
        for (int h = 0; h < Hkv; ++h) {
          Vec n = rmsnorm(k[t], W(p + "attention.k_norm.weight"), h * D, D);
          std::copy(n.begin(), n.end(), k[t].begin() + h * D);
        }
      }
      if (positions && c.positions == Positions::rope) {
        for (int h = 0; h < H; ++h) rotate(q[t], h * D, t);
        for (int h = 0; h < Hkv; ++h) rotate(k[t], h * D, t);
      }
    }
    std::vector<Vec> att(T, Vec(H * D, 0.0));
    for (int h = 0; h < H; ++h) {
      const int kh = h / group;
      for (int t = 0; t < T; ++t) {
        Vec s(t + 1);
        double mx = -1e300;
        for (int j = 0; j <= t; ++j) {
          double d = 0;
          for (int i = 0; i < D; ++i) d += q[t][h * D + i] * k[j][kh * D + i];
          s[j] = d / std::sqrt(double(D));
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (double& e : s) sum += e = std::exp(e - mx);
        for (int j = 0; j <= t; ++j) {
          const double a = s[j] / sum;
          out.attention[((std::size_t(l) * H + h) * T + t) * T + j] = float(a);
          for (int i = 0; i < D; ++i) att[t][h * D + i] += a * v[j][kh * D + i];
        }
      }
    }
    auto o = matmul(att, W(p + "attention.wo.weight"), C, H * D);
    add_bias(o, p + "attention.wo.bias");
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < C; ++i) x[t][i] += o[t][i];
    for (int t = 0; t < T; ++t) xn[t] = norm(x[t], p + "ffn_norm");
    auto a = matmul(xn, W(p + "feed_forward.w1.weight"), F, C);
    add_bias(a, p + "feed_forward.w1.bias");
    if (c.mlp == Mlp::swiglu) {
      auto b = matmul(xn, W(p + "feed_forward.w3.weight"), F, C);
      add_bias(b, p + "feed_forward.w3.bias");
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < F; ++i) a[t][i] = a[t][i] / (1.0 + std::exp(-a[t][i])) * b[t][i];
    } else if (c.mlp == Mlp::gelu) {
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < F; ++i) a[t][i] = 0.5 * a[t][i] * (1.0 + std::erf(a[t][i] / std::sqrt(2.0)));
    } else {  // GELU's tanh approximation
      const double kk = std::sqrt(2.0 / 3.14159265358979323846);
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < F; ++i) {
          const double u = a[t][i];
          a[t][i] = 0.5 * u * (1.0 + std::tanh(kk * (u + 0.044715 * u * u * u)));
        }
    }
    auto m = matmul(a, W(p + "feed_forward.w2.weight"), C, F);
    add_bias(m, p + "feed_forward.w2.bias");
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < C; ++i) x[t][i] += m[t][i];
  }
  record();
  std::vector<Vec> xn(T);
  for (int t = 0; t < T; ++t) xn[t] = norm(x[t], "norm");
  auto logits = matmul(xn, c.tied_embeddings ? W("tok_embeddings.weight") : W("output.weight"), V, C);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < V; ++i) out.logits.push_back(float(logits[t][i]));
  return out;
}

}  // namespace lookback::testing
