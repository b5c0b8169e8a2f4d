// What the training loop sees of a model: a flat parameter vector described by named tensors, and a
// loss-and-gradient of a batch of token rows, threaded over the rows with per-thread gradient buffers.
// Models (sprout_train, window_train) implement one sequence at a time; this base class does the rest.
// Not here: the optimiser, schedule, checkpoints (trainer.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lookback::train {

struct ParamInfo {
  std::string name;
  std::vector<int> shape;
  std::size_t offset = 0, size = 0;
  bool decay = false;  // AdamW weight decay applies (matrices only)
};

class TrainModel {
 public:
  virtual ~TrainModel() = default;
  virtual std::string kind() const = 0;                 // "sprout" or "window"
  const std::vector<ParamInfo>& params() const { return params_; }
  std::size_t n_params() const { return n_params_; }
  virtual int seq_len() const = 0;                      // T: each row of a batch holds T + 1 ids
  virtual int vocab() const = 0;
  virtual void init(float* w, std::uint64_t seed) const = 0;
  virtual nlohmann::json config_json() const = 0;       // the config.json shipped beside the weights

  // Mean cross-entropy over rows·T predictions of tokens[rows, T+1] (row r predicts ids 1..T from 0..T-1).
  // When grad is not null it receives the gradient of that mean (overwritten). Deterministic for a given
  // thread count: row r goes to thread r % threads and the per-thread sums are added in thread order.
  double loss_grad(const float* w, const std::uint16_t* tokens, int rows, float* grad, int threads);

 protected:
  void add_param(std::string name, std::vector<int> shape, bool decay);
  // One row: returns Σ loss over its T predictions; adds (scale ·) gradient into grad when not null.
  // tid selects the thread's own scratch (make_scratch is called once per thread before use).
  virtual double sequence(int tid, const float* w, const std::uint16_t* ids, float* grad, float scale) = 0;
  virtual void make_scratch(int threads) = 0;

 private:
  std::vector<ParamInfo> params_;
  std::size_t n_params_ = 0;
  std::vector<std::vector<float>> thread_grads_;  // threads 1.. (thread 0 writes into grad)
  int scratch_threads_ = 0;
};

// Deterministic normal numbers for initialisation (splitmix64 + Box-Muller).
struct InitRng {
  std::uint64_t s;
  explicit InitRng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next();
  double uniform();  // (0, 1)
  double normal();
};

std::unique_ptr<TrainModel> make_model(const std::string& kind, const std::string& size, int vocab);

}  // namespace lookback::train
