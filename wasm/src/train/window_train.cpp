// Window model forward + backward; see window_train.hpp.
#include "train/window_train.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "lookback/kernels.hpp"
#include "train/ops.hpp"

namespace lookback::train {

WindowConfig window_config(const std::string& size, int vocab) {
  WindowConfig c;
  if (size == "small") {
    c.window = 4, c.embed_dim = 8, c.hidden_dim = 24, c.seq_len = 32;
  } else if (size != "full" && !size.empty()) {
    throw std::runtime_error("unknown config '" + size + "' (expected full or small)");
  }
  c.vocab_size = vocab;
  return c;
}

WindowTrain::WindowTrain(const WindowConfig& cfg) : cfg_(cfg) {
  const int V = cfg.vocab_size, E = cfg.embed_dim, N = cfg.hidden_dim, I = cfg.window * cfg.embed_dim;
  add_param("embed.weight", {V, E}, false);
  add_param("hidden.weight", {N, I}, true);
  add_param("hidden.bias", {N}, false);
  add_param("out.weight", {V, N}, true);
  add_param("out.bias", {V}, false);
  emb_ = params()[0].offset, hw_ = params()[1].offset, hb_ = params()[2].offset;
  ow_ = params()[3].offset, ob_ = params()[4].offset;
}

void WindowTrain::init(float* w, std::uint64_t seed) const {
  InitRng rng(seed);
  const int I = cfg_.window * cfg_.embed_dim;
  for (const ParamInfo& p : params()) {
    float* x = w + p.offset;
    float sd = 0;
    if (p.name == "embed.weight") sd = 0.5f;
    if (p.name == "hidden.weight") sd = std::sqrt(2.0f / float(I));
    if (p.name == "out.weight") sd = 0.02f;
    for (std::size_t i = 0; i < p.size; ++i) x[i] = sd == 0 ? 0.0f : float(rng.normal()) * sd;
  }
}

nlohmann::json WindowTrain::config_json() const {
  return {{"arch", "window"},           {"window", cfg_.window},         {"embed_dim", cfg_.embed_dim},
          {"hidden_dim", cfg_.hidden_dim}, {"vocab_size", cfg_.vocab_size}, {"activation", "gelu"},
          {"order", "oldest_first"},    {"pad_id", cfg_.bos_id},         {"bos_id", cfg_.bos_id},
          {"eos_id", 1}};
}

void WindowTrain::make_scratch(int threads) {
  const std::size_t T = cfg_.seq_len, I = std::size_t(cfg_.window) * cfg_.embed_dim, N = cfg_.hidden_dim,
                    V = cfg_.vocab_size;
  scratch_.resize(std::max<std::size_t>(scratch_.size(), threads));
  for (auto& s : scratch_) {
    s.x.resize(T * I), s.dx.resize(T * I);
    s.pre.resize(T * N), s.h.resize(T * N), s.dh.resize(T * N), s.dpre.resize(T * N);
    s.logits.resize(T * V);
  }
}

double WindowTrain::sequence(int tid, const float* w, const std::uint16_t* ids, float* grad, float scale) {
  Scratch& s = scratch_[tid];
  const int T = cfg_.seq_len, W = cfg_.window, E = cfg_.embed_dim, I = W * E, N = cfg_.hidden_dim,
            V = cfg_.vocab_size;
  auto token = [&](int pos) { return pos < 0 ? cfg_.bos_id : int(ids[pos]); };
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < W; ++j) {
      const int id = token(t - (W - 1) + j);
      if (id >= V) throw std::runtime_error("token id out of range");
      std::memcpy(s.x.data() + std::size_t(t) * I + j * E, w + emb_ + std::size_t(id) * E, sizeof(float) * E);
    }
  for (int t = 0; t < T; ++t) std::memcpy(s.pre.data() + std::size_t(t) * N, w + hb_, sizeof(float) * N);
  gemm_nt(T, N, I, s.x.data(), I, w + hw_, I, s.pre.data(), N, true);
  gelu_fwd(s.pre.data(), s.h.data(), T * N);
  for (int t = 0; t < T; ++t) std::memcpy(s.logits.data() + std::size_t(t) * V, w + ob_, sizeof(float) * V);
  gemm_nt(T, V, N, s.h.data(), N, w + ow_, N, s.logits.data(), V, true);
  const double loss = cross_entropy(s.logits.data(), ids + 1, T, V, scale);
  if (!grad) return loss;
  const float* dl = s.logits.data();
  gemm_tn(V, N, T, dl, V, s.h.data(), N, grad + ow_, N, true);
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < V; ++v) grad[ob_ + v] += dl[std::size_t(t) * V + v];
  gemm_nn(T, N, V, dl, V, w + ow_, N, s.dh.data(), N, false);
  gelu_bwd(s.pre.data(), s.dh.data(), s.dpre.data(), T * N);
  gemm_tn(N, I, T, s.dpre.data(), N, s.x.data(), I, grad + hw_, I, true);
  for (int t = 0; t < T; ++t)
    for (int n = 0; n < N; ++n) grad[hb_ + n] += s.dpre[std::size_t(t) * N + n];
  gemm_nn(T, I, N, s.dpre.data(), N, w + hw_, I, s.dx.data(), I, false);
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < W; ++j) {
      float* g = grad + emb_ + std::size_t(token(t - (W - 1) + j)) * E;
      const float* d = s.dx.data() + std::size_t(t) * I + j * E;
      for (int e = 0; e < E; ++e) g[e] += d[e];
    }
  return loss;
}

std::unique_ptr<TrainModel> make_model(const std::string& kind, const std::string& size, int vocab);

}  // namespace lookback::train
