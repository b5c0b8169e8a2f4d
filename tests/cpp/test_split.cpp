// Tests of the thread pool and the split kernels (lookback/threads.hpp, lookback/split.hpp): on two and three
// threads every split kernel gives the plain kernel's result bit for bit (attention with and without grouped
// heads, masks and weights; GEMM on columns around the tile width; the packed GEMM on rows; matrix-vector in
// all three formats), every part runs once, nested calls stay on their thread, and rows_split covers every row
// once. Natively threads start; in the one-thread WebAssembly module set_threads answers 1 and the same
// comparisons run on one thread.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "lookback/kernels.hpp"
#include "lookback/matvec.hpp"
#include "lookback/packed_gemm.hpp"
#include "lookback/split.hpp"
#include "lookback/threads.hpp"
#include "base/fp16.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::Rng;

namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Runs `f` with n threads in use, then goes back to one.
template <class F>
void with_threads(int n, F&& f) {
  const int got = set_threads(n);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  CHECK(got == 1);
#else
  CHECK(got == n);
#endif
  f();
  set_threads(1);
}

}  // namespace

TEST_CASE("threads: every part runs once, on the pool, and nested calls stay on their thread") {
  for (int n : {1, 2, 3}) {
    with_threads(n, [&] {
      for (int parts : {0, 1, 2, 3, 7, 64}) {
        std::vector<std::atomic<int>> ran(std::size_t(parts) * 4 + 1);
        parallel_parts(parts, [&](int p) {
          ran[std::size_t(p)].fetch_add(1);
          parallel_parts(4, [&](int q) { ran[std::size_t(parts) + std::size_t(p) * 3 + std::size_t(q)].fetch_add(0); });
        });
        for (int p = 0; p < parts; ++p) CHECK(ran[std::size_t(p)].load() == 1);
      }
      // many small jobs back to back (the workers spin between them)
      std::atomic<long> sum{0};
      for (int j = 0; j < 2000; ++j) parallel_parts(3, [&](int p) { sum.fetch_add(p + 1); });
      CHECK(sum.load() == 2000L * 6);
    });
  }
  CHECK(thread_count() == 1);
}

TEST_CASE("rows_split covers every row once, in a few ranges per thread, and keeps small calls whole") {
  for (int n : {1, 2, 3}) {
    with_threads(n, [&] {
      for (int rows : {0, 1, 2, 5, 10, 18, 128, 1001}) {
        for (double work : {1.0, 1e3, 1e6}) {
          std::vector<std::atomic<int>> hit(std::size_t(rows) + 1);
          std::atomic<int> calls{0};
          rows_split(rows, work, [&](int b, int e) {
            CHECK(0 <= b);
            CHECK(b < e);
            CHECK(e <= rows);
            calls.fetch_add(1);
            for (int r = b; r < e; ++r) hit[std::size_t(r)].fetch_add(1);
          });
          for (int r = 0; r < rows; ++r) CHECK(hit[std::size_t(r)].load() == 1);
          // under the split's minimum (rows x work small) or on one thread: one call on all rows
          if (rows * work < 32768 || thread_count() == 1) CHECK(calls.load() == (rows > 0 ? 1 : 0));
          else {
            // a few parts per thread, none under the minimum, more than one when the work allows two
            CHECK(calls.load() <= 4 * thread_count());
            CHECK(calls.load() <= std::max(1.0, rows * work / 32768));
            if (rows >= 2 && rows * work >= 2 * 32768) CHECK(calls.load() >= 2);
            // at least two parts per thread when allowed, and as even as the rows allow: the busiest thread
            // (taking every thread-th part) holds no more than with any other count allowed
            const int T = thread_count(), most = int(std::min(4.0 * T, std::min(double(rows), rows * work / 32768)));
            const int least = std::min(most, 2 * T);
            auto busiest = [&](int parts) { return (parts + T - 1) / T * ((rows + parts - 1) / parts); };
            CHECK(calls.load() >= least);
            for (int p = least; p <= most; ++p) CHECK(busiest(calls.load()) <= busiest(p));
          }
        }
      }
    });
  }
}

