// Sprout forward + backward for one sequence; see sprout_train.hpp.
#include "train/sprout_train.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "lookback/kernels.hpp"
#include "lookback/nn.hpp"
#include "train/ops.hpp"
#include "train/profile.hpp"

namespace lookback::train {

using profile::gemm_flops;
using profile::Scope;

namespace {

// "dim=160,layers=8,heads=5,hidden=448": the shipped shape with these sizes changed (head_dim = dim / heads).
void apply_shape(ModelConfig& c, const std::string& spec) {
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error("config '" + spec + "': " + why +
                             " (expected full, small or a shape such as dim=160,layers=8,heads=5,hidden=448)");
  };
  std::size_t from = 0;
  while (from < spec.size()) {
    const std::size_t comma = std::min(spec.find(',', from), spec.size());
    const std::string kv = spec.substr(from, comma - from);
    from = comma + 1;
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos) fail("'" + kv + "' is not key=value");
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    std::size_t used = 0;
    int n = 0;
    try { n = std::stoi(val, &used); } catch (const std::exception&) { used = 0; }
    if (used != val.size() || n < 1) fail("'" + val + "' is not a positive whole number");
    if (key == "dim") c.dim = n;
    else if (key == "layers") c.n_layers = n;
    else if (key == "heads") c.n_heads = c.n_kv_heads = n;
    else if (key == "hidden") c.hidden_dim = n;
    else if (key == "context") c.max_seq_len = n;
    else fail("unknown size '" + key + "'");
  }
  if (c.dim % c.n_heads) fail("dim must be a multiple of heads");
  c.head_dim = c.dim / c.n_heads;
}

}  // namespace

ModelConfig sprout_config(const std::string& size, int vocab) {
  ModelConfig c;
  if (size == "small") {
    c.dim = 32, c.n_layers = 2, c.n_heads = 2, c.n_kv_heads = 2, c.head_dim = 16, c.hidden_dim = 48;
    c.max_seq_len = 32;
  } else if (size != "full" && !size.empty()) {
    apply_shape(c, size);
  }
  c.vocab_size = vocab;
  return c;
}

nlohmann::json model_config_json(const ModelConfig& c) {
  return {{"arch", c.arch},
          {"dim", c.dim},
          {"n_layers", c.n_layers},
          {"n_heads", c.n_heads},
          {"n_kv_heads", c.n_kv_heads},
          {"head_dim", c.head_dim},
          {"hidden_dim", c.hidden_dim},
          {"vocab_size", c.vocab_size},
          {"max_seq_len", c.max_seq_len},
          {"norm_eps", c.norm_eps},
          {"rope_theta", c.rope_theta},
          {"rope_layout", c.rope_layout == RopeLayout::adjacent ? "adjacent" : "half"},
          {"qk_norm", c.qk_norm},
          {"mlp", c.mlp == Mlp::swiglu ? "swiglu" : "gelu"},
          {"tied_embeddings", c.tied_embeddings},
          {"bos_id", c.bos_id},
          {"eos_id", c.eos_id}};
}

struct SproutTrain::Scratch {
  struct Act {
    std::vector<float> hin, n1, r1, qraw, kraw, q, k, v, rq, rk, p, o, hm, n2, r2, h1, h3, g;
  };
  std::vector<Act> act;
  std::vector<float> hL, nf, rf, logits;
  std::vector<float> dh, dhm, dn, dq, dk, dv, dout, dqraw, dkraw, dg, dh1, dh3;
};

SproutTrain::SproutTrain(const ModelConfig& cfg) : cfg_(cfg) {
  const ModelConfig& c = cfg_;
  if (c.n_kv_heads != c.n_heads || c.n_heads * c.head_dim != c.dim || c.head_dim % 2 ||
      c.mlp != Mlp::swiglu || !c.tied_embeddings || c.rope_layout != RopeLayout::adjacent)
    throw std::runtime_error("the trainer supports Sprout's layout only (MHA, SwiGLU, tied, adjacent RoPE)");
  const int C = c.dim, F = c.hidden_dim, V = c.vocab_size, D = c.head_dim;
  add_param("tok_embeddings.weight", {V, C}, false);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    Layer L{};
    auto add = [&](std::size_t& off, const std::string& name, std::vector<int> shape, bool decay) {
      add_param(p + name, std::move(shape), decay);
      off = params().back().offset;
    };
    add(L.attn_norm, "attention_norm.weight", {C}, false);
    add(L.wq, "attention.wq.weight", {C, C}, true);
    add(L.wk, "attention.wk.weight", {C, C}, true);
    add(L.wv, "attention.wv.weight", {C, C}, true);
    add(L.wo, "attention.wo.weight", {C, C}, true);
    if (c.qk_norm) {
      add(L.q_norm, "attention.q_norm.weight", {D}, false);
      add(L.k_norm, "attention.k_norm.weight", {D}, false);
    }
    add(L.ffn_norm, "ffn_norm.weight", {C}, false);
    add(L.w1, "feed_forward.w1.weight", {F, C}, true);
    add(L.w3, "feed_forward.w3.weight", {F, C}, true);
    add(L.w2, "feed_forward.w2.weight", {C, F}, true);
    layers_.push_back(L);
  }
  add_param("norm.weight", {C}, false);
  emb_ = params().front().offset;
  norm_ = params().back().offset;
  rope_table_.resize(std::size_t(c.max_seq_len) * D);
  Rope r;
  r.init(rope_table_.data(), c.max_seq_len, D, c.rope_theta);
}

