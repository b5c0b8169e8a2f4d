// A GGUF writer for tests (version 3 by default): metadata of a few types, tensors of raw bytes, the alignment
// padding, and a llama model's file from Weights and an SpTokenizer-style vocabulary with each tensor encoded in
// a chosen ggml type. Not a converter for users: lookback reads GGUF, it does not write it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/fp16.hpp"
#include "model/gguf_model.hpp"
#include "model/weights.hpp"

namespace lookback::testing {

struct GgufWriter {
  std::uint32_t version = 3;
  std::uint32_t alignment = 32;
  std::vector<std::uint8_t> kv;
  std::uint64_t n_kv = 0;
  struct T {
    std::string name;
    std::vector<std::uint64_t> dims;
    std::uint32_t type;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<T> tensors;

  template <class V>
  static void put(std::vector<std::uint8_t>& o, V v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    o.insert(o.end(), p, p + sizeof v);
  }
  static void put_string(std::vector<std::uint8_t>& o, const std::string& s) {
    put<std::uint64_t>(o, s.size());
    o.insert(o.end(), s.begin(), s.end());
  }
  void key(const std::string& k, std::uint32_t type) {
    put_string(kv, k);
    put<std::uint32_t>(kv, type);
    ++n_kv;
  }
  void u32(const std::string& k, std::uint32_t v) { key(k, 4), put(kv, v); }
  void f32(const std::string& k, float v) { key(k, 6), put(kv, v); }
  void str(const std::string& k, const std::string& v) { key(k, 8), put_string(kv, v); }
  void strings(const std::string& k, const std::vector<std::string>& v) {
    key(k, 9), put<std::uint32_t>(kv, 8), put<std::uint64_t>(kv, v.size());
    for (const std::string& s : v) put_string(kv, s);
  }
  void floats(const std::string& k, const std::vector<float>& v) {
    key(k, 9), put<std::uint32_t>(kv, 6), put<std::uint64_t>(kv, v.size());
    for (float x : v) put(kv, x);
  }
  void ints(const std::string& k, const std::vector<std::int32_t>& v) {
    key(k, 9), put<std::uint32_t>(kv, 5), put<std::uint64_t>(kv, v.size());
    for (std::int32_t x : v) put(kv, x);
  }
  void tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type, std::vector<std::uint8_t> bytes) {
    tensors.push_back({name, std::move(dims), type, std::move(bytes)});
  }

  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> o{'G', 'G', 'U', 'F'};
    put(o, version);
    put<std::uint64_t>(o, tensors.size());
    put<std::uint64_t>(o, n_kv);
    o.insert(o.end(), kv.begin(), kv.end());
    std::uint64_t offset = 0;
    for (const T& t : tensors) {
      put_string(o, t.name);
      put<std::uint32_t>(o, std::uint32_t(t.dims.size()));
      for (auto d : t.dims) put(o, d);
      put(o, t.type);
      put(o, offset);
      offset = (offset + t.bytes.size() + alignment - 1) / alignment * alignment;
    }
    while (o.size() % alignment) o.push_back(0);
    for (const T& t : tensors) {
      o.insert(o.end(), t.bytes.begin(), t.bytes.end());
      while (o.size() % alignment) o.push_back(0);
    }
    return o;
  }
};

// x encoded as ggml type `type` (F32, F16, BF16 by rounding; Q8_0 as ggml's reference quantiser does:
// d = max|x| / 127 in half precision, q = round(x / d)); other types are not encoded here.
inline std::vector<std::uint8_t> encode_ggml(const float* x, std::size_t n, std::uint32_t type) {
  std::vector<std::uint8_t> o;
  for (std::size_t i = 0; i < n; ++i) {
    if (type == 0) GgufWriter::put(o, x[i]);
    if (type == 1) GgufWriter::put(o, float_to_half(x[i]));
    if (type == 30) {
      std::uint32_t b;
      std::memcpy(&b, &x[i], 4);
      GgufWriter::put(o, std::uint16_t((b + 0x7FFF + ((b >> 16) & 1)) >> 16));
    }
  }
  if (type == 8)
    for (std::size_t b = 0; b < n; b += 32) {
      float amax = 0;
      for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b + j]));
      const float d = amax / 127, id = d ? 1 / d : 0;
      GgufWriter::put(o, float_to_half(d));
      for (int j = 0; j < 32; ++j) o.push_back(std::uint8_t(std::int8_t(std::lround(x[b + j] * id))));
    }
  return o;
}

