// The optimiser of live training: Adam with decoupled weight decay on the matrices, global-norm clipping, and a
// linear warm-up to a learning rate that then stays constant (a live run has no planned end to decay towards).
// One thread, deterministic. Not here: the gradients (train/model.hpp) or the data (live_tasks.hpp).
#pragma once
#include <vector>

#include "train/model.hpp"

namespace lookback::live {

struct AdamOptions {
  float lr = 3e-3f;
  int warmup = 50;             // steps of linear warm-up from lr / warmup
  float beta1 = 0.9f, beta2 = 0.99f, eps = 1e-8f;
  float weight_decay = 0;      // decoupled, on the parameters marked decay (matrices)
  float clip = 1.0f;           // global gradient norm (0: none)
};

class LiveAdam {
 public:
  LiveAdam(const AdamOptions& o, std::size_t n);
  float lr_at(long step) const;
  // One update of w (n floats) from grad; returns the gradient's norm before clipping.
  double update(const std::vector<train::ParamInfo>& params, float* w, const float* grad);
  long steps() const { return t_; }

 private:
  AdamOptions o_;
  std::vector<float> m_, v_;
  long t_ = 0;
};

}  // namespace lookback::live
