// The arguments of an attention call from JS, validated once for every binding that takes them (attention in
// core.cpp, attentionRow in attention_row.cpp): the shape from the options object, then q, k, v and the mask.
// Only the bindings include this (it includes Embind). Not here: any computation.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "lookback/kernels.hpp"

namespace lookback::bind {

inline std::string dims(const char* a, int x, const char* b, int y, const char* c = nullptr, int z = 0) {
  std::ostringstream s;
  s << a << "*" << b << (c ? "*" : "") << (c ? c : "") << " (" << x << "*" << y;
  if (c) s << "*" << z;
  s << ")";
  return s.str();
}

struct AttentionArgs {
  AttentionShape shape;
  std::vector<float> q, k, v;    // q: [T,H,D], k and v: [S,Hkv,D]
  std::vector<std::uint8_t> mask;  // [T,S] or empty
};

// opts: { T, S, heads, kvHeads, d, scale, temperature, causal, mask } (the JS API fills every one).
inline AttentionArgs attention_args(const char* fn, const val& q, const val& k, const val& v, const val& opts) {
  AttentionArgs r;
  AttentionShape& a = r.shape;
  a.T = int_arg(fn, "T", opts["T"].as<double>(), 1);
  a.S = int_arg(fn, "S", opts["S"].as<double>(), 1);
  a.H = int_arg(fn, "heads", opts["heads"].as<double>(), 1, 1024);
  a.Hkv = int_arg(fn, "kvHeads", opts["kvHeads"].as<double>(), 1, a.H);
  if (a.H % a.Hkv) fail(fn, ": kvHeads (", a.Hkv, ") must divide heads (", a.H, ")");
  a.D = int_arg(fn, "d", opts["d"].as<double>(), 1, 8192);
  a.scale = num_arg(fn, "scale", opts["scale"].as<double>());
  a.temperature = num_arg(fn, "temperature", opts["temperature"].as<double>(), true);
  a.causal = opts["causal"].as<bool>();
  if (a.causal && a.S < a.T) fail(fn, ": causal attention needs S >= T (got S=", a.S, ", T=", a.T, ")");
  r.q = floats(fn, "q", q, elements(fn, {a.T, a.H, a.D}), dims("T", a.T, "heads", a.H, "d", a.D));
  r.k = floats(fn, "k", k, elements(fn, {a.S, a.Hkv, a.D}), dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
  r.v = floats(fn, "v", v, elements(fn, {a.S, a.Hkv, a.D}), dims("S", a.S, "kvHeads", a.Hkv, "d", a.D));
  r.mask = mask_arg(fn, opts["mask"], elements(fn, {a.T, a.S}), dims("T", a.T, "S", a.S));
  return r;
}

}  // namespace lookback::bind