namespace {
// QK-norm makes every query and key a vector of norm sqrt(D) times its gains, so with the 1/sqrt(D) scale a
// score can differ from another by at most 2·sqrt(D)·g_q·g_k: about 11 at D = 32 with gains of 1, too little
// for one key to take most of the weight among a couple of hundred. Gains of 2 start that range at 45 (and
// random scores with a spread of about 4); training moves them from there.
constexpr float kQkGainInit = 2.0f;
bool is_qk_gain(const std::string& name) {
  return name.find(".q_norm.") != std::string::npos || name.find(".k_norm.") != std::string::npos;
}
}  // namespace

void SproutTrain::init(float* w, std::uint64_t seed) const {
  InitRng rng(seed);
  const float out_scale = 1.0f / std::sqrt(2.0f * cfg_.n_layers);
  for (const ParamInfo& p : params()) {
    float* x = w + p.offset;
    if (p.shape.size() == 1) {
      std::fill(x, x + p.size, is_qk_gain(p.name) ? kQkGainInit : 1.0f);
      continue;
    }
    const bool out_proj = p.name.find(".wo.") != std::string::npos || p.name.find(".w2.") != std::string::npos;
    const float sd = 0.02f * (out_proj ? out_scale : 1.0f);
    for (std::size_t i = 0; i < p.size; ++i) x[i] = float(rng.normal()) * sd;
  }
}

nlohmann::json SproutTrain::config_json() const { return model_config_json(cfg_); }

void SproutTrain::make_scratch(int threads) {
  const int T = cfg_.max_seq_len, C = cfg_.dim, F = cfg_.hidden_dim, H = cfg_.n_heads, V = cfg_.vocab_size;
  const std::size_t TC = std::size_t(T) * C, TF = std::size_t(T) * F;
  while (int(scratch_.size()) < threads) {
    auto s = std::make_shared<Scratch>();
    s->act.resize(cfg_.n_layers);
    for (auto& a : s->act) {
      for (auto* v : {&a.hin, &a.n1, &a.qraw, &a.kraw, &a.q, &a.k, &a.v, &a.o, &a.hm, &a.n2}) v->resize(TC);
      a.r1.resize(T), a.r2.resize(T), a.rq.resize(std::size_t(T) * H), a.rk.resize(std::size_t(T) * H);
      a.p.resize(std::size_t(H) * T * T);
      a.h1.resize(TF), a.h3.resize(TF), a.g.resize(TF);
    }
    s->hL.resize(TC), s->nf.resize(TC), s->rf.resize(T), s->logits.resize(std::size_t(T) * V);
    for (auto* v : {&s->dh, &s->dhm, &s->dn, &s->dq, &s->dk, &s->dv, &s->dout, &s->dqraw, &s->dkraw})
      v->resize(TC);
    s->dg.resize(TF), s->dh1.resize(TF), s->dh3.resize(TF);
    scratch_.push_back(s);
  }
}

