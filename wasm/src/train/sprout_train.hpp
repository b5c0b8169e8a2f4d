// Sprout for training: the forward pass of the runtime's model family (pre-norm RMSNorm, QK-norm, RoPE on
// adjacent pairs, causal multi-head attention, SwiGLU, tied classifier) with its backward pass, one
// sequence at a time, storing every activation the backward needs (no allocation inside a step).
// Order inside attention: q = wq·x, then RMSNorm of each head's q (weight [D]), then RoPE; same for k.
// Tensor names and shapes follow lookback/model_config.hpp exactly.
#pragma once
#include <vector>

#include "lookback/model_config.hpp"
#include "train/model.hpp"

namespace lookback::train {

class SproutTrain final : public TrainModel {
 public:
  explicit SproutTrain(const ModelConfig& cfg);
  std::string kind() const override { return "sprout"; }
  int seq_len() const override { return cfg_.max_seq_len; }
  int vocab() const override { return cfg_.vocab_size; }
  const ModelConfig& config() const { return cfg_; }
  void init(float* w, std::uint64_t seed) const override;
  nlohmann::json config_json() const override;

  // Logits [T, V] of one row of T ids, for tests (thread 0's scratch).
  std::vector<float> logits(const float* w, const std::uint16_t* ids);

 protected:
  double sequence(int tid, const float* w, const std::uint16_t* ids, float* grad, float scale) override;
  void make_scratch(int threads) override;

 private:
  struct Layer {
    std::size_t attn_norm, wq, wk, wv, wo, q_norm, k_norm, ffn_norm, w1, w2, w3;
  };
  struct Scratch;
  void forward(Scratch& s, const float* w, const std::uint16_t* ids);
  ModelConfig cfg_;
  std::size_t emb_ = 0, norm_ = 0;
  std::vector<Layer> layers_;
  std::vector<std::shared_ptr<Scratch>> scratch_;
  std::vector<float> rope_table_;
};

ModelConfig sprout_config(const std::string& size, int vocab);  // "full" (the shipped Sprout) or "small"
nlohmann::json model_config_json(const ModelConfig& c);

}  // namespace lookback::train
