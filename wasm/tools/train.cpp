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
#include "train/trainer.hpp"

using namespace lookback::train;

namespace {

const char* kHelp = R"(usage: lookback-train --model sprout|window --data TOKENS.bin --out DIR [options]
  --model sprout|window   which model (default sprout)
  --config full|small     full = the shipped size; small = a tiny config for tests
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
  --log-every N           progress line every N steps (default 10)
  --val-every N           validation loss every N steps (default 200)
  --val-rows N            rows of validation data (default 64)
  --drill-share X         share of rows that are copy drills: <s> then random merged-token ids (258 and up)
                          repeated to the row's end, period 8..128 (default 0)
  --ckpt-minutes M        checkpoint (and export) every M minutes (default 5)
  --bench N               time N steps of forward+backward and print tokens/s (no files written)
  --export-only           load DIR/checkpoint.bin, export, exit
  kill -USR1 PID exports now; kill -TERM PID checkpoints, exports and stops (exit status 3: not finished).
)";

const lookback::cli::Usage kUsage{"lookback-train", kHelp};

}  // namespace

int main(int argc, char** argv) {
  try {
    TrainOptions opt;
    std::string model = "sprout", config = "full", data, val;
    int vocab = 3072, bench = 0;
    bool export_only = false, lr_set = false, warmup_set = false;
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
      else if (a == "--log-every") opt.log_every = std::stoi(value());
      else if (a == "--val-every") opt.val_every = std::stoi(value());
      else if (a == "--val-rows") opt.val_rows = std::stoi(value());
      else if (a == "--drill-share") opt.drills.share = std::stod(value());
      else if (a == "--ckpt-minutes") opt.ckpt_minutes = std::stod(value());
      else if (a == "--bench") bench = std::stoi(value());
      else if (a == "--export-only") export_only = true;
      else return false;
      return true;
    });
    if (!lr_set && model == "window") opt.lr = 3e-3f;
    if (!warmup_set && opt.steps > 0 && opt.steps / 10 < opt.warmup) opt.warmup = int(std::max(1L, opt.steps / 10));
    if (data.empty()) throw std::runtime_error("--data is required (see --help)");
    if (opt.out_dir.empty() && !bench) throw std::runtime_error("--out is required (see --help)");
    if (opt.threads < 1 || opt.batch < 1) throw std::runtime_error("--threads and --batch must be >= 1");
    opt.drills.lo = lookback::BpeTokenizer::kFirstMerge, opt.drills.hi = vocab;  // as the induction test draws
    const auto train_ids = read_tokens(data);
    std::vector<std::uint16_t> val_ids;
    if (!val.empty()) val_ids = read_tokens(val);
    Trainer tr(make_model(model, config, vocab), opt, &train_ids, val.empty() ? nullptr : &val_ids);
    if (bench > 0) {
      tr.init();
      tr.step();  // warm-up (first-touch of buffers)
      const auto t0 = std::chrono::steady_clock::now();
      double loss = 0;
      for (int s = 0; s < bench; ++s) loss = tr.step();
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s: %d steps of %d x %d tokens, %d threads: %.3f s/step, %.0f tokens/s (loss %.4f)\n",
                  model.c_str(), bench, opt.batch, tr.model().seq_len(), opt.threads, dt / bench,
                  double(bench) * opt.batch * tr.model().seq_len() / dt, loss);
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
