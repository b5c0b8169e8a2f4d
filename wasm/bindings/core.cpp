// Embind bindings of the attention core: scores, masks, softmax, blend, attention, gemm, dot.
// Each validates its arguments and copies results out; none computes anything itself.
// Not here: the model (model.cpp in this folder) or any JS-side convenience (web/js/api).
#include <emscripten/bind.h>

#include "args.hpp"
#include "attention_args.hpp"
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

val attention_js(val q, val k, val v, val shape, val mask, bool want, val out_arr) {
  return guarded([&] {
    const char* fn = "attention";
    // the call's buffers, kept for the next call (the module runs one call at a time)
    static AttentionArgs x;
    static std::vector<float> out, w;
    attention_args(x, fn, q, k, v, shape, mask);
    const AttentionShape& a = x.shape;
    out.resize(elements(fn, {a.T, a.H, a.D}));
    out_arg(fn, out_arr, out.size(), dims("T", a.T, "heads", a.H, "d", a.D));
    w.resize(want ? elements(fn, {a.H, a.T, a.S}) : 0);
    const int empty = lookback::attention_split(x.q.data(), x.k.data(), x.v.data(), out.data(), want ? w.data() : nullptr,
                                          a, x.mask.empty() ? nullptr : x.mask.data());
    val r = val::object();
    r.set("output", to_js_into(out_arr, out));
    r.set("weights", want ? to_js(w) : val::null());
    r.set("emptyRows", empty);
    return r;
  });
}

// The fast path of attention: the JS API copies q, k and v (Float32Arrays of the sizes the shape asks for) straight
// into this staging buffer and reads the output and weights straight out of it, so a call makes no JS objects in
// C++. Layout: q [T,H,D] | k [S,Hkv,D] | v [S,Hkv,D] | output [T,H,D] | weights [H,T,S] (when asked for). Every
// other call, and every malformed one, takes attention_js, whose messages the checks here repeat word for word.
std::vector<float>& attention_stage() {
  static std::vector<float> stage;
  return stage;
}

// A Float32Array view of the staging buffer, grown to at least n floats (a view: it is read before the next call
// that can grow the module's memory).
val attention_stage_js(double n) {
  return guarded([&] {
    const double most = 5.0 * double(kMaxElements);
    if (!(n >= 0 && n <= most && n == std::floor(n))) fail("attention: a staging buffer of ", n, " floats");
    std::vector<float>& stage = attention_stage();
    if (stage.size() < std::size_t(n)) stage.resize(std::size_t(n));
    return val(emscripten::typed_memory_view(stage.size(), stage.data()));
  });
}

// Attention on the staged q, k, v: the same checks in the same order as attention_js (the JS API has checked
// that they are Float32Arrays of the right lengths), then the kernel. Returns the rows with no visible key.
val attention_staged_js(val shape, val mask, bool want) {
  return guarded([&] {
    const char* fn = "attention";
    const AttentionShape a = attention_shape(fn, shape);
    const std::size_t nq = elements(fn, {a.T, a.H, a.D}), nk = elements(fn, {a.S, a.Hkv, a.D});
    const std::size_t nw = want ? elements(fn, {a.H, a.T, a.S}) : 0;
    std::vector<float>& stage = attention_stage();
    if (stage.size() < 2 * nq + 2 * nk + nw)
      fail(fn, ": the staging buffer holds ", double(stage.size()), " floats; this call needs ", double(2 * nq + 2 * nk + nw));
    float* q = stage.data();
    float* k = q + nq;
    float* v = k + nk;
    float* o = v + nk;
    const double mq = checked_values(fn, "q", q, nq, Values::finite);
    const double mk = checked_values(fn, "k", k, nk, Values::finite);
    const double mv = checked_values(fn, "v", v, nk, Values::finite);
    attention_within_float32(fn, a, mq, mk, mv);
    const std::vector<std::uint8_t> m = mask_arg(fn, mask, elements(fn, {a.T, a.S}), dims("T", a.T, "S", a.S));
    return val(lookback::attention_split(q, k, v, o, want ? o + nq : nullptr, a, m.empty() ? nullptr : m.data()));
  });
}

val gemm_js(val a, val b, double M_, double N_, double K_, bool transB, val out) {
  return guarded([&] {
    const char* fn = "gemm";
    const int M = int_arg(fn, "M", M_, 1), N = int_arg(fn, "N", N_, 1), K = int_arg(fn, "K", K_, 1);
    std::vector<float> av, bv;
    const double ma = floats_into(av, fn, "a", a, elements(fn, {M, K}), dims("M", M, "K", K));
    const double mb = transB ? floats_into(bv, fn, "b", b, elements(fn, {N, K}), dims("N", N, "K", K))
                             : floats_into(bv, fn, "b", b, elements(fn, {K, N}), dims("K", K, "N", N));
    within_float32(fn, "a sum of products a·b", worst_sum(K, ma, mb));
    std::vector<float> c(elements(fn, {M, N}));
    out_arg(fn, out, c.size(), dims("M", M, "N", N));
    (transB ? lookback::gemm_nt_split : lookback::gemm_nn_split)(M, N, K, av.data(), K, bv.data(), transB ? K : N, c.data(), N,
                                                    false);
    return to_js_into(out, c);
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
  emscripten::function("attentionStaged", &attention_staged_js);
  emscripten::function("gemm", &gemm_js);
  emscripten::function("dot", &dot_js);
}
