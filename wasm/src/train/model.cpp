// TrainModel: parameter bookkeeping and the threaded loss-and-gradient of a batch.
#include "train/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <omp.h>

#include "base/splitmix64.hpp"
#include "train/profile.hpp"

namespace lookback::train {

void TrainModel::add_param(std::string name, std::vector<int> shape, bool decay) {
  ParamInfo p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  p.size = 1;
  for (int d : p.shape) p.size *= std::size_t(d);
  p.offset = n_params_;
  p.decay = decay;
  n_params_ += p.size;
  params_.push_back(std::move(p));
}

double TrainModel::loss_grad(const float* w, const std::uint16_t* tokens, int rows, float* grad,
                             int threads) {
  threads = std::max(1, std::min(threads, rows));
  if (scratch_threads_ < threads) {
    make_scratch(threads);
    scratch_threads_ = threads;
  }
  if (grad && int(thread_grads_.size()) < threads - 1) {
    thread_grads_.resize(threads - 1);
    for (auto& g : thread_grads_) g.resize(n_params_);
  }
  const int T = seq_len();
  const float scale = 1.0f / float(std::size_t(rows) * T);
  std::vector<double> losses(rows, 0.0);
  const std::size_t n = n_params_;
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num();
    float* g = grad ? (tid == 0 ? grad : thread_grads_[tid - 1].data()) : nullptr;
    if (g) {
      profile::Scope sc(profile::reduce_grads);
      std::memset(g, 0, n * sizeof(float));
    }
    for (int r = tid; r < rows; r += threads)
      losses[r] = sequence(tid, w, tokens + std::size_t(r) * (T + 1), g, scale);
#pragma omp barrier
    if (grad && threads > 1) {
      profile::Scope sc(profile::reduce_grads);
      // add the other threads' buffers into grad, split by ranges; the order per element is fixed
      const std::size_t chunk = (n + threads - 1) / threads;
      const std::size_t lo = std::min(n, chunk * tid), hi = std::min(n, lo + chunk);
      for (int t = 1; t < threads; ++t) {
        const float* src = thread_grads_[t - 1].data();
        for (std::size_t i = lo; i < hi; ++i) grad[i] += src[i];
      }
    }
  }
  double total = 0;
  for (double l : losses) total += l;
  return total / (double(rows) * T);
}

std::uint64_t InitRng::next() { return splitmix64_next(s); }

double InitRng::uniform() { return (double(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

double InitRng::normal() {
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace lookback::train
