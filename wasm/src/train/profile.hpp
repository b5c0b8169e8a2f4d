// Per-op timing of training steps (`lookback-train --bench N --profile`): each op of the forward, backward and
// optimiser adds its thread's seconds and its multiply-add work (2 flops each) to a table of the calling thread.
// Both wall seconds and the thread's CPU seconds are kept: on a machine shared with other work, the CPU seconds
// tell the speed of the time the op actually ran. Off unless enabled, when a scope costs one branch.
// Not a benchmark harness (wasm/tools/train.cpp times steps).
#pragma once
#include <string>
#include <vector>

namespace lookback::train::profile {

enum Op : int {
  embedding, rmsnorm, rope, swiglu, residual,
  gemm_attn_proj, gemm_mlp, gemm_classifier,            // forward products
  attention_fwd, cross_entropy,
  gemm_attn_proj_bwd, gemm_mlp_bwd, gemm_classifier_bwd,  // backward products (input and weight gradients)
  attention_bwd, reduce_grads, clip_norm, optimizer,
  kOps
};
const char* name(Op op);

void enable(bool on);
bool enabled();
void reset();  // zero every thread's table

struct Row {
  std::string op;
  double seconds = 0;      // wall, summed over threads
  double cpu_seconds = 0;  // the threads' CPU time
  double flops = 0;
  long calls = 0;
};
std::vector<Row> collect();  // summed over threads, in Op order, rows with calls only

// Times its lifetime into `op` of the calling thread's table when enabled.
class Scope {
 public:
  Scope(Op op, double flops = 0);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Op op_;
  double flops_;
  long long t0_ = -1, c0_ = 0;
};

// CPU seconds of the calling thread and of the whole process so far.
double thread_cpu_seconds();
double process_cpu_seconds();

inline double gemm_flops(long M, long N, long K) { return 2.0 * double(M) * double(N) * double(K); }

}  // namespace lookback::train::profile
