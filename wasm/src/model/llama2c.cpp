// llama2.c legacy checkpoint reading (and writing, for round-trip tests): header checks, the exact
// expected file size, and the mapping of its weight order onto the safetensors tensor names.
// Not here: the forward pass (transformer.cpp).
#include "model/llama2c.hpp"

#include <cstring>
#include <string>

#include "model/config_json.hpp"
#include "model/errors.hpp"

namespace lookback {
namespace {

constexpr std::size_t kHeaderBytes = 7 * 4;

std::int32_t read_i32(const std::uint8_t* p) {
  return std::int32_t(std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24);
}

// The file's tensors in order: (name pattern with {l} for the layer, is per-layer).
struct Block {
  const char* name;
  bool per_layer;
};
constexpr Block kOrder[] = {
    {"tok_embeddings.weight", false},        {"layers.{l}.attention_norm.weight", true},
    {"layers.{l}.attention.wq.weight", true}, {"layers.{l}.attention.wk.weight", true},
    {"layers.{l}.attention.wv.weight", true}, {"layers.{l}.attention.wo.weight", true},
    {"layers.{l}.ffn_norm.weight", true},     {"layers.{l}.feed_forward.w1.weight", true},
    {"layers.{l}.feed_forward.w2.weight", true}, {"layers.{l}.feed_forward.w3.weight", true},
    {"norm.weight", false},
};

std::string layer_name(const char* pattern, int l) {
  std::string s = pattern;
  const auto at = s.find("{l}");
  if (at != std::string::npos) s.replace(at, 3, std::to_string(l));
  return s;
}

std::size_t rope_table_floats(const ModelConfig& c) { return std::size_t(c.max_seq_len) * (c.head_dim / 2) * 2; }

// Calls f(name) for every tensor in file order, up to (not including) the skipped RoPE tables.
template <class F>
void for_each_in_file_order(const ModelConfig& c, F&& f) {
  for (const Block& b : kOrder) {
    if (!b.per_layer) {
      f(std::string(b.name));
      continue;
    }
    for (int l = 0; l < c.n_layers; ++l) f(layer_name(b.name, l));
  }
}

}  // namespace

ModelConfig llama2c_config(const std::uint8_t* bytes, std::size_t size) {
  if (size < kHeaderBytes) model_error("llama2.c checkpoint: the file is ", size, " bytes; the header alone is 28");
  std::int32_t h[7];
  for (int i = 0; i < 7; ++i) h[i] = read_i32(bytes + 4 * i);
  const char* names[7] = {"dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"};
  for (int i = 0; i < 7; ++i)
    if (i != 5 && h[i] <= 0) model_error("llama2.c checkpoint: header ", names[i], " (bytes ", 4 * i, "..", 4 * i + 4, ") is ", h[i], "; must be positive");
  if (h[5] == 0 || h[5] == INT32_MIN) model_error("llama2.c checkpoint: header vocab_size (bytes 20..24) is ", h[5]);
  if (h[0] % h[3]) model_error("llama2.c checkpoint: n_heads (", h[3], ") must divide dim (", h[0], ")");
  ModelConfig c;
  c.arch = "llama2c";
  c.dim = h[0];
  c.hidden_dim = h[1];
  c.n_layers = h[2];
  c.n_heads = h[3];
  c.n_kv_heads = h[4];
  c.vocab_size = h[5] < 0 ? -h[5] : h[5];
  c.tied_embeddings = h[5] > 0;
  c.max_seq_len = h[6];
  c.head_dim = c.dim / c.n_heads;
  c.norm_eps = 1e-5f;
  c.rope_theta = 10000.0f;
  c.rope_layout = RopeLayout::adjacent;
  c.qk_norm = false;
  c.mlp = Mlp::swiglu;
  c.bos_id = 1;
  c.eos_id = 2;
  try {
    validate_config(c);
  } catch (const ModelError& e) {
    model_error("llama2.c checkpoint header: ", e.what());
  }
  return c;
}

Weights read_llama2c(const std::uint8_t* bytes, std::size_t size) {
  const ModelConfig c = llama2c_config(bytes, size);
  const std::size_t floats = parameter_count(c) + rope_table_floats(c);
  const std::size_t expected = kHeaderBytes + 4 * floats;
  if (size != expected)
    model_error("llama2.c checkpoint: the file is ", size, " bytes but its header (dim ", c.dim, ", hidden_dim ", c.hidden_dim,
                ", n_layers ", c.n_layers, ", n_heads ", c.n_heads, ", n_kv_heads ", c.n_kv_heads, ", vocab_size ",
                c.tied_embeddings ? "" : "-", c.vocab_size, ", seq_len ", c.max_seq_len, ") implies ", expected,
                size < expected ? " (truncated?)" : " (extra bytes at the end)");
  Weights w(c);
  std::size_t at = kHeaderBytes;
  auto copy = [&](const std::string& name) {
    const TensorSpec* s = w.find(name);
    std::memcpy(w.data() + s->offset, bytes + at, 4 * s->size());
    at += 4 * s->size();
  };
  for_each_in_file_order(c, copy);
  at += 4 * rope_table_floats(c);
  if (!c.tied_embeddings) copy("output.weight");
  w.check_finite();
  return w;
}

std::vector<std::uint8_t> write_llama2c(const Weights& w) {
  const ModelConfig& c = w.config();
  if (c.qk_norm || c.mlp != Mlp::swiglu || c.rope_layout != RopeLayout::adjacent || c.head_dim * c.n_heads != c.dim ||
      c.norm != Norm::rms || c.positions != Positions::rope || c.rope_scaling.type != RopeScaling::Type::none ||
      c.qkv_bias || c.out_bias || c.mlp_bias)
    model_error("write_llama2c: llama2.c runs only SwiGLU models without QK-norm or biases, with RMSNorm, plain "
                "rotary positions in adjacent pairs and dim = n_heads * head_dim");
  std::vector<std::uint8_t> out(kHeaderBytes);
  const std::int32_t h[7] = {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads,
                             c.tied_embeddings ? c.vocab_size : -c.vocab_size, c.max_seq_len};
  std::memcpy(out.data(), h, sizeof h);
  auto append = [&](const float* p, std::size_t n) {
    const std::size_t at = out.size();
    out.resize(at + 4 * n);
    if (n) std::memcpy(out.data() + at, p, 4 * n);
  };
  for_each_in_file_order(c, [&](const std::string& name) {
    const TensorSpec* s = w.find(name);
    append(w.data() + s->offset, s->size());
  });
  const std::vector<float> zeros(rope_table_floats(c), 0.0f);
  append(zeros.data(), zeros.size());
  if (!c.tied_embeddings) append(w.tensor("output.weight"), std::size_t(c.vocab_size) * c.dim);
  return out;
}

}  // namespace lookback