TEST_CASE("split parts share the blocks evenly: 18 rows on 2 threads in 6 parts of 3, not 8 of 2 or 3; 10 in 6") {
  with_threads(2, [&] {
    std::vector<int> sizes;
    std::mutex m;
    rows_split(18, 1e6, [&](int b, int e) {
      std::lock_guard<std::mutex> lock(m);
      sizes.push_back(e - b);
    });
    CHECK(sizes == (thread_count() == 2 ? std::vector<int>(6, 3) : std::vector<int>{18}));  // one-thread module: one
    sizes.clear();
    rows_split(10, 1e6, [&](int b, int e) {  // 2 parts of 5 would be even too, but one part per thread is too few
      std::lock_guard<std::mutex> lock(m);
      sizes.push_back(e - b);
    });
    std::sort(sizes.begin(), sizes.end());
    CHECK(sizes == (thread_count() == 2 ? std::vector<int>{1, 1, 2, 2, 2, 2} : std::vector<int>{10}));
  });
}

TEST_CASE("split attention equals attention bit for bit (heads, query ranges, grouped heads, masks, weights)") {
  Rng rng(11);
  struct Case {
    int T, S, H, Hkv, D;
    bool causal, mask, weights;
  };
  for (const Case c : {Case{64, 64, 6, 6, 64, true, false, false}, Case{33, 40, 8, 2, 16, true, true, true},
                       Case{17, 17, 4, 1, 8, false, false, true}, Case{128, 128, 6, 3, 32, true, false, true},
                       Case{5, 9, 3, 3, 5, false, true, false}, Case{200, 230, 2, 1, 16, true, false, false},
                       Case{75, 75, 1, 1, 32, true, false, false}, Case{90, 70, 2, 2, 24, false, true, true},
                       Case{70, 50, 2, 2, 16, true, false, false}, Case{66, 66, 2, 2, 16, true, false, false},
                       Case{34, 40, 1, 1, 8, true, false, false}}) {
    CAPTURE(c.T);
    CAPTURE(c.H);
    CAPTURE(c.Hkv);
    AttentionShape a;
    a.T = c.T, a.S = c.S, a.H = c.H, a.Hkv = c.Hkv, a.D = c.D, a.scale = 0.3f, a.causal = c.causal;
    const auto q = rng.vec(std::size_t(c.T) * c.H * c.D, -3, 3), k = rng.vec(std::size_t(c.S) * c.Hkv * c.D, -3, 3),
               v = rng.vec(std::size_t(c.S) * c.Hkv * c.D);
    std::vector<std::uint8_t> mask(std::size_t(c.T) * c.S);
    for (auto& m : mask) m = rng.next() % 4 != 0;
    const std::uint8_t* mk = c.mask ? mask.data() : nullptr;
    std::vector<float> out1(q.size()), w1(c.weights ? std::size_t(c.H) * c.T * c.S : 0);
    const int e1 = attention(q.data(), k.data(), v.data(), out1.data(), c.weights ? w1.data() : nullptr, a, mk);
    for (int n : {2, 3}) {
      with_threads(n, [&] {
        std::vector<float> out2(q.size(), 7.0f), w2(w1.size(), 7.0f);
        const int e2 = attention_split(q.data(), k.data(), v.data(), out2.data(), c.weights ? w2.data() : nullptr, a, mk);
        CHECK(e1 == e2);
        CHECK(same_bits(out1, out2));
        CHECK(same_bits(w1, w2));
      });
    }
  }
}

