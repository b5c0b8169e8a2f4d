// Embind bindings of the attention core: scores, masks, softmax, blend, attention, gemm, dot.
// Each validates its arguments and copies results out; none computes anything itself.
// Not here: the model (model.cpp in this folder) or any JS-side convenience (web/js/api).
#include <emscripten/bind.h>

#include "args.hpp"
#include "attention_args.hpp"
#include "base/aligned.hpp"
#include "lookback/kernels.hpp"
#include "lookback/split.hpp"
#include "lookback/threads.hpp"

namespace lookback::bind {
namespace {

val scores_js(val q, val k, double T_, double S_, double H_, double D_, double scale_) {
  return guarded([&] {
    const char* fn = "scores";
    const int T = int_arg(fn, "T", T_, 1), S = int_arg(fn, "S", S_, 1), H = int_arg(fn, "heads", H_, 1, 1024),
              D = int_arg(fn, "d", D_, 1, 8192);
    const float scale = scale_arg(fn, scale_);
    std::vector<float> qv, kv;
    const double mq = floats_into(qv, fn, "q", q, elements(fn, {T, H, D}), dims("T", T, "heads", H, "d", D));
    const double mk = floats_into(kv, fn, "k", k, elements(fn, {S, H, D}), dims("S", S, "heads", H, "d", D));
    scores_within_float32(fn, mq, mk, D, std::fabs(scale), true);
    std::vector<float> out(elements(fn, {H, T, S}));
    lookback::scores(qv.data(), kv.data(), out.data(), T, S, H, D, scale);
    return to_js(out);
  });
}

val causal_mask_js(double T_, double S_) {
  return guarded([&] {
    const int T = int_arg("causalMask", "T", T_, 1), S = int_arg("causalMask", "S", S_, T);
    std::vector<std::uint8_t> m(elements("causalMask", {T, S}));
    lookback::causal_mask(m.data(), T, S);
    return to_js(m);
  });
}

val padding_mask_js(double T_, double S_, double valid_) {
  return guarded([&] {
    const int T = int_arg("paddingMask", "T", T_, 1), S = int_arg("paddingMask", "S", S_, 1);
    const int valid = int_arg("paddingMask", "valid", valid_, 0, S);
    std::vector<std::uint8_t> m(elements("paddingMask", {T, S}));
    lookback::padding_mask(m.data(), T, S, valid);
    return to_js(m);
  });
}

val softmax_js(val x, double R_, double C_, double temperature_, val mask) {
  return guarded([&] {
    const char* fn = "softmax";
    const int R = int_arg(fn, "rows", R_, 1, 1 << 26), C = int_arg(fn, "cols", C_, 1, 1 << 26);
    const float temperature = temperature_arg(fn, temperature_);
    const std::size_t n = elements(fn, {R, C});
    auto v = floats(fn, "x", x, n, dims("rows", R, "cols", C), Values::finite_or_minus_inf);
    auto m = mask_arg(fn, mask, n, dims("rows", R, "cols", C));
    if (!m.empty()) lookback::apply_mask(v.data(), m.data(), R, C);
    const int empty = lookback::softmax_rows(v.data(), R, C, temperature);
    val r = val::object();
    r.set("weights", to_js(v));
    r.set("emptyRows", empty);
    return r;
  });
}

val blend_js(val w, val v, double T_, double S_, double H_, double D_) {
  return guarded([&] {
    const char* fn = "blend";
    const int T = int_arg(fn, "T", T_, 1), S = int_arg(fn, "S", S_, 1), H = int_arg(fn, "heads", H_, 1, 1024),
              D = int_arg(fn, "d", D_, 1, 8192);
    std::vector<float> wv, vv;
    const double mw = floats_into(wv, fn, "weights", w, elements(fn, {H, T, S}), dims("heads", H, "T", T, "S", S));
    const double mv = floats_into(vv, fn, "v", v, elements(fn, {S, H, D}), dims("S", S, "heads", H, "d", D));
    within_float32(fn, "a sum of weights times v", worst_sum(S, mw, mv));
    std::vector<float> out(elements(fn, {T, H, D}));
    lookback::blend(wv.data(), vv.data(), out.data(), T, S, H, D);
    return to_js(out);
  });
}

// The staging buffer of attention's fast path, kept between calls (the module runs one call at a time). Layout:
// q [T,H,D] | k [S,Hkv,D] | v [S,Hkv,D] | output [T,H,D] | weights [H,T,S] (when asked for). The JS API's fast path
// copies Float32Arrays of the right sizes straight into it and reads the results straight out of it (no JS objects
// made in C++ per call), through a view it keeps: so only attentionStage, which hands out the new view, ever
// resizes it. The checked path (any other call) copies each array, after checking its type and length, into a
// buffer of its own of the same layout, which no JS view sees: a call refused half way, or one of a new size, can
// leave no stale view behind. Both start on a cache line, as does each part in the usual shapes, so threads
// writing the output of neighbouring heads never share a line.
lookback::AlignedVector<float>& attention_stage() {
  static lookback::AlignedVector<float> stage;
  return stage;
}
lookback::AlignedVector<float>& attention_checked_stage() {
  static lookback::AlignedVector<float> stage;
  return stage;
}

// The floats of one attention call in a staging buffer, for shape a.
struct Staged {
  std::size_t nq, nk, nw;
  float *q, *k, *v, *o, *w;
  Staged(const char* fn, const AttentionShape& a, bool want, lookback::AlignedVector<float>& stage)
      : nq(elements(fn, {a.T, a.H, a.D})), nk(elements(fn, {a.S, a.Hkv, a.D})),
        nw(want ? elements(fn, {a.H, a.T, a.S}) : 0) {
    q = stage.data(), k = q + nq, v = k + nk, o = v + nk, w = want ? o + nq : nullptr;
  }
  std::size_t size() const { return 2 * nq + 2 * nk + nw; }
};

// The staged values' checks (finite, every score and sum inside float32) and the mask's, in that order; the mask
// into m.
void check_staged(const char* fn, const AttentionShape& a, const Staged& x, const val& mask, std::vector<std::uint8_t>& m) {
  const double mq = checked_values(fn, "q", x.q, x.nq, Values::finite);
  const double mk = checked_values(fn, "k", x.k, x.nk, Values::finite);
  const double mv = checked_values(fn, "v", x.v, x.nk, Values::finite);
  attention_within_float32(fn, a, mq, mk, mv);
  mask_into(m, fn, mask, elements(fn, {a.T, a.S}), dims("T", a.T, "S", a.S));
}

// Calls under this many multiply-adds (q·k and weights·v over every pair) run on the calling thread: it has just
// copied the inputs in, and another core would first have to fetch its share. Measured here, the threaded module
// against the one-thread module through the API, H=6 D=64 causal: T=64 (3.1M) 0.85x split, T=80 (4.9M) 1.13x.
constexpr double kMinSplitWork = 4e6;

int attention_on_stage(const AttentionShape& a, const Staged& x, const std::vector<std::uint8_t>& m) {
  const std::uint8_t* mask = m.empty() ? nullptr : m.data();
  if (2.0 * a.H * a.T * a.S * a.D < kMinSplitWork) return lookback::attention(x.q, x.k, x.v, x.o, x.w, a, mask);
  return lookback::attention_split(x.q, x.k, x.v, x.o, x.w, a, mask);
}

// A Float32Array view of the staging buffer, grown to at least n floats (a view: it is read before the next call
// that can grow the module's memory).
val attention_stage_js(double n) {
  return guarded([&] {
    const double most = 5.0 * double(kMaxElements);
    if (!(n >= 0 && n <= most && n == std::floor(n))) fail("attention: a staging buffer of ", n, " floats");
    lookback::AlignedVector<float>& stage = attention_stage();
    if (stage.size() < std::size_t(n)) stage.resize(std::size_t(n));
    return val(emscripten::typed_memory_view(stage.size(), stage.data()));
  });
}

// The staged call's shape, [T, S, heads, kvHeads, d, scale, temperature, causal], written by the JS API into
// this array of the module's memory (reading a Float64Array argument through Embind cost more than the rest of
// a small call's checks).
double* attention_shape_stage() {
  static double shape[8];
  return shape;
}

val attention_shape_stage_js() { return val(emscripten::typed_memory_view(8, attention_shape_stage())); }

// Attention on the staged shape, q, k and v (the JS API has checked that they are Float32Arrays of the right
// lengths). Returns the rows with no visible key.
val attention_staged_js(val mask, bool want) {
  return guarded([&] {
    const char* fn = "attention";
    static std::vector<std::uint8_t> m;
    const AttentionShape a = attention_shape(fn, attention_shape_stage());
    const Staged x(fn, a, want, attention_stage());
    if (attention_stage().size() < x.size())
      fail(fn, ": the staging buffer holds ", double(attention_stage().size()), " floats; this call needs ", double(x.size()));
    check_staged(fn, a, x, mask, m);
    return val(attention_on_stage(a, x, m));
  });
}

// Attention on any arguments: the shape, then q, k and v (each a Float32Array of its size, copied into the
// staging buffer), the values and the mask, then `out`, each checked before the next; the same checks and
// messages as the fast path. Returns { output, weights, emptyRows }.
val attention_js(val q, val k, val v, val shape, val mask, bool want, val out_arr) {
  return guarded([&] {
    const char* fn = "attention";
    static std::vector<std::uint8_t> m;
    const AttentionShape a = attention_shape(fn, shape);
    lookback::AlignedVector<float>& stage = attention_checked_stage();
    if (const Staged need(fn, a, want, stage); stage.size() < need.size()) stage.resize(need.size());
    const Staged x(fn, a, want, stage);  // pointers into the buffer as it is now
    copy_floats(x.q, fn, "q", q, x.nq, dims("T", a.T, "heads", a.H, "d", a.D));
    copy_floats(x.k, fn, "k", k, x.nk, dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
    copy_floats(x.v, fn, "v", v, x.nk, dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
    check_staged(fn, a, x, mask, m);
    out_arg(fn, out_arr, x.nq, dims("T", a.T, "heads", a.H, "d", a.D));
    const int empty = attention_on_stage(a, x, m);
    val r = val::object();
    r.set("output", to_js_into(out_arr, x.o, x.nq));
    r.set("weights", want ? to_js(x.w, x.nw) : val::null());
    r.set("emptyRows", empty);
    return r;
  });
}

// gemm's a, b and c, kept between calls up to kGemmKeep floats (a bigger call frees its buffer when it ends): a
// call at the usual shapes then neither allocates nor clears megabytes of floats, work that would stay on one
// thread while the product itself is split.
constexpr std::size_t kGemmKeep = std::size_t(1) << 23;  // 32 MB
lookback::AlignedVector<float>& gemm_stage() {
  static lookback::AlignedVector<float> stage;
  return stage;
}
struct ReleaseBigStage {
  ~ReleaseBigStage() {
    if (gemm_stage().size() > kGemmKeep) lookback::AlignedVector<float>().swap(gemm_stage());
  }
};

val gemm_js(val a, val b, double M_, double N_, double K_, bool transB, val out) {
  return guarded([&] {
    const char* fn = "gemm";
    const int M = int_arg(fn, "M", M_, 1), N = int_arg(fn, "N", N_, 1), K = int_arg(fn, "K", K_, 1);
    const std::size_t na = elements(fn, {M, K}), nb = elements(fn, {K, N}), nc = elements(fn, {M, N});
    const ReleaseBigStage release;  // after the result is copied out, also on an error
    lookback::AlignedVector<float>& stage = gemm_stage();
    if (stage.size() < na + nb + nc) stage.resize(na + nb + nc);
    float *av = stage.data(), *bv = av + na, *c = bv + nb;
    const double ma = floats_into(av, fn, "a", a, na, dims("M", M, "K", K));
    const double mb = transB ? floats_into(bv, fn, "b", b, nb, dims("N", N, "K", K))
                             : floats_into(bv, fn, "b", b, nb, dims("K", K, "N", N));
    within_float32(fn, "a sum of products a·b", worst_sum(K, ma, mb));
    out_arg(fn, out, nc, dims("M", M, "N", N));
    (transB ? lookback::gemm_nt_split : lookback::gemm_nn_split)(M, N, K, av, K, bv, transB ? K : N, c, N, false);
    return to_js_into(out, c, nc);
  });
}

val dot_js(val a, val b) {
  return guarded([&] {
    if (!a.instanceof(val::global("Float32Array"))) fail("dot: a must be a Float32Array");
    const std::size_t n = a["length"].as<std::size_t>();
    if (n > kMaxElements) fail("dot: a is longer than ", kMaxElements, " floats");
    std::vector<float> av, bv;
    const double ma = floats_into(av, "dot", "a", a, n, "a.length"), mb = floats_into(bv, "dot", "b", b, n, "a.length");
    within_float32("dot", "the sum of products a·b", worst_sum(double(n), ma, mb));
    return val(lookback::dot(av.data(), bv.data(), int(n)));
  });
}

// Threads the split kernels use (1 in the one-thread module); answers the count now in use.
val set_threads_js(double n) {
  return guarded([&] { return val(lookback::set_threads(int_arg("setThreads", "n", n, 1, 64))); });
}

}  // namespace
}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_core) {
  using namespace lookback::bind;
  emscripten::function("simdWidth", +[] { return int(lookback::simd_width()); });
  emscripten::function("setThreads", &set_threads_js);
  emscripten::function("threadCount", +[] { return lookback::thread_count(); });
  emscripten::function("scores", &scores_js);
  emscripten::function("causalMask", &causal_mask_js);
  emscripten::function("paddingMask", &padding_mask_js);
  emscripten::function("softmax", &softmax_js);
  emscripten::function("blend", &blend_js);
  emscripten::function("attention", &attention_js);
  emscripten::constant("maxElements", double(kMaxElements));  // the most elements of one tensor argument
  emscripten::function("attentionStage", &attention_stage_js);
  emscripten::function("attentionShapeStage", &attention_shape_stage_js);
  emscripten::function("attentionStaged", &attention_staged_js);
  emscripten::function("gemm", &gemm_js);
  emscripten::function("dot", &dot_js);
}
