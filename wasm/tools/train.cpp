// lookback-train: trains Sprout or the window model on token files and exports the shipped folder.
//   lookback-train --model sprout --data train.bin --val val.bin --out DIR --steps 7600 --threads 2
// See --help for every flag. Deterministic given --steps, --seed and --threads.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "base/cli.hpp"
#include "model/bpe.hpp"
#include "train/export.hpp"
#include "train/fma_peak.hpp"
#include "train/profile.hpp"
#include "train/trainer.hpp"

using namespace lookback::train;

namespace {

const char* kHelp = R"(usage: lookback-train --model sprout|window --data TOKENS.bin --out DIR [options]
  --model sprout|window   which model (default sprout)
  --config full|small|SHAPE  full = the shipped size; small = a tiny config for tests; SHAPE changes sizes of
                          the full one, e.g. dim=160,layers=8,heads=5,hidden=448 (also context=N)
  --data FILE             training ids (uint16 little-endian, stories as <s> ... </s>)
  --val FILE              validation ids (same format), evaluated every --val-every steps
  --out DIR               checkpoint.bin, loss.csv, train.log; export in DIR/export unless --export
  --export DIR            the shipped folder (model.safetensors fp16, config.json, tokenizer.json)
  --tokenizer FILE        tokenizer.json copied into the export
  --vocab N               vocabulary size (default 3072)
  --steps N               the number of optimiser steps (the learning-rate schedule ends there)
  --batch B               rows of context+1 tokens per step (default 16)
  --lr X                  peak learning rate (default 2e-3 sprout, 3e-3 window)
  --warmup N              warm-up steps (default 200, or steps/10 when smaller)
  --weight-decay X        AdamW decay on matrices (default 0.1)
  --clip X                global gradient-norm clip (default 1.0)
  --seed S                (default 1)
  --threads N             (default 2)
  --resume                continue from DIR/checkpoint.bin when it exists
  --init FILE             start from the weights of an exported model.safetensors (a fine-tune; the model's
                          shape must match it; the schedule and optimiser start afresh)
  --log-every N           progress line every N steps (default 10)
  --val-every N           validation loss every N steps (default 200)
  --val-rows N            rows of validation data (default 64)
  --drill-share X         share of rows that are copy drills: <s> then random merged-token ids (258 and up)
                          repeated to the row's end, period 8..128 (default 0)
  --ckpt-minutes M        checkpoint (and export) every M minutes (default 5)
  --bench N               time N steps of forward+backward and print tokens/s (no files written)
  --profile               with --bench: time every op of the steps, and measure the machine's FMA peak
                          (register-only loops, AVX-512 and AVX2, one thread and --threads) in the same run
  --json FILE             with --bench: write the measurements as JSON
  --export-only           load DIR/checkpoint.bin, export, exit
  kill -USR1 PID exports now; kill -TERM PID checkpoints, exports and stops (exit status 3: not finished).
)";

const lookback::cli::Usage kUsage{"lookback-train", kHelp};

