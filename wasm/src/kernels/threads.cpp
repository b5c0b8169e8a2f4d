// The thread pool of lookback/threads.hpp. Each call is one job: the caller publishes it (a new ticket), then
// the caller and any worker awake take its parts one at a time, and the caller returns when every part has
// finished. The caller never waits for a worker to wake: a sleeping worker costs nothing but the wake-up call,
// and one that wakes late finds every part taken. Between jobs a worker spins for two milliseconds (decoding calls
// come back to back), then sleeps on a condition variable. Not here: splitting kernels (split.cpp).
#include "lookback/threads.hpp"

#include <algorithm>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define LOOKBACK_POOL 1
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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

// How long a worker keeps checking for a new job after its last one before it sleeps: longer than the gap
// between two calls a caller makes back to back (the JS API's copies at T=512 take a few tenths of a
// millisecond), so a worker is awake when the next call comes; waking a sleeping one can take a millisecond.
constexpr auto kSpinFor = std::chrono::microseconds(2000);
constexpr int kSpinsPerClock = 256;  // checks between two readings of the clock

// True on a thread running a part (the pool's workers always): a split call made there runs on that thread.
thread_local bool in_part = false;

// The job ticket: generation (24 bits) | parts (20 bits) | next part to take (20 bits). A thread takes a part
// by advancing `next` with a compare-and-swap on the whole ticket, so it can only take a part of the job whose
// generation it saw; once every part is taken, a late thread finds nothing and leaves.
using Ticket = std::uint64_t;
constexpr Ticket kField = (Ticket(1) << 20) - 1;
constexpr unsigned generation_of(Ticket t) { return unsigned(t >> 40); }
constexpr int parts_of(Ticket t) { return int((t >> 20) & kField); }
constexpr int next_of(Ticket t) { return int(t & kField); }

struct Pool {
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<Ticket> ticket{0};
  std::atomic<int> sleepers{0};
  std::atomic<int> completed{0};  // parts of the current job finished
  std::atomic<bool> stop{false};
  PartFn part = nullptr;  // the current job, written before its ticket is published
  void* context = nullptr;

  // Takes and runs parts of job `generation` until none is left.
  void take_parts(unsigned generation) {
    Ticket t = ticket.load(std::memory_order_acquire);
    while (generation_of(t) == generation && next_of(t) < parts_of(t)) {
      if (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      part(next_of(t), context);
      completed.fetch_add(1, std::memory_order_release);
      t = ticket.load(std::memory_order_acquire);
    }
  }

  // `seen`: the generation when the thread was started
  void worker(unsigned seen) {
    in_part = true;
    for (;;) {
      unsigned g = generation_of(ticket.load(std::memory_order_acquire));
      const auto until = std::chrono::steady_clock::now() + kSpinFor;
      for (int spin = 1; g == seen && !stop.load(std::memory_order_relaxed); ++spin) {
        g = generation_of(ticket.load(std::memory_order_acquire));
        if (spin % kSpinsPerClock == 0 && std::chrono::steady_clock::now() > until) break;
      }
      if (g == seen) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepers.fetch_add(1);
        wake.wait(lock, [&] { return stop.load() || generation_of(ticket.load()) != seen; });
        sleepers.fetch_sub(1);
        if (stop.load()) return;
        g = generation_of(ticket.load());
      }
      if (stop.load()) return;
      seen = g;
      take_parts(g);
    }
  }

  // Starts up to `workers` threads; fewer if the platform refuses one (the threaded WebAssembly module starts
  // only as many as its preloaded pool holds).
  void start(int workers) {
    try {
      const unsigned g = generation_of(ticket.load());
      for (int i = 0; i < workers; ++i) threads.emplace_back([this, g] { worker(g); });
    } catch (const std::system_error&) {
    }
  }

  void halt() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop.store(true);
    }
    wake.notify_all();
    for (auto& t : threads) t.join();
    threads.clear();
    stop.store(false);
  }

  // Publishes the job, wakes sleeping workers, takes parts too, and returns once every part has finished
  // (whoever ran it: a worker that wakes late finds the job done and leaves it alone).
  void run(int n, PartFn fn, void* ctx) {
    part = fn, context = ctx;
    completed.store(0, std::memory_order_relaxed);
    const unsigned g = (generation_of(ticket.load()) + 1) & ((1u << 24) - 1);
    ticket.store((Ticket(g) << 40) | (Ticket(n) << 20));  // sequentially consistent, read against sleepers below
    if (sleepers.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex); }
      wake.notify_all();
    }
    take_parts(g);
    while (completed.load(std::memory_order_acquire) < n) {
    }
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: workers may outlive static destruction at exit
  return *p;
}

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
  if (parts <= 1 || in_part || p.threads.empty() || parts > int(kField)) {
    for (int i = 0; i < parts; ++i) part(i, context);
    return;
  }
  in_part = true;  // as on the workers: a split call inside a part runs on its thread
  p.run(parts, part, context);
  in_part = false;
}

#else  // the one-thread WebAssembly module

int set_threads(int) { return 1; }
int thread_count() { return 1; }
void run_parts(int parts, PartFn part, void* context) {
  for (int i = 0; i < parts; ++i) part(i, context);
}

#endif

}  // namespace lookback
