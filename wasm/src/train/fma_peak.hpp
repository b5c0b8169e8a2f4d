// The machine's measured multiply-add peak: a loop of independent fused multiply-adds on registers only (no
// loads, nothing a GEMM must also do), AVX-512 or AVX2, on one or more threads at once. The yardstick the
// trainer's speed is reported against (`lookback-train --bench N --profile`). x86-64 natively; elsewhere
// (WebAssembly) every figure is 0 with `supported` false. Not a GEMM benchmark.
#pragma once
#include <string>

namespace lookback::train {

struct FmaPeak {
  std::string isa;         // "avx512" or "avx2"
  int threads = 1;
  bool supported = false;  // the CPU has the instructions (the loop ran)
  double gflops = 0;       // best of the samples, all threads together (one FMA = 2 flops per lane)
  double gflops_cpu = 0;   // the same per CPU second each thread ran, times the threads: what the threads do
                           // while they hold a core (other work on the machine lowers `gflops`, not this)
};

// Runs the loop `samples` times of about `seconds` each on `threads` threads started together.
FmaPeak fma_peak(const std::string& isa, int threads, int samples = 5, double seconds = 0.1);

}  // namespace lookback::train
