// The chapter's baseline: a model that sees only the last W tokens (their embeddings of width E concatenated,
// oldest first, <s> before the start), one hidden GELU layer of N units, and a classifier over V tokens.
// Loads the trainer's export (model.safetensors + config.json) and predicts; it never looks further back.
// Not here: training (wasm/src/train/window_train.*) or the transformer (session.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lookback {

struct WindowModelConfig {
  int window = 8, embed_dim = 48, hidden_dim = 384, vocab_size = 2048, bos_id = 0, eos_id = 1;
};

class WindowModel {
 public:
  // ModelError when the config or the tensors (names, shapes, finiteness) do not fit.
  WindowModel(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json);

  const WindowModelConfig& config() const { return c_; }
  // The ids the prediction after position t sees: ids[t-W+1 .. t], <s> where that runs before 0.
  std::vector<int> window_at(const std::vector<int>& ids, int t) const;
  // logits: [T, V] for every position of ids (position t predicts ids[t+1]).
  std::vector<float> logits(const std::vector<int>& ids) const;
  // Mean cross-entropy in nats of ids[1..] given the previous positions.
  double loss(const std::vector<int>& ids) const;

 private:
  WindowModelConfig c_;
  std::vector<float> embed_, hidden_w_, hidden_b_, out_w_, out_b_;  // [V,E], [N,W*E], [N], [V,N], [V]
};

// Config from config.json text ("arch": "window"); ModelError on a missing or out-of-range field.
WindowModelConfig window_config_from_json(const std::string& text);

}  // namespace lookback
