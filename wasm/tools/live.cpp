// lookback-live: a live training run (train_live/live_run.hpp) natively, one thread, printing its loss curve as
// JSON: the same run the page's training widget and lb.train make in WebAssembly, for comparing the two (same
// seed, same curve) and for timing steps per second. Not the Sprout trainer (lookback-train).
//   lookback-live --task induction --layers 2 --steps 200 --eval-every 50
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "base/cli.hpp"
#include "train_live/live_run.hpp"

namespace {

const char* kHelp = R"(usage: lookback-live [options]
  --task NAME       induction, previous or corpus (default induction)
  --alphabet N      random tokens of the induction and previous tasks (default 188)
  --repeat N[:M]    induction: the first copy's length, or a range (default T/2 - 3T/16 : T/2, 10:16 at T = 32)
  --repeats-inside  induction: tokens may repeat inside the first copy (default: all distinct)
  --layers N        1 to 4 (default 2)
  --mlp             SwiGLU MLPs (default: attention only)
  --no-qk-norm      plain dot products (default: Sprout's QK-norm)
  --qk-gain X       the QK-norm gains at the start (default 1; Sprout's are 2)
  --dim N           d_model (default 64)    --heads N   heads per layer (default 2)
  --seq N           tokens per row (default 32)
  --batch N         rows per step (default 16)
  --lr X            learning rate after warm-up (default 0.003)   --warmup N (default 50)
  --beta2 X         Adam's (default 0.99)  --wd X  weight decay (default 0)
  --steps N         steps (default 200)    --seed S (default 1)
  --eval-every N    held-out losses and head scores every N steps (default 0: never)
Prints {"steps": [...], "loss": [...], "evals": [...], "steps_per_s": X} as one JSON line.
)";

const lookback::cli::Usage kUsage{"lookback-live", kHelp};

}  // namespace

int main(int argc, char** argv) {
  using namespace lookback::live;
  LiveOptions o;
  long steps = 200;
  int eval_every = 0;
  try {
    lookback::cli::parse(kUsage, argc, argv, [&](const std::string& a, auto value) {
      if (a == "--task") o.task = value();
      else if (a == "--alphabet") o.alphabet = std::stoi(value());
      else if (a == "--repeat") {
        const std::string v = value();
        const auto colon = v.find(':');
        o.repeat_min = std::stoi(v.substr(0, colon));
        o.repeat_max = colon == std::string::npos ? o.repeat_min : std::stoi(v.substr(colon + 1));
      } else if (a == "--repeats-inside") o.distinct = false;
      else if (a == "--layers") o.model.layers = std::stoi(value());
      else if (a == "--mlp") o.model.mlp = true;
      else if (a == "--no-qk-norm") o.model.qk_norm = false;
      else if (a == "--qk-gain") o.model.qk_gain = std::stof(value());
      else if (a == "--dim") o.model.dim = std::stoi(value());
      else if (a == "--heads") o.model.heads = std::stoi(value());
      else if (a == "--seq") o.model.seq_len = std::stoi(value());
      else if (a == "--batch") o.batch = std::stoi(value());
      else if (a == "--lr") o.lr = std::stof(value());
      else if (a == "--warmup") o.warmup = std::stoi(value());
      else if (a == "--beta2") o.beta2 = std::stof(value());
      else if (a == "--wd") o.weight_decay = std::stof(value());
      else if (a == "--steps") steps = std::stol(value());
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--eval-every") eval_every = std::stoi(value());
      else return false;
      return true;
    });
    LiveRun run(o);
    std::string loss = "[", evals = "[";
    double train_s = 0;
    char buf[512];
    for (long s = 1; s <= steps; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      const double l = run.step();
      train_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::snprintf(buf, sizeof buf, "%s%.9g", s > 1 ? "," : "", l);
      loss += buf;
      if (eval_every > 0 && (s % eval_every == 0 || s == steps)) {
        const Losses e = run.evaluate();
        const ProbeView p = run.probe();
        double prev = 0, ind = 0;
        for (double x : p.previous) prev = std::max(prev, x);
        for (double x : p.induction) ind = std::max(ind, x);
        std::snprintf(buf, sizeof buf, "%s{\"step\":%ld,\"held_out\":%.6g,\"task\":%.6g,\"previous\":%.4f,\"induction\":%.4f}",
                      evals.size() > 1 ? "," : "", s, e.held_out, e.task, prev, ind);
        evals += buf;
      }
    }
    std::printf("{\"parameters\":%zu,\"loss\":%s],\"evals\":%s],\"steps_per_s\":%.4g}\n", run.parameters(),
                loss.c_str(), evals.c_str(), double(steps) / train_s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lookback-live: %s\n", e.what());
    return 1;
  }
  return 0;
}
