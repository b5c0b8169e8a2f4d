// The chapter's window model for training: the embeddings (width E) of the last W tokens concatenated
// (oldest first, the current token last; positions before the start use the <s> embedding), one hidden
// layer of GELU units, and a classifier over the vocabulary. One sequence of T predictions at a time.
// Tensors: embed.weight [V,E], hidden.weight [N,W*E], hidden.bias [N], out.weight [V,N], out.bias [V].
#pragma once
#include <vector>

#include "train/model.hpp"

namespace lookback::train {

struct WindowConfig {
  int window = 8, embed_dim = 48, hidden_dim = 384, vocab_size = 2048;
  int seq_len = 256;  // predictions per training row (not a limit of the model)
  int bos_id = 0;
};

WindowConfig window_config(const std::string& size, int vocab);  // "full" or "small"

class WindowTrain final : public TrainModel {
 public:
  explicit WindowTrain(const WindowConfig& cfg);
  std::string kind() const override { return "window"; }
  int seq_len() const override { return cfg_.seq_len; }
  int vocab() const override { return cfg_.vocab_size; }
  void init(float* w, std::uint64_t seed) const override;
  nlohmann::json config_json() const override;

 protected:
  double sequence(int tid, const float* w, const std::uint16_t* ids, float* grad, float scale) override;
  void make_scratch(int threads) override;

 private:
  struct Scratch {
    std::vector<float> x, pre, h, logits, dh, dpre, dx;
  };
  WindowConfig cfg_;
  std::size_t emb_, hw_, hb_, ow_, ob_;
  std::vector<Scratch> scratch_;
};

}  // namespace lookback::train