void SproutTrain::forward(Scratch& s, const float* w, const std::uint16_t* ids) {
  const ModelConfig& c = cfg_;
  const int T = c.max_seq_len, C = c.dim, F = c.hidden_dim, H = c.n_heads, D = c.head_dim, V = c.vocab_size;
  const float eps = c.norm_eps;
  Rope rope;
  rope.T = T, rope.D = D, rope.cs = rope_table_.data();
  const float* E = w + emb_;
  {
    Scope sc(profile::embedding);
    for (int t = 0; t < T; ++t) {
      if (ids[t] >= V) throw std::runtime_error("token id out of range");
      std::memcpy(s.act[0].hin.data() + std::size_t(t) * C, E + std::size_t(ids[t]) * C, sizeof(float) * C);
    }
  }
  for (int l = 0; l < c.n_layers; ++l) {
    const Layer& L = layers_[l];
    auto& a = s.act[l];
    {
      Scope sc(profile::rmsnorm);
      rmsnorm_fwd(a.hin.data(), w + L.attn_norm, a.n1.data(), a.r1.data(), T, C, eps);
    }
    {
      Scope sc(profile::gemm_attn_proj, 3 * gemm_flops(T, C, C));
      gemm_nt(T, C, C, a.n1.data(), C, w + L.wq, C, a.qraw.data(), C, false);
      gemm_nt(T, C, C, a.n1.data(), C, w + L.wk, C, a.kraw.data(), C, false);
      gemm_nt(T, C, C, a.n1.data(), C, w + L.wv, C, a.v.data(), C, false);
    }
    {
      Scope sc(profile::rmsnorm);
      if (c.qk_norm) {
        rmsnorm_fwd(a.qraw.data(), w + L.q_norm, a.q.data(), a.rq.data(), T * H, D, eps);
        rmsnorm_fwd(a.kraw.data(), w + L.k_norm, a.k.data(), a.rk.data(), T * H, D, eps);
      } else {
        a.q = a.qraw, a.k = a.kraw;
      }
    }
    {
      Scope sc(profile::rope);
      rope.fwd(a.q.data(), H, C);
      rope.fwd(a.k.data(), H, C);
    }
    {
      Scope sc(profile::attention_fwd, attention_flops(T, H, D));
      causal_attention_forward(a.q.data(), a.k.data(), a.v.data(), a.p.data(), a.o.data(), T, H, D, C);
    }
    {
      Scope sc(profile::residual);
      a.hm = a.hin;
    }
    {
      Scope sc(profile::gemm_attn_proj, gemm_flops(T, C, C));
      gemm_nt(T, C, C, a.o.data(), C, w + L.wo, C, a.hm.data(), C, true);
    }
    {
      Scope sc(profile::rmsnorm);
      rmsnorm_fwd(a.hm.data(), w + L.ffn_norm, a.n2.data(), a.r2.data(), T, C, eps);
    }
    {
      Scope sc(profile::gemm_mlp, 2 * gemm_flops(T, F, C));
      gemm_nt(T, F, C, a.n2.data(), C, w + L.w1, C, a.h1.data(), F, false);
      gemm_nt(T, F, C, a.n2.data(), C, w + L.w3, C, a.h3.data(), F, false);
    }
    {
      Scope sc(profile::swiglu);
      swiglu(a.h1.data(), a.h3.data(), a.g.data(), T * F);
    }
    std::vector<float>& next = l + 1 < c.n_layers ? s.act[l + 1].hin : s.hL;
    {
      Scope sc(profile::residual);
      next = a.hm;
    }
    Scope sc(profile::gemm_mlp, gemm_flops(T, C, F));
    gemm_nt(T, C, F, a.g.data(), F, w + L.w2, F, next.data(), C, true);
  }
  {
    Scope sc(profile::rmsnorm);
    rmsnorm_fwd(s.hL.data(), w + norm_, s.nf.data(), s.rf.data(), T, C, eps);
  }
  Scope sc(profile::gemm_classifier, gemm_flops(T, V, C));
  gemm_nt(T, V, C, s.nf.data(), C, E, C, s.logits.data(), V, false);
}

std::vector<float> SproutTrain::logits(const float* w, const std::uint16_t* ids) {
  if (scratch_.empty()) make_scratch(1);
  forward(*scratch_[0], w, ids);
  return scratch_[0]->logits;
}

