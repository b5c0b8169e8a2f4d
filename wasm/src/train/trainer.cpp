// The training loop; see trainer.hpp.
#include "train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "base/read_file.hpp"
#include "base/splitmix64.hpp"
#include "model/safetensors.hpp"
#include "train/export.hpp"
#include "train/profile.hpp"

namespace lookback::train {

namespace {

std::uint64_t mix(std::uint64_t z) { return splitmix64(z); }

std::string fmt_time(double s) {
  char buf[32];
  const long t = long(s + 0.5);
  std::snprintf(buf, sizeof buf, "%ldh%02ldm%02lds", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

volatile std::sig_atomic_t g_stop = 0, g_export = 0;
void on_stop(int) { g_stop = 1; }
void on_export(int) { g_export = 1; }

}  // namespace

void write_atomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    if (!out) throw std::runtime_error("write failed: " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::vector<std::uint16_t> read_tokens(const std::string& path) {
  const std::string b = read_file(path);
  if (b.size() % 2) throw std::runtime_error(path + ": odd size, expected uint16 ids");
  std::vector<std::uint16_t> out(b.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = std::uint16_t(std::uint8_t(b[2 * i]) | (std::uint16_t(std::uint8_t(b[2 * i + 1])) << 8));
  return out;
}

Sampler::Sampler(const std::vector<std::uint16_t>* data, int T, std::uint64_t seed, int bos_id, Drills drills)
    : data_(data), T_(T), seed_(seed), bos_(bos_id), drills_(drills) {
  if (drills_.share < 0 || drills_.share > 1) throw std::runtime_error("copy drills: share must be in [0, 1]");
  if (drills_.share > 0 && (drills_.lo < 0 || drills_.hi <= drills_.lo || drills_.hi > 65536 ||
                            drills_.min_len < 1 || drills_.max_len < drills_.min_len))
    throw std::runtime_error("copy drills: need 0 <= lo < hi <= 65536 and 1 <= min_len <= max_len");
  if (!data || data->size() < std::size_t(T) + 1) return;
  for (std::size_t i = 0; i < data->size(); ++i)
    if ((*data)[i] == bos_id) starts_.push_back(std::uint32_t(i));
  if (starts_.empty()) starts_.push_back(0);
  shuffle();
}

void Sampler::shuffle() {
  order_.resize(starts_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = std::uint32_t(i);
  std::uint64_t s = mix(seed_ ^ mix(epoch + 0x5EED));
  for (std::size_t i = order_.size(); i > 1; --i) {
    s = mix(s);
    std::swap(order_[i - 1], order_[s % i]);
  }
}

void Sampler::seek(std::uint64_t epoch_, std::uint64_t cursor_) {
  epoch = epoch_, cursor = cursor_;
  shuffle();
}

bool Sampler::drill_at(std::uint64_t epoch_, std::uint64_t cursor_) const {
  if (drills_.share <= 0) return false;
  const std::uint64_t h = mix(mix(seed_ ^ 0xD7111u) ^ mix(epoch_ * kGoldenGamma + cursor_));
  return double(h >> 11) * 0x1.0p-53 < drills_.share;
}

void Sampler::next_row(std::uint16_t* row) {
  if (cursor >= order_.size()) {
    ++epoch, cursor = 0;
    shuffle();
  }
  if (drill_at(epoch, cursor)) {
    std::uint64_t h = mix(seed_ ^ mix(epoch ^ 0x51DEull) ^ mix(cursor + 0xC0FFEEull));
    ++cursor;
    const int span = drills_.max_len - drills_.min_len + 1;
    const int n = drills_.min_len + int((h = mix(h)) % std::uint64_t(span));
    row[0] = std::uint16_t(bos_);
    for (int i = 0; i < n && i < T_; ++i)
      row[1 + i] = std::uint16_t(drills_.lo + int((h = mix(h)) % std::uint64_t(drills_.hi - drills_.lo)));
    for (int i = n + 1; i <= T_; ++i) row[i] = row[i - n];
    return;
  }
  const std::size_t n = data_->size();
  std::size_t p = starts_[order_[cursor++]];
  for (int i = 0; i <= T_; ++i) row[i] = (*data_)[(p + i) % n];
}

std::vector<std::uint16_t> fixed_rows(const std::vector<std::uint16_t>& data, int T, int rows, int bos_id) {
  std::vector<std::uint16_t> out;
  if (data.size() < std::size_t(T) + 1) return out;
  for (std::size_t i = 0; i + T + 1 <= data.size() && int(out.size()) < rows * (T + 1); ++i) {
    if (data[i] != bos_id) continue;
    out.insert(out.end(), data.begin() + i, data.begin() + i + T + 1);
    i += T / 2;  // rows overlap at most by half
  }
  return out;
}

Trainer::Trainer(std::unique_ptr<TrainModel> model, TrainOptions opt, const std::vector<std::uint16_t>* train,
                 const std::vector<std::uint16_t>* val)
    : model_(std::move(model)), opt_(std::move(opt)), val_(val), sampler_(train, model_->seq_len(), opt_.seed, 0, opt_.drills) {
  if (sampler_.stories() == 0) throw std::runtime_error("training data is shorter than one row");
  const std::size_t n = model_->n_params();
  st_.w.assign(n, 0.0f), st_.m.assign(n, 0.0f), st_.v.assign(n, 0.0f);
  grad_.assign(n, 0.0f);
  batch_.resize(std::size_t(opt_.batch) * (model_->seq_len() + 1));
  if (val_) val_rows_ = fixed_rows(*val_, model_->seq_len(), opt_.val_rows, 0);
  for (std::uint16_t id : *train)
    if (id >= model_->vocab()) throw std::runtime_error("training data holds id " + std::to_string(id) +
                                                        " >= vocab " + std::to_string(model_->vocab()));
  if (opt_.export_dir.empty() && !opt_.out_dir.empty()) opt_.export_dir = opt_.out_dir + "/export";
  st_.total_steps = opt_.steps;
  log = [this](const std::string& line) {
    if (!opt_.quiet) std::cout << line << std::endl;
    if (!opt_.out_dir.empty()) {
      std::ofstream f(opt_.out_dir + "/train.log", std::ios::app);
      f << line << "\n";
    }
  };
}

void Trainer::init() {
  model_->init(st_.w.data(), opt_.seed);
  std::fill(st_.m.begin(), st_.m.end(), 0.0f);
  std::fill(st_.v.begin(), st_.v.end(), 0.0f);
  st_.step = 0, st_.epoch = 0, st_.cursor = 0, st_.tokens = 0, st_.elapsed = 0;
  st_.total_steps = opt_.steps;
  sampler_.seek(0, 0);
}

void Trainer::load_weights(const std::string& path) {
  const std::string b = read_file(path);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(b.data());
  const SafetensorsHeader h = read_safetensors_header(bytes, b.size());
  const auto& params = model_->params();
  if (h.tensors.size() != params.size())
    throw std::runtime_error(path + ": " + std::to_string(h.tensors.size()) + " tensors, the model has " +
                             std::to_string(params.size()));
  for (const ParamInfo& p : params) {
    const SafetensorsEntry* e = h.find(p.name);
    if (!e) throw std::runtime_error(path + ": no tensor " + p.name);
    if (e->shape != std::vector<std::int64_t>(p.shape.begin(), p.shape.end()))
      throw std::runtime_error(path + ": " + p.name + " has another shape than the model's");
    read_tensor(bytes, h, *e, st_.w.data() + p.offset);
  }
}

float Trainer::lr_at(long step) const {
  const long total = std::max<long>(st_.total_steps, 1);
  if (step < opt_.warmup) return opt_.lr * float(step + 1) / float(opt_.warmup);
  const double p = std::min(1.0, double(step - opt_.warmup) / double(std::max<long>(1, total - opt_.warmup)));
  const double lo = opt_.lr * opt_.min_lr_frac;
  return float(lo + (opt_.lr - lo) * 0.5 * (1.0 + std::cos(3.141592653589793 * p)));
}

double Trainer::step() {
  const int T = model_->seq_len();
  for (int r = 0; r < opt_.batch; ++r) sampler_.next_row(batch_.data() + std::size_t(r) * (T + 1));
  const double loss = model_->loss_grad(st_.w.data(), batch_.data(), opt_.batch, grad_.data(), opt_.threads);
  // global-norm clipping; the squared norm is summed over fixed chunks in a fixed order (deterministic)
  const std::size_t n = grad_.size();
  constexpr int kChunks = 64;
  double part[kChunks] = {};
  const float* gp = grad_.data();
#pragma omp parallel for num_threads(opt_.threads) schedule(static)
  for (int c = 0; c < kChunks; ++c) {
    profile::Scope sc(profile::clip_norm);
    const std::size_t lo = n * c / kChunks, hi = n * (c + 1) / kChunks;
    double ss = 0;
    for (std::size_t i = lo; i < hi; ++i) ss += double(gp[i]) * gp[i];
    part[c] = ss;
  }
  double ss = 0;
  for (double p : part) ss += p;
  const double norm = std::sqrt(ss);
  last_grad_norm = norm;
  const float clip = (opt_.clip > 0 && norm > opt_.clip) ? float(opt_.clip / norm) : 1.0f;
  // AdamW with bias correction; decoupled weight decay on matrices only (element-wise: any split is exact)
  const long t = st_.step + 1;
  const float lr = lr_at(st_.step);
  const float b1 = opt_.beta1, b2 = opt_.beta2, eps = opt_.eps, wd = opt_.weight_decay;
  const float c1 = float(1.0 / (1.0 - std::pow(double(b1), double(t))));
  const float c2 = float(1.0 / (1.0 - std::pow(double(b2), double(t))));
  const auto& params = model_->params();
#pragma omp parallel num_threads(opt_.threads)
  {
    profile::Scope sc(profile::optimizer);
    for (const ParamInfo& p : params) {
      float* w = st_.w.data() + p.offset;
      float* m = st_.m.data() + p.offset;
      float* v = st_.v.data() + p.offset;
      const float* g = grad_.data() + p.offset;
      const float decay = p.decay ? 1.0f - lr * wd : 1.0f;
      const long size = long(p.size);
#pragma omp for schedule(static) nowait
      for (long i = 0; i < size; ++i) {
        const float gi = g[i] * clip;
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        w[i] = w[i] * decay - lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + eps);
      }
    }
  }
  st_.step++;
  st_.tokens += std::uint64_t(opt_.batch) * T;
  st_.epoch = sampler_.epoch, st_.cursor = sampler_.cursor;
  return loss;
}

double Trainer::validate() {
  if (val_rows_.empty()) return NAN;
  const int T = model_->seq_len();
  const int rows = int(val_rows_.size() / (T + 1));
  return model_->loss_grad(st_.w.data(), val_rows_.data(), rows, nullptr, opt_.threads);
}

// Checkpoint: "LBCKPT1\n", u64 header length, JSON header, then w, m, v as raw float32 (little-endian).
void Trainer::save_checkpoint(const std::string& path) const {
  nlohmann::json h = {{"kind", model_->kind()},   {"config", model_->config_json()},
                      {"n_params", model_->n_params()},
                      {"step", st_.step},         {"total_steps", st_.total_steps},
                      {"epoch", st_.epoch},       {"cursor", st_.cursor},
                      {"tokens", st_.tokens},     {"elapsed", st_.elapsed},
                      {"seed", opt_.seed},        {"batch", opt_.batch}, {"drill_share", opt_.drills.share},
                      {"threads", opt_.threads},  {"lr", opt_.lr},
                      {"warmup", opt_.warmup}};
  const std::string hs = h.dump();
  const std::size_t n = model_->n_params();
  std::string out;
  out.reserve(16 + hs.size() + 12 * n);
  out += "LBCKPT1\n";
  const std::uint64_t hl = hs.size();
  out.append(reinterpret_cast<const char*>(&hl), 8);
  out += hs;
  for (const auto* vec : {&st_.w, &st_.m, &st_.v}) out.append(reinterpret_cast<const char*>(vec->data()), 4 * n);
  write_atomic(path, out);
}

void Trainer::load_checkpoint(const std::string& path) {
  const std::string b = read_file(path);
  if (b.size() < 16 || b.compare(0, 8, "LBCKPT1\n") != 0) throw std::runtime_error(path + ": not a checkpoint");
  std::uint64_t hl;
  std::memcpy(&hl, b.data() + 8, 8);
  if (16 + hl > b.size()) throw std::runtime_error(path + ": truncated header");
  const auto h = nlohmann::json::parse(b.substr(16, hl));
  const std::size_t n = model_->n_params();
  if (h.at("kind") != model_->kind() || h.at("n_params").get<std::size_t>() != n ||
      h.at("config") != model_->config_json())
    throw std::runtime_error(path + ": checkpoint is for another model or config");
  if (b.size() != 16 + hl + 12 * n) throw std::runtime_error(path + ": wrong size");
  const char* p = b.data() + 16 + hl;
  for (auto* vec : {&st_.w, &st_.m, &st_.v}) {
    std::memcpy(vec->data(), p, 4 * n);
    p += 4 * n;
  }
  st_.step = h.at("step"), st_.total_steps = h.at("total_steps");
  st_.epoch = h.at("epoch"), st_.cursor = h.at("cursor"), st_.tokens = h.at("tokens");
  st_.elapsed = h.at("elapsed");
  if (h.at("seed").get<std::uint64_t>() != opt_.seed || h.at("batch").get<int>() != opt_.batch)
    throw std::runtime_error(path + ": resume with the same --seed and --batch as the checkpoint (seed " +
                             h.at("seed").dump() + ", batch " + h.at("batch").dump() + ")");
  if (h.value("drill_share", 0.0) != opt_.drills.share)
    throw std::runtime_error(path + ": resume with the same --drill-share as the checkpoint (" +
                             std::to_string(h.value("drill_share", 0.0)) + ")");
  sampler_.seek(st_.epoch, st_.cursor);
}

void Trainer::export_model(const std::string& dir) const {
  export_folder(dir, *model_, st_.w.data(), opt_.tokenizer,
                {{"step", st_.step}, {"tokens", st_.tokens}, {"seed", opt_.seed}});
}

namespace {

// Keeps the CSV's header and its rows up to `step` (a resumed run writes the rest again).
void trim_csv(const std::string& csv, long step) {
  std::ifstream in(csv);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == 's' || std::atol(line.c_str()) <= step) kept += line + "\n";
  }
  write_atomic(csv, kept);
}

}  // namespace

void Trainer::start_run(const std::string& ckpt, const std::string& csv) {
  if (opt_.resume && std::filesystem::exists(ckpt)) {
    load_checkpoint(ckpt);
    trim_csv(csv, st_.step);
    log("resumed from " + ckpt + " at step " + std::to_string(st_.step));
  } else {
    if (opt_.resume) log("no checkpoint in " + opt_.out_dir + ": starting fresh");
    init();
    if (!opt_.init_weights.empty()) {
      load_weights(opt_.init_weights);
      log("weights from " + opt_.init_weights);
    }
    write_atomic(csv, "step,train_loss,lr,tokens,elapsed_s,val_loss\n");
  }
  if (st_.total_steps <= 0) throw std::runtime_error("give --steps");
  log(model_->kind() + ": " + std::to_string(model_->n_params()) + " parameters, batch " +
      std::to_string(opt_.batch) + " x " + std::to_string(model_->seq_len()) + " tokens, " +
      std::to_string(opt_.threads) + " threads, " + std::to_string(sampler_.stories()) + " stories");
}

void Trainer::log_progress(double loss, double val, double elapsed, double steps_per_s) {
  const double tps = steps_per_s * opt_.batch * model_->seq_len();
  const double eta = steps_per_s > 0 ? double(st_.total_steps - st_.step) / steps_per_s : NAN;
  char buf[256];
  std::snprintf(buf, sizeof buf, "step %ld/%ld loss %.4f%s lr %.3g gnorm %.2f tok/s %.0f elapsed %s eta %s",
                st_.step, st_.total_steps, loss,
                std::isnan(val) ? "" : (" val " + std::to_string(val).substr(0, 6)).c_str(),
                lr_at(st_.step - 1), last_grad_norm, tps, fmt_time(elapsed).c_str(),
                std::isnan(eta) ? "?" : fmt_time(eta).c_str());
  log(buf);
}

bool Trainer::finish_run(const std::string& ckpt, double elapsed) {
  st_.elapsed = elapsed;
  if (!val_rows_.empty()) log("final val loss " + std::to_string(validate()));
  save_checkpoint(ckpt);
  export_model(opt_.export_dir);
  const bool finished = !g_stop;
  log(std::string(finished ? "finished" : "stopped") + " at step " + std::to_string(st_.step) + " after " +
      fmt_time(elapsed) + "; checkpoint " + ckpt + ", export " + opt_.export_dir);
  return finished;
}

bool Trainer::run() {
  using clock = std::chrono::steady_clock;
  std::filesystem::create_directories(opt_.out_dir);
  const std::string ckpt = opt_.out_dir + "/checkpoint.bin";
  const std::string csv = opt_.out_dir + "/loss.csv";
  g_stop = 0;
  std::signal(SIGTERM, on_stop);
  std::signal(SIGINT, on_stop);
  std::signal(SIGUSR1, on_export);
  start_run(ckpt, csv);
  std::ofstream csvf(csv, std::ios::app);
  const auto t0 = clock::now();
  const double elapsed0 = st_.elapsed;
  auto now = [&] { return elapsed0 + std::chrono::duration<double>(clock::now() - t0).count(); };
  double last_ckpt = now();
  if (st_.step == 0 && !val_rows_.empty()) {
    const double val = validate();
    csvf << 0 << ",," << lr_at(0) << ",0," << now() << "," << val << "\n" << std::flush;
    log("step 0 val loss " + std::to_string(val));
  }
  double win_t = now();  // the window of steps the speed in the log is measured over
  long win_step = st_.step;
  while (st_.step < st_.total_steps && !g_stop) {
    const double loss = step();
    const double t = now();
    st_.elapsed = t;
    if (!std::isfinite(loss)) throw std::runtime_error("loss is not finite at step " + std::to_string(st_.step));
    const bool val_now = opt_.val_every > 0 && st_.step % opt_.val_every == 0;
    const double val = val_now && !val_rows_.empty() ? validate() : NAN;
    csvf << st_.step << "," << loss << "," << lr_at(st_.step - 1) << "," << st_.tokens << "," << now() << ",";
    if (!std::isnan(val)) csvf << val;
    csvf << "\n";
    if (st_.step % opt_.log_every == 0 || val_now) {
      csvf.flush();
      const double dt = t - win_t;
      log_progress(loss, val, t, dt > 0 ? double(st_.step - win_step) / dt : 0);
      win_t = now(), win_step = st_.step;
    }
    if (now() - last_ckpt >= opt_.ckpt_minutes * 60.0) {
      save_checkpoint(ckpt);
      export_model(opt_.export_dir);
      last_ckpt = now();
      log("checkpoint at step " + std::to_string(st_.step));
    }
    if (g_export) {
      g_export = 0;
      export_model(opt_.export_dir);
      log("exported to " + opt_.export_dir);
    }
  }
  csvf.flush();
  return finish_run(ckpt, now());
}

}  // namespace lookback::train
