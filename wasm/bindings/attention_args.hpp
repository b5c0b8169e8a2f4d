// The arguments of an attention call from JS, validated once for every binding that takes them (attention in
// core.cpp, attentionRow in attention_row.cpp): the shape from the options object, then q, k, v and the mask.
// Only the bindings include this (it includes Embind). Not here: any computation.
#pragma once
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "lookback/kernels.hpp"

namespace lookback::bind {

// The scores scale·q·k of every head stay inside float32, and so do the kernel's intermediates: scale·k
// (attention scales the keys first) or q·k (scores scales the products after).
inline void scores_within_float32(const char* fn, double mq, double mk, int D, double scale, bool scaled_after) {
  if (scaled_after) within_float32(fn, "a product q·k", worst_score(D, mq, mk, 1));
  else within_float32(fn, "scale times k", worst_scaled_k(mk, scale));
  within_float32(fn, "a score (scale times q·k)", worst_score(D, mq, mk, scale));
}

struct AttentionArgs {
  AttentionShape shape;
  std::vector<float> q, k, v;    // q: [T,H,D], k and v: [S,Hkv,D]
  std::vector<std::uint8_t> mask;  // [T,S] or empty
};

// s: [T, S, heads, kvHeads, d, scale, temperature, causal (0 or 1)], checked.
inline AttentionShape attention_shape(const char* fn, const double* s) {
  AttentionShape a{};
  a.T = int_arg(fn, "T", s[0], 1);
  a.S = int_arg(fn, "S", s[1], 1);
  a.H = int_arg(fn, "heads", s[2], 1, 1024);
  a.Hkv = int_arg(fn, "kvHeads", s[3], 1, a.H);
  if (a.H % a.Hkv) fail(fn, ": kvHeads (", a.Hkv, ") must divide heads (", a.H, ")");
  a.D = int_arg(fn, "d", s[4], 1, 8192);
  a.scale = scale_arg(fn, s[5]);
  a.temperature = temperature_arg(fn, s[6]);
  within_float32(fn, "scale / temperature", std::fabs(double(a.scale)) / double(a.temperature));
  a.causal = s[7] != 0;
  if (a.causal && a.S < a.T) fail(fn, ": causal attention needs S >= T (got S=", a.S, ", T=", a.T, ")");
  return a;
}

// The same from a Float64Array of those eight numbers (the JS API builds it: one array read instead of a
// property read per option).
inline AttentionShape attention_shape(const char* fn, const val& shape) {
  double s[8];
  if (!shape.instanceof(val::global("Float64Array")) || shape["length"].as<std::size_t>() != 8)
    fail(fn, ": the shape must be a Float64Array [T, S, heads, kvHeads, d, scale, temperature, causal]");
  val(emscripten::typed_memory_view(8, s)).call<void>("set", shape);
  return attention_shape(fn, s);
}

// That q, k, v's largest magnitudes (mq, mk, mv) keep every score and every weighted sum of v inside float32.
inline void attention_within_float32(const char* fn, const AttentionShape& a, double mq, double mk, double mv) {
  scores_within_float32(fn, mq, mk, a.D, std::fabs(double(a.scale)) / double(a.temperature), false);
  within_float32(fn, "a sum of weights times v", worst_sum(a.S, 1, mv));
}

// The whole call: the shape, then q, k, v and the mask ([T,S] Uint8Array or null), checked in that order. Fills r,
// whose buffers may be kept between calls: they are resized, not made anew (no allocation or zero-filling when
// the sizes repeat).
inline void attention_args(AttentionArgs& r, const char* fn, const val& q, const val& k, const val& v, const val& shape,
                           const val& mask) {
  r.shape = attention_shape(fn, shape);
  const AttentionShape& a = r.shape;
  const double mq = floats_into(r.q, fn, "q", q, elements(fn, {a.T, a.H, a.D}), dims("T", a.T, "heads", a.H, "d", a.D));
  const double mk = floats_into(r.k, fn, "k", k, elements(fn, {a.S, a.Hkv, a.D}), dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
  const double mv = floats_into(r.v, fn, "v", v, elements(fn, {a.S, a.Hkv, a.D}), dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
  attention_within_float32(fn, a, mq, mk, mv);
  mask_into(r.mask, fn, mask, elements(fn, {a.T, a.S}), dims("T", a.T, "S", a.S));
}

}  // namespace lookback::bind
