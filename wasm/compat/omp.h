// Single-thread stand-ins for the OpenMP runtime calls the trainer makes, for the WebAssembly builds of the
// trainer (Emscripten has no OpenMP, so its `#pragma omp` lines are ignored and every loop runs on one thread).
// Only on the include path of the WebAssembly training targets; native builds use the compiler's <omp.h>.
// Callers must ask for one thread: the trainer's row split assumes the threads it asked for exist.
#pragma once

inline int omp_get_thread_num() { return 0; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_max_threads() { return 1; }