TEST_CASE("split GEMMs equal the plain ones bit for bit") {
  Rng rng(12);
  // M: below the packed GEMM's column split (by rows), at and above it, and above one packed A block (256 rows)
  for (int M : {1, 9, 63, 64, 130, 300})
    for (int N : {3, 16, 37, 300, 1152})
      for (int K : {5, 64, 384, 801}) {  // 801: two K blocks of the packed B, the second one shorter
        CAPTURE(M);
        CAPTURE(N);
        CAPTURE(K);
        const auto A = rng.vec(std::size_t(M) * K), B = rng.vec(std::size_t(K) * N), C0 = rng.vec(std::size_t(M) * N);
        std::vector<float> nn1 = C0, nt1 = C0, pk1 = C0;
        gemm_nn(M, N, K, A.data(), K, B.data(), N, nn1.data(), N, true);
        gemm_nt(M, N, K, A.data(), K, B.data(), K, nt1.data(), N, false);
        std::vector<float> packed(packed_b_floats(K, N));
        pack_b_matrix(true, K, N, B.data(), K, packed.data());
        gemm_packed(M, N, K, A.data(), K, packed.data(), pk1.data(), N, true);
        with_threads(2, [&] {
          std::vector<float> nn2 = C0, nt2 = C0, pk2 = C0;
          gemm_nn_split(M, N, K, A.data(), K, B.data(), N, nn2.data(), N, true);
          gemm_nt_split(M, N, K, A.data(), K, B.data(), K, nt2.data(), N, false);
          gemm_packed_split(M, N, K, A.data(), K, packed.data(), pk2.data(), N, true);
          CHECK(same_bits(nn1, nn2));
          CHECK(same_bits(nt1, nt2));
          CHECK(same_bits(pk1, pk2));
        });
      }
}

TEST_CASE("split matrix-vector products equal the plain ones bit for bit in every format") {
  Rng rng(13);
  for (int M : {1, 3, 8})
    for (int N : {1, 5, 64, 67, 576})
      for (int K : {31, 64, 192}) {
        CAPTURE(M);
        CAPTURE(N);
        CAPTURE(K);
        const auto W = rng.vec(std::size_t(N) * K), x = rng.vec(std::size_t(M) * K), y0 = rng.vec(std::size_t(M) * N);
        std::vector<std::uint16_t> h(W.size());
        for (std::size_t i = 0; i < W.size(); ++i) h[i] = float_to_half(W[i]);
        std::vector<std::int8_t> q(q8_bytes(N, K));
        quantize_q8(W.data(), N, K, q.data());
        std::vector<std::uint8_t> q4(q4_bytes(N, K));
        quantize_q4(W.data(), N, K, q4.data());
        std::vector<float> f1 = y0, h1 = y0, q1 = y0, s1 = y0, p1 = y0;
        matvec(x.data(), M, K, W.data(), N, f1.data(), true);
        matvec(x.data(), M, K, W.data(), N, s1.data(), true, 0, 0, true);
        matvec_f16(x.data(), M, K, h.data(), N, h1.data(), false);
        matvec_q8(x.data(), M, K, q.data(), N, q1.data(), true);
        matvec_q4(x.data(), M, K, q4.data(), N, p1.data(), true);
        with_threads(2, [&] {
          std::vector<float> f2 = y0, h2 = y0, q2 = y0, s2 = y0, p2 = y0;
          matvec_split(x.data(), M, K, W.data(), N, f2.data(), true);
          matvec_split(x.data(), M, K, W.data(), N, s2.data(), true, 0, 0, true);
          matvec_f16_split(x.data(), M, K, h.data(), N, h2.data(), false);
          matvec_q8_split(x.data(), M, K, q.data(), N, q2.data(), true);
          matvec_q4_split(x.data(), M, K, q4.data(), N, p2.data(), true);
          CHECK(same_bits(f1, f2));
          CHECK(same_bits(s1, s2));
          CHECK(same_bits(h1, h2));
          CHECK(same_bits(q1, q2));
          CHECK(same_bits(p1, p2));
        });
      }
}
