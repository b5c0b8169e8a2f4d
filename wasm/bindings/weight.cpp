// Embind bindings of resident weight matrices: a constant B ([K,N], or [N,K] used transposed) copied into the
// module once and packed for the GEMM (plus a [N,K] copy for the few-row matrix-vector path), then
// C = A·B per call with the input and output buffers reused. Handle-based like the models (JS never sees a
// C++ object); weightDispose frees one. Not here: the per-call gemm (core.cpp) or the JS wrapper (web/js/api).
#include <emscripten/bind.h>

#include <map>
#include <memory>

#include "args.hpp"
#include "lookback/matvec.hpp"
#include "lookback/split.hpp"
#include "lookback/packed_gemm.hpp"

namespace lookback::bind {
namespace {

constexpr int kMatvecRows = 4;  // up to this many rows of A read B through the matrix-vector kernel

struct Resident {
  int K = 0, N = 0;
  std::vector<float> packed;  // B packed for gemm_packed
  std::vector<float> rows;    // B as [N, K] for matvec
  std::vector<float> a, c;    // reused input and output
  double max_b = 0;           // the largest |b|, for the float32 bound of each call
};

std::map<int, std::unique_ptr<Resident>>& registry() {
  static std::map<int, std::unique_ptr<Resident>> all;
  return all;
}

Resident& resident(const char* fn, double handle) {
  const auto it = registry().find(int(handle));
  if (!std::isfinite(handle) || handle != std::floor(handle) || it == registry().end())
    fail(fn, ": this weight matrix was disposed (or never made)");
  return *it->second;
}

// b: [K,N] (transB: [N,K]); returns { handle, K, N }.
val weight_create_js(val b, double K_, double N_, bool transB) {
  return guarded([&] {
    const char* fn = "weight";
    const int K = int_arg(fn, "K", K_, 1), N = int_arg(fn, "N", N_, 1);
    auto r = std::make_unique<Resident>();
    r->K = K, r->N = N;
    const std::size_t n = elements(fn, {K, N});
    std::vector<float> bv;
    r->max_b = floats_into(bv, fn, "b", b, n, transB ? dims("N", N, "K", K) : dims("K", K, "N", N));
    r->packed.resize(packed_b_floats(K, N));
    pack_b_matrix(transB, K, N, bv.data(), transB ? K : N, r->packed.data());
    if (transB) {
      r->rows = std::move(bv);
    } else {
      r->rows.resize(n);
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) r->rows[std::size_t(j) * K + k] = bv[std::size_t(k) * N + j];
    }
    static int next = 1;
    const int handle = next++;
    registry()[handle] = std::move(r);
    val out = val::object();
    out.set("handle", handle);
    out.set("K", K);
    out.set("N", N);
    return out;
  });
}

// C[M,N] = a[M,K] · B.
val weight_gemm_js(double handle, val a, double M_, val out) {
  return guarded([&] {
    const char* fn = "weight.gemm";
    Resident& r = resident(fn, handle);
    const int M = int_arg(fn, "M", M_, 1);
    const double ma = floats_into(r.a, fn, "a", a, elements(fn, {M, r.K}), dims("M", M, "K", r.K));
    within_float32(fn, "a sum of products a·b", worst_sum(r.K, ma, r.max_b));
    r.c.resize(elements(fn, {M, r.N}));
    out_arg(fn, out, r.c.size(), dims("M", M, "N", r.N));
    if (M <= kMatvecRows)
      matvec_split(r.a.data(), M, r.K, r.rows.data(), r.N, r.c.data(), false);
    else
      gemm_packed_split(M, r.N, r.K, r.a.data(), r.K, r.packed.data(), r.c.data(), r.N, false);
    return to_js_into(out, r.c);
  });
}

val weight_dispose_js(double handle) {
  return guarded([&] { return val(registry().erase(int(handle)) > 0); });
}

}  // namespace
}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_weight) {
  using namespace lookback::bind;
  emscripten::function("weightCreate", &weight_create_js);
  emscripten::function("weightGemm", &weight_gemm_js);
  emscripten::function("weightDispose", &weight_dispose_js);
}
