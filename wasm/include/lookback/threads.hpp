// lookback's thread pool: one kernel call split into parts that run on a few threads at once (the caller runs
// parts too). Built with threads natively and in the threaded WebAssembly module; in the one-thread module every
// part runs on the caller and set_threads(n) answers 1. Not here: how a kernel is split (lookback/split.hpp).
#pragma once

namespace lookback {

// Uses n threads (the caller and n - 1 workers, started here; n is clamped to 1..64 and to what the build can
// start). Returns the threads now in use. Not to be called while a split call runs.
int set_threads(int n);
// Threads in use (1 until set_threads asks for more).
int thread_count();

// Runs part(p, context) for p in 0..parts-1, spread over the pool; returns when every part has finished. Parts
// must write disjoint memory. A call from inside a part runs its parts on that thread, one after another.
using PartFn = void (*)(int part, void* context);
void run_parts(int parts, PartFn part, void* context);

// The same with any callable f(p).
template <class F>
void parallel_parts(int parts, F&& f) {
  run_parts(parts, [](int p, void* c) { (*static_cast<F*>(c))(p); }, static_cast<void*>(&f));
}

}  // namespace lookback