double SproutTrain::sequence(int tid, const float* w, const std::uint16_t* ids, float* grad, float scale) {
  Scratch& s = *scratch_[tid];
  forward(s, w, ids);
  const ModelConfig& c = cfg_;
  const int T = c.max_seq_len, C = c.dim, F = c.hidden_dim, H = c.n_heads, D = c.head_dim, V = c.vocab_size;
  double loss;
  {
    Scope sc(profile::cross_entropy);
    loss = cross_entropy(s.logits.data(), ids + 1, T, V, scale);  // logits -> dlogits
  }
  if (!grad) return loss;
  Rope rope;
  rope.T = T, rope.D = D, rope.cs = rope_table_.data();
  const float* E = w + emb_;
  float* gE = grad + emb_;
  // classifier (tied) and final norm
  {
    Scope sc(profile::gemm_classifier_bwd, 2 * gemm_flops(T, C, V));
    gemm_nn(T, C, V, s.logits.data(), V, E, C, s.dn.data(), C, false);
    gemm_tn(V, C, T, s.logits.data(), V, s.nf.data(), C, gE, C, true);
  }
  {
    Scope sc(profile::rmsnorm);
    rmsnorm_bwd(s.hL.data(), w + norm_, s.rf.data(), s.dn.data(), s.dh.data(), grad + norm_, T, C, false);
  }
  for (int l = c.n_layers - 1; l >= 0; --l) {
    const Layer& L = layers_[l];
    auto& a = s.act[l];
    // MLP: out = hm + w2·(silu(w1·n2) * w3·n2), n2 = norm(hm)
    {
      Scope sc(profile::gemm_mlp_bwd, 2 * gemm_flops(T, C, F));
      gemm_tn(C, F, T, s.dh.data(), C, a.g.data(), F, grad + L.w2, F, true);
      gemm_nn(T, F, C, s.dh.data(), C, w + L.w2, F, s.dg.data(), F, false);
    }
    {
      Scope sc(profile::swiglu);
      swiglu_backward(a.h1.data(), a.h3.data(), s.dg.data(), s.dh1.data(), s.dh3.data(), T * F);
    }
    {
      Scope sc(profile::gemm_mlp_bwd, 4 * gemm_flops(T, C, F));
      gemm_tn(F, C, T, s.dh1.data(), F, a.n2.data(), C, grad + L.w1, C, true);
      gemm_tn(F, C, T, s.dh3.data(), F, a.n2.data(), C, grad + L.w3, C, true);
      gemm_nn(T, C, F, s.dh1.data(), F, w + L.w1, C, s.dn.data(), C, false);
      gemm_nn(T, C, F, s.dh3.data(), F, w + L.w3, C, s.dn.data(), C, true);
    }
    {
      Scope sc(profile::residual);
      s.dhm = s.dh;
    }
    {
      Scope sc(profile::rmsnorm);
      rmsnorm_bwd(a.hm.data(), w + L.ffn_norm, a.r2.data(), s.dn.data(), s.dhm.data(), grad + L.ffn_norm, T, C,
                  true);
    }
    // attention: hm = hin + wo·attn(q, k, v)
    {
      Scope sc(profile::gemm_attn_proj_bwd, 2 * gemm_flops(T, C, C));
      gemm_tn(C, C, T, s.dhm.data(), C, a.o.data(), C, grad + L.wo, C, true);
      gemm_nn(T, C, C, s.dhm.data(), C, w + L.wo, C, s.dout.data(), C, false);
    }
    {
      Scope sc(profile::attention_bwd, 2 * attention_flops(T, H, D));
      causal_attention_backward(a.q.data(), a.k.data(), a.v.data(), a.p.data(), s.dout.data(), s.dq.data(),
                                s.dk.data(), s.dv.data(), T, H, D, C);
    }
    {
      Scope sc(profile::rope);
      rope.bwd(s.dq.data(), H, C);
      rope.bwd(s.dk.data(), H, C);
    }
    const float* dq = s.dq.data();
    const float* dk = s.dk.data();
    if (c.qk_norm) {
      Scope sc(profile::rmsnorm);
      rmsnorm_bwd(a.qraw.data(), w + L.q_norm, a.rq.data(), s.dq.data(), s.dqraw.data(), grad + L.q_norm,
                  T * H, D, false);
      rmsnorm_bwd(a.kraw.data(), w + L.k_norm, a.rk.data(), s.dk.data(), s.dkraw.data(), grad + L.k_norm,
                  T * H, D, false);
      dq = s.dqraw.data(), dk = s.dkraw.data();
    }
    {
      Scope sc(profile::gemm_attn_proj_bwd, 6 * gemm_flops(T, C, C));
      gemm_tn(C, C, T, dq, C, a.n1.data(), C, grad + L.wq, C, true);
      gemm_tn(C, C, T, dk, C, a.n1.data(), C, grad + L.wk, C, true);
      gemm_tn(C, C, T, s.dv.data(), C, a.n1.data(), C, grad + L.wv, C, true);
      gemm_nn(T, C, C, dq, C, w + L.wq, C, s.dn.data(), C, false);
      gemm_nn(T, C, C, dk, C, w + L.wk, C, s.dn.data(), C, true);
      gemm_nn(T, C, C, s.dv.data(), C, w + L.wv, C, s.dn.data(), C, true);
    }
    {
      Scope sc(profile::residual);
      s.dh = s.dhm;
    }
    Scope sc(profile::rmsnorm);
    rmsnorm_bwd(a.hin.data(), w + L.attn_norm, a.r1.data(), s.dn.data(), s.dh.data(), grad + L.attn_norm, T, C,
                true);
  }
  Scope sc(profile::embedding);
  for (int t = 0; t < T; ++t) {
    float* g = gE + std::size_t(ids[t]) * C;
    const float* d = s.dh.data() + std::size_t(t) * C;
    for (int i = 0; i < C; ++i) g[i] += d[i];
  }
  return loss;
}

}  // namespace lookback::train

#include "train/window_train.hpp"

namespace lookback::train {

std::unique_ptr<TrainModel> make_model(const std::string& kind, const std::string& size, int vocab) {
  if (kind == "sprout") return std::make_unique<SproutTrain>(sprout_config(size, vocab));
  if (kind == "window") return std::make_unique<WindowTrain>(window_config(size, vocab));
  throw std::runtime_error("unknown model '" + kind + "' (expected sprout or window)");
}

}  // namespace lookback::train
