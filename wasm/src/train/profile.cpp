// Per-op timing tables, one per thread; see profile.hpp.
#include "train/profile.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <ctime>
#include <memory>
#include <mutex>

namespace lookback::train::profile {

namespace {

struct Cell {
  long long ns = 0, cpu_ns = 0;
  double flops = 0;
  long calls = 0;
};
using Table = std::array<Cell, kOps>;

std::atomic<bool> g_on{false};
std::mutex g_mu;
std::vector<std::shared_ptr<Table>> g_tables;  // every thread's table, kept after the thread ends

Table& mine() {
  thread_local std::shared_ptr<Table> t = [] {
    auto p = std::make_shared<Table>();
    std::lock_guard<std::mutex> lock(g_mu);
    g_tables.push_back(p);
    return p;
  }();
  return *t;
}

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

long long clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

constexpr const char* kNames[kOps] = {
    "embedding", "rmsnorm", "rope", "swiglu", "residual copies",
    "gemm: attention projections (fwd)", "gemm: MLP (fwd)", "gemm: classifier (fwd)",
    "attention (fwd)", "softmax cross-entropy",
    "gemm: attention projections (bwd)", "gemm: MLP (bwd)", "gemm: classifier (bwd)",
    "attention (bwd)", "gradient sum over threads", "gradient norm", "AdamW"};

}  // namespace

const char* name(Op op) { return kNames[op]; }
double thread_cpu_seconds() { return double(clock_ns(CLOCK_THREAD_CPUTIME_ID)) * 1e-9; }
double process_cpu_seconds() { return double(clock_ns(CLOCK_PROCESS_CPUTIME_ID)) * 1e-9; }
void enable(bool on) { g_on = on; }
bool enabled() { return g_on; }

void reset() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& t : g_tables) t->fill(Cell{});
}

std::vector<Row> collect() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::vector<Row> out;
  for (int op = 0; op < kOps; ++op) {
    Row r;
    r.op = kNames[op];
    for (auto& t : g_tables) {
      r.seconds += double((*t)[op].ns) * 1e-9;
      r.cpu_seconds += double((*t)[op].cpu_ns) * 1e-9;
      r.flops += (*t)[op].flops;
      r.calls += (*t)[op].calls;
    }
    if (r.calls) out.push_back(r);
  }
  return out;
}

Scope::Scope(Op op, double flops) : op_(op), flops_(flops) {
  if (g_on.load(std::memory_order_relaxed)) t0_ = now_ns(), c0_ = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

Scope::~Scope() {
  if (t0_ < 0) return;
  Cell& c = mine()[op_];
  c.ns += now_ns() - t0_;
  c.cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0_;
  c.flops += flops_;
  c.calls += 1;
}

}  // namespace lookback::train::profile