// The GGUF tensor name of a lookback one (the inverse of gguf_to_lookback_names for a llama).
inline std::string gguf_name(const std::string& ours) {
  const std::string layer[][2] = {{"attention_norm.weight", "attn_norm.weight"}, {"attention.wq.weight", "attn_q.weight"},
                                  {"attention.wk.weight", "attn_k.weight"},      {"attention.wv.weight", "attn_v.weight"},
                                  {"attention.wo.weight", "attn_output.weight"}, {"ffn_norm.weight", "ffn_norm.weight"},
                                  {"feed_forward.w1.weight", "ffn_gate.weight"}, {"feed_forward.w3.weight", "ffn_up.weight"},
                                  {"feed_forward.w2.weight", "ffn_down.weight"}};
  if (ours == "tok_embeddings.weight") return "token_embd.weight";
  if (ours == "norm.weight") return "output_norm.weight";
  if (ours == "output.weight") return "output.weight";
  const std::size_t dot = ours.find('.', 7);
  for (const auto& p : layer)
    if (ours.substr(dot + 1) == p[0]) return "blk." + ours.substr(7, dot - 7) + "." + p[1];
  return "?";
}

// A llama GGUF of the weights (matrices in `matrix_type`, norms in F32) with a vocabulary of pieces (spaces as
// "▁") and scores; `raw` replaces a matrix's bytes by given blocks (for the types encode_ggml does not write).
inline GgufWriter llama_gguf(const Weights& w, const std::vector<std::string>& pieces, const std::vector<float>& scores,
                             std::uint32_t matrix_type) {
  const ModelConfig& c = w.config();
  GgufWriter g;
  g.str("general.architecture", "llama");
  g.u32("general.alignment", g.alignment);
  g.u32("llama.block_count", std::uint32_t(c.n_layers));
  g.u32("llama.embedding_length", std::uint32_t(c.dim));
  g.u32("llama.attention.head_count", std::uint32_t(c.n_heads));
  g.u32("llama.attention.head_count_kv", std::uint32_t(c.n_kv_heads));
  g.u32("llama.attention.key_length", std::uint32_t(c.head_dim));
  g.u32("llama.rope.dimension_count", std::uint32_t(c.head_dim));
  g.f32("llama.rope.freq_base", c.rope_theta);
  g.f32("llama.attention.layer_norm_rms_epsilon", c.norm_eps);
  g.u32("llama.context_length", std::uint32_t(c.max_seq_len));
  g.u32("llama.feed_forward_length", std::uint32_t(c.hidden_dim));
  g.str("tokenizer.ggml.model", "llama");
  g.strings("tokenizer.ggml.tokens", pieces);
  g.floats("tokenizer.ggml.scores", scores);
  std::vector<std::int32_t> types(pieces.size(), 1);
  types[0] = 2, types[1] = 3, types[2] = 3;
  for (int b = 3; b < 259 && b < int(types.size()); ++b) types[std::size_t(b)] = 6;
  g.ints("tokenizer.ggml.token_type", types);
  g.u32("tokenizer.ggml.bos_token_id", std::uint32_t(c.bos_id));
  g.u32("tokenizer.ggml.eos_token_id", std::uint32_t(c.eos_id));
  for (const TensorSpec& s : w.specs()) {
    const bool matrix = s.shape.size() == 2;
    const std::uint32_t type = matrix ? matrix_type : 0;
    g.tensor(gguf_name(s.name), std::vector<std::uint64_t>(s.shape.rbegin(), s.shape.rend()), type,
             encode_ggml(w.tensor(s.name), s.size(), type));
  }
  return g;
}

}  // namespace lookback::testing
