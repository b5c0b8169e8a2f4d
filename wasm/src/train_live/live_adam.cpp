// Adam for live training; see live_adam.hpp.
#include "train_live/live_adam.hpp"

#include <cmath>

namespace lookback::live {

LiveAdam::LiveAdam(const AdamOptions& o, std::size_t n) : o_(o), m_(n, 0.0f), v_(n, 0.0f) {}

float LiveAdam::lr_at(long step) const {
  return step < o_.warmup ? o_.lr * float(step + 1) / float(o_.warmup) : o_.lr;
}

double LiveAdam::update(const std::vector<train::ParamInfo>& params, float* w, const float* grad) {
  double ss = 0;
  for (std::size_t i = 0; i < m_.size(); ++i) ss += double(grad[i]) * grad[i];
  const double norm = std::sqrt(ss);
  const float clip = (o_.clip > 0 && norm > o_.clip) ? float(o_.clip / norm) : 1.0f;
  const float lr = lr_at(t_);
  ++t_;
  const float b1 = o_.beta1, b2 = o_.beta2;
  const float c1 = float(1.0 / (1.0 - std::pow(double(b1), double(t_))));
  const float c2 = float(1.0 / (1.0 - std::pow(double(b2), double(t_))));
  for (const train::ParamInfo& p : params) {
    const float decay = p.decay ? 1.0f - lr * o_.weight_decay : 1.0f;
    for (std::size_t i = p.offset; i < p.offset + p.size; ++i) {
      const float g = grad[i] * clip;
      m_[i] = b1 * m_[i] + (1.0f - b1) * g;
      v_[i] = b2 * v_[i] + (1.0f - b2) * g * g;
      w[i] = w[i] * decay - lr * (m_[i] * c1) / (std::sqrt(v_[i] * c2) + o_.eps);
    }
  }
  return norm;
}

}  // namespace lookback::live