// --bench: times `steps` optimiser steps after one warm-up step; with `prof`, per op and against the FMA peak.
// Every rate comes twice: by the wall clock, and per CPU second the threads ran (times the threads), which is
// what the trainer does while it holds the cores; on a machine shared with other work only the second is fair.
nlohmann::json bench(Trainer& tr, int steps, bool prof) {
  const TrainOptions& opt = tr.options();
  const int T = tr.model().seq_len();
  nlohmann::json out = {{"model", tr.model().kind()}, {"config", tr.model().config_json()},
                        {"parameters", tr.model().n_params()}, {"batch", opt.batch}, {"threads", opt.threads},
                        {"steps", steps}};
  std::vector<FmaPeak> peaks;
  if (prof)
    for (const char* isa : {"avx512", "avx2"})
      for (int t : {1, opt.threads}) {
        if (t == 1 && opt.threads == 1 && !peaks.empty() && peaks.back().isa == isa) continue;
        peaks.push_back(fma_peak(isa, t));
      }
  tr.init();
  tr.step();  // warm-up (first-touch of buffers)
  profile::reset();
  profile::enable(prof);
  const double c0 = profile::process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  double loss = 0;
  for (int s = 0; s < steps; ++s) loss = tr.step();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = profile::process_cpu_seconds() - c0;
  profile::enable(false);
  const double tokens = double(steps) * opt.batch * T;
  std::printf("%s: %d steps of %d x %d tokens, %d threads: %.3f s/step, %.0f tokens/s (loss %.4f); "
              "%.0f tokens per CPU second x %d threads\n",
              tr.model().kind().c_str(), steps, opt.batch, T, opt.threads, dt / steps, tokens / dt, loss,
              tokens / cpu, opt.threads);
  out["seconds_per_step"] = dt / steps;
  out["tokens_per_s"] = tokens / dt;
  out["tokens_per_s_cpu"] = tokens / cpu * opt.threads;
  out["cpu_seconds_per_step"] = cpu / steps;
  out["loss"] = loss;
  if (!prof) return out;
  // the products counted (matrix products and attention's, as executed)
  double flops = 0, busy = 0, busy_cpu = 0;
  const auto rows = profile::collect();
  for (const auto& r : rows) flops += r.flops, busy += r.seconds, busy_cpu += r.cpu_seconds;
  const double gflops = flops / dt * 1e-9, gflops_cpu = flops / cpu * opt.threads * 1e-9;
  out["flops_per_token"] = flops / tokens;
  out["step_gflops"] = gflops;
  out["step_gflops_cpu"] = gflops_cpu;
  out["peaks"] = nlohmann::json::array();
  double best = 0, best_cpu = 0;
  for (const auto& p : peaks) {
    out["peaks"].push_back({{"isa", p.isa}, {"threads", p.threads}, {"supported", p.supported}, {"gflops", p.gflops},
                            {"gflops_cpu", p.gflops_cpu}});
    std::printf("FMA peak %-6s %d thread%s: %s\n", p.isa.c_str(), p.threads, p.threads > 1 ? "s" : " ",
                p.supported ? (std::to_string(int(p.gflops + 0.5)) + " GFLOP/s, " +
                               std::to_string(int(p.gflops_cpu + 0.5)) + " per CPU second x threads").c_str()
                            : "not supported here");
    if (p.threads == opt.threads) best = std::max(best, p.gflops), best_cpu = std::max(best_cpu, p.gflops_cpu);
  }
  out["peak_gflops"] = best;
  out["peak_gflops_cpu"] = best_cpu;
  out["percent_of_peak"] = best > 0 ? 100.0 * gflops / best : 0.0;
  out["percent_of_peak_cpu"] = best_cpu > 0 ? 100.0 * gflops_cpu / best_cpu : 0.0;
  std::printf("step: %.1f MFLOP of products per token; %.1f GFLOP/s = %.1f%% of the %d-thread peak by the wall "
              "clock, %.1f GFLOP/s = %.1f%% per CPU second\n",
              flops / tokens * 1e-6, gflops, best > 0 ? 100.0 * gflops / best : 0.0, opt.threads, gflops_cpu,
              best_cpu > 0 ? 100.0 * gflops_cpu / best_cpu : 0.0);
  std::printf("%-36s %7s %12s %9s\n", "op (share of the threads' CPU time)", "share", "CPU ms/step", "GFLOP/s");
  out["ops"] = nlohmann::json::array();
  auto line = [&](const std::string& op, double sec, double csec, double fl) {
    const double rate = csec > 0 && fl > 0 ? fl / csec * 1e-9 : 0;  // one thread's rate per CPU second in the op
    std::printf("%-36s %6.1f%% %12.2f %9s\n", op.c_str(), 100.0 * csec / cpu, csec / steps * 1e3,
                fl > 0 ? std::to_string(int(rate + 0.5)).c_str() : "");
    out["ops"].push_back({{"op", op}, {"share", csec / cpu}, {"cpu_ms_per_step", csec / steps * 1e3},
                          {"wall_ms_per_step_per_thread", sec / opt.threads / steps * 1e3},
                          {"flops_per_step", fl / steps}, {"gflops_per_thread_cpu", rate}});
  };
  for (const auto& r : rows) line(r.op, r.seconds, r.cpu_seconds, r.flops);
  line("(outside the ops: waits, sampling)", std::max(0.0, dt * opt.threads - busy), std::max(0.0, cpu - busy_cpu), 0);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    TrainOptions opt;
    std::string model = "sprout", config = "full", data, val;
    int vocab = 3072, bench_steps = 0;
    std::string json_out;
    bool export_only = false, prof = false, lr_set = false, warmup_set = false;
    lookback::cli::parse(kUsage, argc, argv, [&](const std::string& a, auto value) {
      if (a == "--model") model = value();
      else if (a == "--config") config = value();
      else if (a == "--data") data = value();
      else if (a == "--val") val = value();
      else if (a == "--out") opt.out_dir = value();
      else if (a == "--export") opt.export_dir = value();
      else if (a == "--tokenizer") opt.tokenizer = value();
      else if (a == "--vocab") vocab = std::stoi(value());
      else if (a == "--steps") opt.steps = std::stol(value());
      else if (a == "--batch") opt.batch = std::stoi(value());
      else if (a == "--lr") opt.lr = std::stof(value()), lr_set = true;
      else if (a == "--warmup") opt.warmup = std::stoi(value()), warmup_set = true;
      else if (a == "--weight-decay") opt.weight_decay = std::stof(value());
      else if (a == "--clip") opt.clip = std::stof(value());
      else if (a == "--seed") opt.seed = std::stoull(value());
      else if (a == "--threads") opt.threads = std::stoi(value());
      else if (a == "--resume") opt.resume = true;
      else if (a == "--init") opt.init_weights = value();
      else if (a == "--log-every") opt.log_every = std::stoi(value());
      else if (a == "--val-every") opt.val_every = std::stoi(value());
      else if (a == "--val-rows") opt.val_rows = std::stoi(value());
      else if (a == "--drill-share") opt.drills.share = std::stod(value());
      else if (a == "--ckpt-minutes") opt.ckpt_minutes = std::stod(value());
      else if (a == "--bench") bench_steps = std::stoi(value());
      else if (a == "--profile") prof = true;
      else if (a == "--json") json_out = value();
      else if (a == "--export-only") export_only = true;
      else return false;
      return true;
    });
    if (!lr_set && model == "window") opt.lr = 3e-3f;
    if (!warmup_set && opt.steps > 0 && opt.steps / 10 < opt.warmup) opt.warmup = int(std::max(1L, opt.steps / 10));
    if (data.empty()) throw std::runtime_error("--data is required (see --help)");
    if (opt.out_dir.empty() && !bench_steps) throw std::runtime_error("--out is required (see --help)");
    if (opt.threads < 1 || opt.batch < 1) throw std::runtime_error("--threads and --batch must be >= 1");
    opt.drills.lo = lookback::BpeTokenizer::kFirstMerge, opt.drills.hi = vocab;  // as the induction test draws
    const auto train_ids = read_tokens(data);
    std::vector<std::uint16_t> val_ids;
    if (!val.empty()) val_ids = read_tokens(val);
    Trainer tr(make_model(model, config, vocab), opt, &train_ids, val.empty() ? nullptr : &val_ids);
    if (bench_steps > 0) {
      const nlohmann::json j = bench(tr, bench_steps, prof);
      if (!json_out.empty()) write_atomic(json_out, j.dump(1) + "\n");
      return 0;
    }
    if (export_only) {
      tr.load_checkpoint(opt.out_dir + "/checkpoint.bin");
      tr.export_model(tr.options().export_dir);
      std::cout << "exported step " << tr.state().step << " to " << tr.options().export_dir << "\n";
      return 0;
    }
    if (tr.run()) return 0;
    std::cerr << "lookback-train: stopped before the last step; run again with --resume to continue\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "lookback-train: " << e.what() << "\n";
    return 1;
  }
}
