// Register-only FMA loops for the peak; see fma_peak.hpp. Each chain is acc = acc * m + c with 16 (AVX-512, 32
// registers) or 12 (AVX2, 16 registers) independent accumulators, enough to cover the FMA latency on every
// pipe; the instruction sets are chosen per function (target attributes), so the loops build whatever -march is.
#include "train/fma_peak.hpp"

#include <ctime>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#include <immintrin.h>
#define LOOKBACK_FMA_PEAK 1
#endif

namespace lookback::train {

#if LOOKBACK_FMA_PEAK
namespace {

constexpr int kChains512 = 16, kChains256 = 12;

__attribute__((target("avx512f"))) float loop512(long iters) {
  __m512 acc[kChains512];
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
#pragma GCC unroll 16
  for (int i = 0; i < kChains512; ++i) acc[i] = _mm512_set1_ps(0.01f * float(i));
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains512; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 s = acc[0];
#pragma GCC unroll 16
  for (int i = 1; i < kChains512; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float loop256(long iters) {
  __m256 acc[kChains256];
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
#pragma GCC unroll 12
  for (int i = 0; i < kChains256; ++i) acc[i] = _mm256_set1_ps(0.01f * float(i));
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains256; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  }
  __m256 s = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < kChains256; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float t = 0;
  for (float x : lanes) t += x;
  return t;
}

volatile float g_sink;

double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Timing {
  double wall = 0, cpu_max = 0;  // wall seconds; the most CPU seconds any one thread took
};

// `threads` threads each running `iters` iterations, started together.
Timing timed(float (*loop)(long), long iters, int threads) {
  std::vector<double> cpu(threads, 0.0);
  auto body = [&](int t) {
    const double c0 = thread_cpu();
    g_sink = loop(iters);
    cpu[t] = thread_cpu() - c0;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
  Timing r;
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (double c : cpu) r.cpu_max = std::max(r.cpu_max, c);
  return r;
}

}  // namespace

FmaPeak fma_peak(const std::string& isa, int threads, int samples, double seconds) {
  FmaPeak r;
  r.isa = isa, r.threads = std::max(1, threads);
  float (*loop)(long) = nullptr;
  double flops_per_iter = 0;
  __builtin_cpu_init();
  if (isa == "avx512" && __builtin_cpu_supports("avx512f")) loop = loop512, flops_per_iter = kChains512 * 16 * 2;
  if (isa == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    loop = loop256, flops_per_iter = kChains256 * 8 * 2;
  if (!loop) return r;
  r.supported = true;
  long iters = 1 << 14;
  while (timed(loop, iters, 1).cpu_max < seconds / 4) iters *= 2;  // calibrate on one thread
  iters = long(double(iters) * 4);
  for (int s = 0; s < samples; ++s) {
    const Timing t = timed(loop, iters, r.threads);
    const double flops = flops_per_iter * double(iters) * r.threads;
    r.gflops = std::max(r.gflops, flops / t.wall * 1e-9);
    r.gflops_cpu = std::max(r.gflops_cpu, flops / t.cpu_max * 1e-9);
  }
  return r;
}

#else

FmaPeak fma_peak(const std::string& isa, int threads, int, double) {
  FmaPeak r;
  r.isa = isa, r.threads = threads;
  return r;
}

#endif

}  // namespace lookback::train
