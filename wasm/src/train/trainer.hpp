// The training loop: token data and its sampler, AdamW with warm-up + cosine decay, global-norm
// clipping, checkpoints (atomic, exact resume), the loss-curve CSV, progress lines and export.
// Not here: the models' maths (sprout_train, window_train), file formats of the export (export.hpp).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "train/model.hpp"

namespace lookback::train {

// uint16 little-endian ids, each story as <s> ... </s>.
std::vector<std::uint16_t> read_tokens(const std::string& path);

// Rows of T+1 ids that start at a story start (<s>), stories visited in a shuffled order per epoch
// (the order is a function of seed and epoch only, so (epoch, cursor) is the whole position). A row that
// runs past the end of the data wraps around to the beginning.
// Copy drills: a share of the slots (chosen by a hash of seed, epoch and cursor, so still resumable) hold
// <s> then n random ids from [lo, hi) repeated to the row's end, n drawn from [min_len, max_len]; the
// story of such a slot waits for the next epoch.
struct Drills {
  double share = 0;
  int lo = 0, hi = 0, min_len = 8, max_len = 128;
};

class Sampler {
 public:
  Sampler(const std::vector<std::uint16_t>* data, int T, std::uint64_t seed, int bos_id, Drills drills = {});
  void next_row(std::uint16_t* row);
  bool drill_at(std::uint64_t epoch_, std::uint64_t cursor_) const;
  std::uint64_t epoch = 0, cursor = 0;
  std::size_t stories() const { return starts_.size(); }
  void seek(std::uint64_t epoch_, std::uint64_t cursor_);

 private:
  void shuffle();
  const std::vector<std::uint16_t>* data_;
  int T_;
  std::uint64_t seed_;
  int bos_;
  Drills drills_;
  std::vector<std::uint32_t> starts_, order_;
};

// The first `rows` story-start rows of a data set, in order (a fixed validation batch).
std::vector<std::uint16_t> fixed_rows(const std::vector<std::uint16_t>& data, int T, int rows, int bos_id);

struct TrainOptions {
  std::string out_dir;              // checkpoints, CSV, log
  std::string export_dir;           // the shipped folder (default out_dir/export)
  std::string tokenizer;            // copied into the export when set
  int batch = 16;                   // rows per step
  float lr = 2e-3f, min_lr_frac = 0.1f, weight_decay = 0.1f, beta1 = 0.9f, beta2 = 0.95f, eps = 1e-8f;
  float clip = 1.0f;
  int warmup = 200;
  long steps = 0;                   // total steps (the cosine schedule ends there)
  std::uint64_t seed = 1;
  int threads = 2;
  int log_every = 10;
  int val_every = 200;
  int val_rows = 64;
  double ckpt_minutes = 5;
  Drills drills;                    // copy drills mixed into the rows (none by default)
  std::string init_weights;         // a fresh run starts from these weights (a model.safetensors) when set
  bool resume = false;
  bool quiet = false;
};

struct TrainState {
  long step = 0, total_steps = 0;
  std::uint64_t epoch = 0, cursor = 0, tokens = 0;
  double elapsed = 0;  // seconds of training so far (across resumes)
  std::vector<float> w, m, v;
};

class Trainer {
 public:
  Trainer(std::unique_ptr<TrainModel> model, TrainOptions opt, const std::vector<std::uint16_t>* train,
          const std::vector<std::uint16_t>* val);
  TrainModel& model() { return *model_; }
  TrainState& state() { return st_; }
  const TrainOptions& options() const { return opt_; }

  void init();                         // fresh weights from the seed
  // Weights from an exported model.safetensors (F16 or F32): every parameter by its name and shape, no tensor
  // missing or left over; the optimiser's moments stay zero and the step count at 0 (a fine-tune's start).
  void load_weights(const std::string& safetensors_path);
  double step();                       // one optimiser step; returns the batch's mean loss
  double validate();                   // mean loss on the fixed validation rows (NaN without val data)
  float lr_at(long step) const;
  void save_checkpoint(const std::string& path) const;
  void load_checkpoint(const std::string& path);
  void export_model(const std::string& dir) const;
  // The whole run: resume or init, loop with logs/CSV/checkpoints, final checkpoint and export.
  // False when a signal stopped it before the last step (the checkpoint resumes it).
  bool run();
  std::function<void(const std::string&)> log;  // progress lines (default: stdout + out_dir/train.log)
  double last_grad_norm = 0;

 private:
  void start_run(const std::string& ckpt, const std::string& csv);  // resume, or fresh weights and CSV
  void log_progress(double loss, double val, double elapsed, double steps_per_s);
  bool finish_run(const std::string& ckpt, double elapsed);  // final validation, checkpoint and export
  std::unique_ptr<TrainModel> model_;
  TrainOptions opt_;
  const std::vector<std::uint16_t>* val_;
  Sampler sampler_;
  TrainState st_;
  std::vector<float> grad_;
  std::vector<std::uint16_t> batch_, val_rows_;
};

// Writes bytes to path atomically (temp file in the same folder, then rename).
void write_atomic(const std::string& path, const std::string& bytes);

}  // namespace lookback::train
