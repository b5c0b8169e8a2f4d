// Embind bindings of resident weight matrices: a constant B ([K,N], or [N,K] used transposed) copied into the
// module once and packed for the GEMM (plus a [N,K] copy for the few-row matrix-vector path), then
// C = A·B per call with the input and output buffers reused: either staged (the JS API copies a Float32Array of
// the right size straight into the weight's staging buffer and reads C straight out of it) or checked (any other
// argument, copied in after its type and length are checked). Handle-based like the models (JS never sees a C++
// object); weightDispose frees one. Not here: the per-call gemm (core.cpp) or the JS wrapper (web/js/api).
#include <emscripten/bind.h>

#include <memory>

#include "args.hpp"
#include "handles.hpp"
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
  std::vector<float> a, c;    // reused input and output of the checked path
  std::vector<float> stage;   // the staged path's a [M,K] | c [M,N], grown only by weightStage
  double max_b = 0;           // the largest |b|, for the float32 bound of each call
};

Handles<Resident>& registry() {
  static Handles<Resident> all("this weight matrix was disposed (or never made)");
  return all;
}

Resident& resident(const char* fn, double handle) { return registry().at(fn, handle); }

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
    const int handle = registry().add(std::move(r));
    val out = val::object();
    out.set("handle", handle);
    out.set("K", K);
    out.set("N", N);
    return out;
  });
}

// a[M,K]'s values: finite, and every sum of products inside float32.
void check_a(const char* fn, const Resident& r, int M, const float* a) {
  const double ma = checked_values(fn, "a", a, std::size_t(M) * r.K, Values::finite);
  within_float32(fn, "a sum of products a·b", worst_sum(r.K, ma, r.max_b));
}

// c[M,N] = a[M,K] · B, a and c in the module.
void product(const Resident& r, int M, const float* a, float* c) {
  if (M <= kMatvecRows)
    matvec_split(a, M, r.K, r.rows.data(), r.N, c, false);
  else
    gemm_packed_split(M, r.N, r.K, a, r.K, r.packed.data(), c, r.N, false);
}

// C[M,N] = a[M,K] · B on any arguments (a and out checked for type and length, naming them in messages).
val weight_gemm_js(double handle, val a, double M_, val out) {
  return guarded([&] {
    const char* fn = "weight.gemm";
    Resident& r = resident(fn, handle);
    const int M = int_arg(fn, "M", M_, 1);
    r.a.resize(elements(fn, {M, r.K}));
    copy_floats(r.a.data(), fn, "a", a, r.a.size(), dims("M", M, "K", r.K));
    check_a(fn, r, M, r.a.data());
    r.c.resize(elements(fn, {M, r.N}));
    out_arg(fn, out, r.c.size(), dims("M", M, "N", r.N));
    product(r, M, r.a.data(), r.c.data());
    return to_js_into(out, r.c);
  });
}

// A Float32Array view of the weight's staging buffer, grown to hold a [M,K] then c [M,N] (a view: read before the
// next call that can grow the module's memory).
val weight_stage_js(double handle, double M_) {
  return guarded([&] {
    const char* fn = "weight.gemm";
    Resident& r = resident(fn, handle);
    const int M = int_arg(fn, "M", M_, 1);
    const std::size_t n = elements(fn, {M, r.K}) + elements(fn, {M, r.N});
    if (r.stage.size() < n) r.stage.resize(n);
    return val(emscripten::typed_memory_view(r.stage.size(), r.stage.data()));
  });
}

// C = a · B on the staged a (the JS API has checked that a is a Float32Array of M·K floats and copied it to the
// start of the staging buffer); C is written right after a.
val weight_gemm_staged_js(double handle, double M_) {
  return guarded([&] {
    const char* fn = "weight.gemm";
    Resident& r = resident(fn, handle);
    const int M = int_arg(fn, "M", M_, 1);
    const std::size_t na = elements(fn, {M, r.K}), nc = elements(fn, {M, r.N});
    if (r.stage.size() < na + nc)
      fail(fn, ": the staging buffer holds ", double(r.stage.size()), " floats; this call needs ", double(na + nc));
    check_a(fn, r, M, r.stage.data());
    product(r, M, r.stage.data(), r.stage.data() + na);
    return val::undefined();
  });
}

val weight_dispose_js(double handle) {
  return guarded([&] { return val(registry().erase(handle)); });
}

}  // namespace
}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_weight) {
  using namespace lookback::bind;
  emscripten::function("weightCreate", &weight_create_js);
  emscripten::function("weightGemm", &weight_gemm_js);
  emscripten::function("weightStage", &weight_stage_js);
  emscripten::function("weightGemmStaged", &weight_gemm_staged_js);
  emscripten::function("weightDispose", &weight_dispose_js);
}
