// Embind binding of attention_row_ref: one (head, query) row of the scalar reference attention with its
// scores, maximum, exponentials, sum, weights and output, for the chapter's code walk. Validates and copies
// out; computes nothing itself. Not the fast attention (core.cpp binds that).
#include <emscripten/bind.h>

#include "args.hpp"
#include "attention_args.hpp"
#include "lookback/attention_row.hpp"

namespace lookback::bind {
namespace {

val doubles(const std::vector<double>& x) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(x.size(), x.data()));
}

// shape and mask: as attention's; head and query pick the row.
val attention_row_js(val q, val k, val v, val shape, val mask, double head, double query) {
  return guarded([&] {
    const char* fn = "attentionRow";
    AttentionArgs x;
    attention_args(x, fn, q, k, v, shape, mask);
    const int h = int_arg(fn, "head", head, 0, x.shape.H - 1);
    const int t = int_arg(fn, "query", query, 0, x.shape.T - 1);
    AttentionRow row;
    const bool sees = attention_row_ref(x.q.data(), x.k.data(), x.v.data(), x.shape,
                                        x.mask.empty() ? nullptr : x.mask.data(), h, t, row);
    val r = val::object();
    r.set("score", doubles(row.score));
    r.set("max", row.max);
    r.set("e", doubles(row.e));
    r.set("sum", row.sum);
    r.set("weight", doubles(row.weight));
    r.set("out", doubles(row.out));
    r.set("sees", sees);
    return r;
  });
}

}  // namespace
}  // namespace lookback::bind

EMSCRIPTEN_BINDINGS(lookback_attention_row) {
  emscripten::function("attentionRow", &lookback::bind::attention_row_js);
}
