// The thread pool of lookback/threads.hpp. Each call is one job: the caller publishes it (a new generation),
// workers take parts from a shared counter, and the caller waits until every worker has seen the job through,
// so that no worker touches a job after its call returned. Between jobs a worker spins for a while (decoding
// calls come back to back), then sleeps on a condition variable. Not here: splitting kernels (split.cpp).
#include "lookback/threads.hpp"

#include <algorithm>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define LOOKBACK_POOL 1
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>
#else
#define LOOKBACK_POOL 0
#endif

namespace lookback {

#if LOOKBACK_POOL
namespace {

constexpr int kSpins = 1 << 17;  // checks of the generation before a worker sleeps

struct Pool {
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<unsigned> generation{0};
  std::atomic<int> sleepers{0};
  std::atomic<int> finished{0};  // workers done with the current job
  std::atomic<int> next{0};      // next part to take
  bool stop = false;             // guarded by mutex
  int parts = 0;                 // the current job, written before its generation is published
  PartFn part = nullptr;
  void* context = nullptr;

  void take_parts() {
    for (int p; (p = next.fetch_add(1, std::memory_order_relaxed)) < parts;) part(p, context);
  }

  // `seen`: the generation when the thread was started (read by the starter, so no job is missed)
  void worker(unsigned seen) {
    for (;;) {
      unsigned g = generation.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < kSpins; ++spin) g = generation.load(std::memory_order_acquire);
      if (g == seen) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepers.fetch_add(1);
        wake.wait(lock, [&] { return stop || generation.load() != seen; });
        sleepers.fetch_sub(1);
        if (stop) return;
        g = generation.load();
      }
      seen = g;
      take_parts();
      finished.fetch_add(1, std::memory_order_release);
    }
  }

  // Starts up to `workers` threads; fewer if the platform refuses one (the threaded WebAssembly module starts
  // only as many as its preloaded pool holds).
  void start(int workers) {
    try {
      const unsigned g = generation.load();
      for (int i = 0; i < workers; ++i) threads.emplace_back([this, g] { worker(g); });
    } catch (const std::system_error&) {
    }
  }

  void halt() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    for (auto& t : threads) t.join();
    threads.clear();
    stop = false;
  }

  void run(int n, PartFn fn, void* ctx) {
    parts = n, part = fn, context = ctx;
    next.store(0, std::memory_order_relaxed);
    finished.store(0, std::memory_order_relaxed);
    generation.fetch_add(1);  // publishes the job (sequentially consistent, read against sleepers below)
    if (sleepers.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex); }
      wake.notify_all();
    }
    take_parts();
    const int workers = int(threads.size());
    while (finished.load(std::memory_order_acquire) < workers) {
    }
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: workers may outlive static destruction at exit
  return *p;
}

thread_local bool in_part = false;

}  // namespace

int set_threads(int n) {
  n = std::clamp(n, 1, 64);
  Pool& p = pool();
  if (int(p.threads.size()) + 1 == n) return n;
  p.halt();
  p.start(n - 1);
  return thread_count();
}

int thread_count() { return int(pool().threads.size()) + 1; }

void run_parts(int parts, PartFn part, void* context) {
  Pool& p = pool();
  if (parts <= 1 || in_part || p.threads.empty()) {
    for (int i = 0; i < parts; ++i) part(i, context);
    return;
  }
  struct Guard {
    Guard() { in_part = true; }
    ~Guard() { in_part = false; }
  } guard;
  // the workers run parts with in_part set by the wrapper below, so nested calls stay on their thread
  struct Wrapped {
    PartFn part;
    void* context;
  } w{part, context};
  p.run(parts, [](int i, void* c) {
    auto* x = static_cast<Wrapped*>(c);
    const bool was = in_part;
    in_part = true;
    x->part(i, x->context);
    in_part = was;
  }, &w);
}

#else  // the one-thread WebAssembly module

int set_threads(int) { return 1; }
int thread_count() { return 1; }
void run_parts(int parts, PartFn part, void* context) {
  for (int i = 0; i < parts; ++i) part(i, context);
}

#endif

}  // namespace lookback
