// One live training run of a small Sprout-family model on a live task (live_tasks.hpp), a few steps at a time:
// the trainer's model (train/sprout_train.hpp: forward and backward, gradient-checked) with fresh task rows each
// step and Adam (live_adam.hpp) on one thread, plus what a page shows while it learns: held-out losses, every
// head's attention on a fixed probe, each head's previous-token and induction scores (model/head_scores.hpp),
// and the weights as a bundle loadModel reads.
// Attention-only models train with an MLP of width 0; their bundle carries a zero MLP of width 2 (the runtime
// needs hidden_dim >= 1), which adds exactly nothing. Not here: threads, files, JS (the bindings).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lookback/model_config.hpp"
#include "train/sprout_train.hpp"
#include "train_live/live_adam.hpp"
#include "train_live/live_tasks.hpp"

namespace lookback::live {

struct LiveModel {
  int layers = 2;        // L
  bool mlp = false;      // SwiGLU MLPs of width 4C, or attention only
  int dim = 64;          // C
  int heads = 2;         // H (head width C / H)
  int seq_len = 32;      // T
  bool qk_norm = true;   // Sprout's QK-norm on queries and keys
  float qk_gain = 1.0f;  // its gains at the start (Sprout starts them at 2, for a context of 256)
};

struct LiveOptions {
  std::string task = "induction";
  int alphabet = 188;    // the task's random tokens (TaskSpec)
  int repeat_min = 0, repeat_max = 0;  // induction: the first copy's length (0: TaskSpec's default)
  bool distinct = true;  // induction: no token twice in the first copy
  LiveModel model;
  int batch = 16;
  float lr = 3e-3f;      // Adam's, after a linear warm-up of `warmup` steps; then constant
  int warmup = 50;
  float beta2 = 0.99f;
  float weight_decay = 0;  // decoupled, on matrices
  std::uint64_t seed = 1;
  int held_out = 32;     // held-out rows for the losses
  int probes = 4;        // random repeated sequences the head scores average over
};

// The model config: hidden_dim 0 (attention only) for training, or at least 2 for the runtime.
ModelConfig live_config(const LiveModel& m, bool runtime);

struct Bundle {
  std::vector<std::uint8_t> weights;  // model.safetensors (F32)
  std::string config, tokenizer;      // config.json, tokenizer.json (bytes: ids 2..257)
};

struct Losses {
  double held_out = 0;  // mean loss per target on the held-out rows (nats)
  double task = 0;      // the same on the task's scored targets (the repeat, the copies)
};

struct ProbeView {
  std::vector<int> ids;                       // [T] the probe: the task's first held-out row
  std::vector<float> attention;               // [L, H, T, T]
  std::vector<double> previous, induction;    // [L*H] on random letters repeated (first copy, second copy)
};

class LiveRun {
 public:
  explicit LiveRun(const LiveOptions& o);
  double step();                 // one optimiser step; the batch's mean loss
  long steps_done() const;
  Losses evaluate();
  ProbeView probe() const;
  std::vector<float> logits(const std::uint16_t* ids);  // [T, V] of T ids by the trainer's own forward
  Bundle bundle() const;
  const ModelConfig& config() const { return train_cfg_; }
  std::size_t parameters() const;
  const LiveOptions& options() const { return opt_; }
  const TaskSpec& spec() const { return spec_; }
  float lr_at(long step) const { return adam_.lr_at(step); }

 private:
  LiveOptions opt_;
  TaskSpec spec_;
  ModelConfig train_cfg_;
  train::SproutTrain model_;
  std::vector<float> w_, grad_;
  LiveAdam adam_;
  TaskRows held_out_;
};

}  // namespace lookback::live
