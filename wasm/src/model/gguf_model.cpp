// GGUF metadata and tensors to a lookback model and tokenizer (see gguf_model.hpp).
// Not here: parsing the container (gguf.cpp) or decoding blocks (ggml_types.cpp).
#include "model/gguf_model.hpp"


#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "model/errors.hpp"
#include "model/config_json.hpp"
#include "model/ggml_types.hpp"
#include "model/hf_model.hpp"  // kHfMaxContext
#include "model/hf_tokenizer.hpp"
#include "model/load.hpp"      // UnsupportedFormat
#include "model/matrices.hpp"
#include "model/q4_ggml.hpp"
#include "model/pretokenize.hpp"
#include "model/sp_tokenizer.hpp"
#include "model/tensor_names.hpp"
#include "model/weights.hpp"

namespace lookback {
namespace {

using nlohmann::json;

const char* const kArchitectures = "llama, qwen2, qwen3, gpt2";

const GgufValue& need(const GgufFile& f, const std::string& key) {
  const GgufValue* v = f.find(key);
  if (!v) model_error("GGUF: metadata key \"", key, "\" is missing");
  return *v;
}

// An integer key in [least, most] (any integer type), or fallback when absent and fallback >= 0.
long long int_key(const GgufFile& f, const std::string& key, long long fallback, long long least = 1,
                  long long most = std::numeric_limits<int>::max()) {
  const GgufValue* v = f.find(key);
  if (!v && fallback >= 0) return fallback;
  const json& j = need(f, key).value;
  if (!j.is_number_integer()) model_error("GGUF: \"", key, "\" is ", j.dump().substr(0, 40), " (", gguf_type_name(v->type), "); an integer is wanted");
  const bool negative = !j.is_number_unsigned() && j.get<long long>() < 0;
  if (negative || j.get<unsigned long long>() < static_cast<unsigned long long>(least) ||
      j.get<unsigned long long>() > static_cast<unsigned long long>(most))
    model_error("GGUF: \"", key, "\" is ", j.dump(), "; it must be in [", least, ", ", most, "]");
  return j.get<long long>();
}

float float_key(const GgufFile& f, const std::string& key, float fallback) {
  const GgufValue* v = f.find(key);
  if (!v) return fallback;
  if (!v->value.is_number()) model_error("GGUF: \"", key, "\" is ", v->value.dump().substr(0, 40), "; a number is wanted");
  return v->value.get<float>();
}

std::string string_key(const GgufFile& f, const std::string& key) {
  const GgufValue& v = need(f, key);
  if (!v.value.is_string()) model_error("GGUF: \"", key, "\" is a ", gguf_type_name(v.type), "; a STRING is wanted");
  return v.value.get<std::string>();
}

// An array key whose elements are all of JSON kind `ok` (checked by the predicate), of exactly n elements.
const json& array_key(const GgufFile& f, const std::string& key, std::size_t n, bool (json::*ok)() const noexcept, const char* kind) {
  const GgufValue& v = need(f, key);
  if (!v.value.is_array()) model_error("GGUF: \"", key, "\" is a ", gguf_type_name(v.type), "; an ARRAY of ", kind, " is wanted");
  if (v.value.size() != n) model_error("GGUF: \"", key, "\" has ", v.value.size(), " elements; the vocabulary has ", n);
  for (const json& e : v.value)
    if (!(e.*ok)()) model_error("GGUF: \"", key, "\" holds ", gguf_type_name(v.element), " elements; ", kind, " are wanted");
  return v.value;
}

std::string architecture(const GgufFile& f) {
  const std::string arch = string_key(f, "general.architecture");
  if (arch != "llama" && arch != "qwen2" && arch != "qwen3" && arch != "gpt2")
    throw UnsupportedFormat("GGUF: general.architecture is \"" + arch + "\"; lookback runs GGUF architectures: " + kArchitectures);
  return arch;
}

// "▁" (U+2581), sentencepiece's space, as the space llama2.c's pieces hold.
std::string spaces(const std::string& piece) {
  std::string out;
  for (std::size_t i = 0; i < piece.size(); ++i) {
    if (piece.compare(i, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      i += 2;
    } else {
      out += piece[i];
    }
  }
  return out;
}

// tokenizer.ggml.pre's names, as llama.cpp groups them, and the split pattern each stands for; llama.cpp takes
// a piece that is a token whole (ignore_merges) for Llama 3's, as its tokenizer.json says
struct PreTokenizer {
  const char* name;
  SplitPattern pattern;
  bool ignore_merges;
};
const PreTokenizer kPreTokenizers[] = {
    {"gpt-2", SplitPattern::gpt2, false},        {"phi-2", SplitPattern::gpt2, false},
    {"jina-es", SplitPattern::gpt2, false},      {"jina-de", SplitPattern::gpt2, false},
    {"gigachat", SplitPattern::gpt2, false},     {"jina-v1-en", SplitPattern::gpt2, false},
    {"jina-v2-es", SplitPattern::gpt2, false},   {"jina-v2-de", SplitPattern::gpt2, false},
    {"jina-v2-code", SplitPattern::gpt2, false}, {"roberta-bpe", SplitPattern::gpt2, false},
    {"llama-bpe", SplitPattern::llama3, true},   {"llama3", SplitPattern::llama3, true},
    {"llama-v3", SplitPattern::llama3, true},    {"falcon3", SplitPattern::llama3, true},
    {"qwen2", SplitPattern::qwen2, false},       {"deepseek-r1-qwen", SplitPattern::qwen2, false},
    {"megrez", SplitPattern::qwen2, false},      {"smollm", SplitPattern::smollm, false},
    {"codeshell", SplitPattern::smollm, false},  {"exaone", SplitPattern::smollm, false},
    {"minerva-7b", SplitPattern::smollm, false},
};

// The pre_tokenizer of a tokenizer.json that splits as `p`, then maps bytes to GPT-2's characters.
json pre_tokenizer_json(SplitPattern p) {
  const json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", p == SplitPattern::gpt2 || p == SplitPattern::smollm}};
  if (p == SplitPattern::gpt2) return byte_level;
  const json first = p == SplitPattern::smollm
                         ? json{{"type", "Digits"}, {"individual_digits", true}}
                         : json{{"type", "Split"}, {"pattern", {{"Regex", split_pattern_regex(p)}}}, {"behavior", "Isolated"}, {"invert", false}};
  return {{"type", "Sequence"}, {"pretokenizers", {first, byte_level}}};
}

// tokenizer.ggml.model "gpt2": byte-level BPE from tokens and merges, split as tokenizer.ggml.pre names; control
// (type 3) and user-defined (type 4) tokens are found in the text first, control ones decoding to nothing. Read as
// the tokenizer.json these fields were converted from.
std::shared_ptr<const Tokenizer> gpt2_tokenizer(const GgufFile& f, const ModelConfig& c, const json& tokens, const json* types) {
  const std::string pre = f.find("tokenizer.ggml.pre") ? string_key(f, "tokenizer.ggml.pre") : "";
  const PreTokenizer* split = nullptr;
  std::string names;
  for (const PreTokenizer& p : kPreTokenizers) {
    if (pre == p.name) split = &p;
    names += std::string(names.empty() ? "" : ", ") + p.name;
  }
  if (!split)
    throw UnsupportedFormat("GGUF: tokenizer.ggml.pre is " + (pre.empty() ? std::string("missing") : "\"" + pre + "\"") +
                            "; lookback splits byte-level BPE text as " + names);
  const GgufValue& merges = need(f, "tokenizer.ggml.merges");
  array_key(f, "tokenizer.ggml.merges", merges.value.is_array() ? merges.value.size() : 0, &json::is_string, "STRINGs");
  json vocab = json::object(), added = json::array();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& piece = tokens[i].get_ref<const std::string&>();
    vocab[piece] = i;
    const long long type = types ? (*types)[i].get<long long>() : 1;
    if (type == 3 || type == 4) added.push_back({{"id", i}, {"content", piece}, {"special", type == 3}});
  }
  const json j = {{"model", {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", merges.value}, {"ignore_merges", split->ignore_merges}}},
                  {"pre_tokenizer", pre_tokenizer_json(split->pattern)},
                  {"added_tokens", std::move(added)}};
  return HfBpeTokenizer::from_json(j, c.vocab_size, c.bos_id, c.eos_id);
}

std::shared_ptr<const Tokenizer> tokenizer(const GgufFile& f, const ModelConfig& c) {
  const std::string model = string_key(f, "tokenizer.ggml.model");
  if (model != "llama" && model != "gpt2")
    throw UnsupportedFormat("GGUF: tokenizer.ggml.model is \"" + model + "\"; lookback reads GGUF tokenizers: llama, gpt2");
  const GgufValue& tokens = need(f, "tokenizer.ggml.tokens");
  const std::size_t n = tokens.value.is_array() ? tokens.value.size() : 0;
  array_key(f, "tokenizer.ggml.tokens", n, &json::is_string, "STRINGs");
  const json* types = f.find("tokenizer.ggml.token_type") ? &array_key(f, "tokenizer.ggml.token_type", n, &json::is_number_integer, "integers") : nullptr;
  if (model == "gpt2") return gpt2_tokenizer(f, c, tokens.value, types);
  // llama: sentencepiece-style pieces with scores
  const json& scores = array_key(f, "tokenizer.ggml.scores", n, &json::is_number, "numbers");
  std::vector<std::string> pieces;
  std::vector<float> weights;
  for (std::size_t i = 0; i < n; ++i) {
    pieces.push_back(spaces(tokens.value[i].get<std::string>()));
    // control, unused and byte tokens (types 3, 5, 6) are never the result of a merge
    const long long type = types ? (*types)[i].get<long long>() : 1;
    weights.push_back(type == 3 || type == 5 || type == 6 ? -1e30f : scores[i].get<float>());
  }
  return std::make_shared<SpTokenizer>(std::move(pieces), std::move(weights), c.bos_id, c.eos_id);
}

}  // namespace

ModelConfig gguf_config(const GgufFile& f) {
  const std::string arch = architecture(f), a = arch + ".";
  const bool gpt2 = arch == "gpt2", qwen = arch == "qwen2" || arch == "qwen3";
  ModelConfig c;
  c.arch = arch + " (GGUF)";
  c.dim = int(int_key(f, a + "embedding_length", -1));
  c.n_layers = int(int_key(f, a + "block_count", -1));
  c.n_heads = int(int_key(f, a + "attention.head_count", -1));
  c.n_kv_heads = int(int_key(f, a + "attention.head_count_kv", c.n_heads));
  c.head_dim = int(int_key(f, a + "attention.key_length", c.dim / c.n_heads));
  if (const long long v = int_key(f, a + "attention.value_length", c.head_dim); v != c.head_dim)
    throw UnsupportedFormat("GGUF: " + a + "attention.value_length is " + std::to_string(v) + "; lookback needs it equal to key_length (" +
                            std::to_string(c.head_dim) + ")");
  c.hidden_dim = int(int_key(f, a + "feed_forward_length", -1));
  const GgufTensor* embedding = f.tensor("token_embd.weight");
  if (!embedding || embedding->dims.size() != 2) model_error("GGUF: tensor \"token_embd.weight\" is missing or not a matrix");
  c.vocab_size = int(int_key(f, a + "vocab_size", (long long)std::min<std::uint64_t>(embedding->dims[1], std::numeric_limits<int>::max())));
  c.max_seq_len = int(std::min<long long>(int_key(f, a + "context_length", kHfMaxContext, 1, std::numeric_limits<long long>::max()), kHfMaxContext));
  c.tied_embeddings = f.tensor("output.weight") == nullptr;
  c.bos_id = int(int_key(f, "tokenizer.ggml.bos_token_id", gpt2 ? 50256 : 1, 0));
  c.eos_id = int(int_key(f, "tokenizer.ggml.eos_token_id", gpt2 ? 50256 : 2, 0));
  if (gpt2) {
    // GPT-2: learned positions, LayerNorm with bias, a fused q/k/v with bias, tanh-GELU MLP with biases (ggml's
    // gelu is the tanh form)
    c.positions = Positions::learned;
    c.norm = Norm::layer;
    c.norm_eps = float_key(f, a + "attention.layer_norm_epsilon", 1e-5f);
    c.mlp = Mlp::gelu_tanh;
    c.qkv_bias = c.out_bias = c.mlp_bias = true;
    c.qk_norm = false;
  } else {
    const long long rope_dims = int_key(f, a + "rope.dimension_count", c.head_dim);
    if (rope_dims != c.head_dim)
      throw UnsupportedFormat("GGUF: " + a + "rope.dimension_count is " + std::to_string(rope_dims) +
                              "; lookback rotates whole heads (" + std::to_string(c.head_dim) + ")");
    if (const GgufValue* s = f.find(a + "rope.scaling.type"); s && s->value != "none")
      throw UnsupportedFormat("GGUF: " + a + "rope.scaling.type is " + s->value.dump() + "; plain rotary positions only");
    c.norm_eps = float_key(f, a + "attention.layer_norm_rms_epsilon", 1e-5f);
    c.rope_theta = float_key(f, a + "rope.freq_base", 10000.0f);
    // llama.cpp stores Llama's q/k rows in Meta's order and rotates adjacent pairs (rope type NORM); Qwen's as
    // transformers has them, rotating pairs half a head apart (NEOX)
    c.rope_layout = qwen ? RopeLayout::half : RopeLayout::adjacent;
    c.qk_norm = arch == "qwen3";  // RMSNorm of each head's q and k (attn_q_norm, attn_k_norm) before the rotation
    c.qkv_bias = arch == "qwen2";
    c.mlp = Mlp::swiglu;
  }
  validate_config(c);
  return c;
}

std::vector<std::string> gguf_to_lookback_names(const std::string& name, const ModelConfig& c) {
  const bool swiglu = c.mlp == Mlp::swiglu;
  static const NamePair kLayer[] = {
      {"attn_norm.weight", "attention_norm.weight"}, {"attn_norm.bias", "attention_norm.bias"},
      {"attn_q.weight", "attention.wq.weight"},      {"attn_q.bias", "attention.wq.bias"},
      {"attn_k.weight", "attention.wk.weight"},      {"attn_k.bias", "attention.wk.bias"},
      {"attn_v.weight", "attention.wv.weight"},      {"attn_v.bias", "attention.wv.bias"},
      {"attn_q_norm.weight", "attention.q_norm.weight"}, {"attn_k_norm.weight", "attention.k_norm.weight"},
      {"attn_output.weight", "attention.wo.weight"}, {"attn_output.bias", "attention.wo.bias"},
      {"ffn_norm.weight", "ffn_norm.weight"},        {"ffn_norm.bias", "ffn_norm.bias"},
      {"ffn_gate.weight", "feed_forward.w1.weight"}, {"ffn_gate.bias", "feed_forward.w1.bias"},
      {"ffn_down.weight", "feed_forward.w2.weight"}, {"ffn_down.bias", "feed_forward.w2.bias"},
  };
  static const NamePair kTop[] = {
      {"token_embd.weight", "tok_embeddings.weight"}, {"position_embd.weight", "pos_embeddings.weight"},
      {"output_norm.weight", "norm.weight"},          {"output_norm.bias", "norm.bias"},
      {"output.weight", "output.weight"},
  };
  if (const char* ours = look_up(kTop, name)) return {ours};
  const auto [layer, rest] = split_layer_name(name, "blk.");
  if (layer.empty()) return {};
  const std::string p = "layers." + layer + ".";
  // the up projection: w3 beside a gate (SwiGLU), the MLP's only input matrix w1 without one (GPT-2)
  if (rest == "ffn_up.weight" || rest == "ffn_up.bias")
    return {p + "feed_forward." + (swiglu ? "w3" : "w1") + rest.substr(6)};
  // GPT-2's fused q/k/v: the rows of q, then k, then v
  if (rest == "attn_qkv.weight" || rest == "attn_qkv.bias") {
    const std::string kind = rest.substr(8);
    return {p + "attention.wq" + kind, p + "attention.wk" + kind, p + "attention.wv" + kind};
  }
  if (const char* ours = look_up(kLayer, rest)) return {p + ours};
  return {};
}

WeightFormat gguf_storage(const GgufFile& f) {
  bool f16 = false;
  for (const GgufTensor& t : f.tensors) {
    if (t.dims.size() != 2) continue;
    const GgmlType* type = ggml_type(t.type);
    if (type && type->block > 1) return WeightFormat::q8;
    f16 = f16 || t.type == 1;
  }
  return f16 ? WeightFormat::f16 : WeightFormat::f32;
}

namespace {

constexpr std::size_t kChunkFloats = std::size_t(1) << 20;  // floats of one tensor decoded at a time (4 MB)

// Where a GGUF tensor's values go: lookback's tensors one after another (each `size` values from `start` of the
// tensor's flat values); values past the last (learned positions beyond the context) are not read.
struct Part {
  std::string name;
  std::size_t start, size;
};

// The values [lo, hi) of the tensor (decoded, at `values`) to the parts they fall in: a held tensor copied into
// w, a matrix's rows (whole rows: parts of matrices start at row boundaries) put into m, and the embedding into
// both when a tied classifier is made from it.
void route(const std::vector<Part>& parts, std::size_t lo, std::size_t hi, const float* values, std::size_t K,
           Weights& w, Matrices* m) {
  for (const Part& p : parts) {
    const std::size_t a = std::max(lo, p.start), b = std::min(hi, p.start + p.size);
    if (a >= b) continue;
    const float* from = values + (a - lo);
    if (w.find(p.name)) std::copy(from, from + (b - a), w.tensor(p.name) + (a - p.start));
    if (m && m->wants(p.name)) m->put(p.name, int((a - p.start) / K), int((b - a) / K), from);
  }
}

// Rows r0..r0+n of a Q4_0/Q4_K tensor (raw blocks) to the parts they fall in, written straight into q4 matrices.
void put_blocks(const std::vector<Part>& parts, std::size_t r0, std::size_t n, const std::uint8_t* raw, std::size_t row_bytes,
                std::size_t K, const GgmlType& type, Matrices& m) {
  for (const Part& p : parts) {
    const std::size_t a = std::max(r0, p.start / K), b = std::min(r0 + n, (p.start + p.size) / K);
    if (a >= b) continue;
    const std::uint8_t* rows = raw + (a - r0) * row_bytes;
    m.put_q4(p.name, int(a - p.start / K), int(b - a), [&](int n0, int N, int Kq, std::uint8_t* q) {
      q4_from_ggml_rows(type, rows, n0, int(b - a), N, Kq, q);
    });
  }
}

// One tensor read from the source a chunk of whole rows at a time, decoded and routed.
void read_tensor(const ByteSource& src, const GgufFile& f, const GgufTensor& t, const std::vector<Part>& parts,
                 Weights& w, Matrices* m, std::vector<std::uint8_t>& raw, std::vector<float>& values) {
  const GgmlType& type = *ggml_type(t.type);
  const std::size_t K = std::size_t(t.dims[0]), row_bytes = K / std::size_t(type.block) * std::size_t(type.block_bytes);
  const std::size_t used = parts.back().start + parts.back().size, rows = used / K;
  const std::size_t chunk = std::max<std::size_t>(1, kChunkFloats / K);
  // 4-bit blocks into q4 matrices go as they are (the layout holds them exactly)
  const bool as_blocks = m && m->format() == WeightFormat::q4 && (t.type == 2 || t.type == 12) &&
                         std::all_of(parts.begin(), parts.end(), [&](const Part& p) { return !w.find(p.name) && m->wants(p.name); });
  for (std::size_t r0 = 0; r0 < rows; r0 += chunk) {
    const std::size_t n = std::min(chunk, rows - r0);
    raw.resize(n * row_bytes);
    src.read(f.data_offset + t.offset + r0 * row_bytes, n * row_bytes, raw.data());
    if (as_blocks) {
      put_blocks(parts, r0, n, raw.data(), row_bytes, K, type, *m);
      continue;
    }
    values.resize(n * K);
    dequantize_ggml(type, raw.data(), n * K, values.data());
    route(parts, r0 * K, (r0 + n) * K, values.data(), K, w, m);
  }
}

}  // namespace

LoadedModel load_gguf(const ByteSource& src, std::optional<WeightFormat> format, std::size_t memory) {
  std::vector<std::uint8_t> head;
  const GgufFile f = read_gguf_header(src, head);
  const ModelConfig c = gguf_config(f);
  std::shared_ptr<const Tokenizer> tok = tokenizer(f, c);
  head = {};
  const WeightFormat held = format.value_or(gguf_storage(f));
  check_model_fits(c, held, memory);
  // float32 matrices are read where the forward pass reads them (the weights' buffer); compact ones straight
  // into their format, a chunk of rows at a time, so no full float32 copy of them is ever made
  Weights w(c, held == WeightFormat::f32);
  std::optional<Matrices> m;
  if (held != WeightFormat::f32) m.emplace(w, held, Matrices::Parts{});
  std::set<std::string> read;
  std::vector<std::uint8_t> raw;
  std::vector<float> values;
  // the tensors in the order their bytes lie in the file (a file read front to back)
  std::vector<const GgufTensor*> order;
  for (const GgufTensor& t : f.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
  const std::vector<TensorSpec> specs = tensor_specs(c);
  auto spec = [&](const std::string& name) -> const TensorSpec* {
    for (const TensorSpec& s : specs)
      if (s.name == name) return &s;
    return nullptr;
  };
  for (const GgufTensor* tp : order) {
    const GgufTensor& t = *tp;
    const std::vector<std::string> ours = gguf_to_lookback_names(t.name, c);
    std::vector<Part> parts;
    std::size_t at = 0;
    for (const std::string& o : ours) {
      const TensorSpec* s = spec(o);
      if (!s) break;
      parts.push_back({o, at, s->size()});
      at += s->size();
    }
    if (ours.empty() || parts.size() != ours.size())
      model_error("GGUF: tensor \"", t.name, "\" is not part of a ", c.arch, " model lookback runs");
    // the dimensions the metadata implies (ggml lists them innermost first): the pieces' rows one after another;
    // learned positions have context_length rows of which the first max_seq_len are used
    const std::vector<int>& shape0 = spec(ours[0])->shape;
    std::vector<std::uint64_t> want(shape0.rbegin(), shape0.rend());
    for (std::size_t i = 1; i < ours.size(); ++i) want.back() += std::uint64_t(spec(ours[i])->shape[0]);
    if (ours[0] == "pos_embeddings.weight")
      want.back() = std::uint64_t(int_key(f, architecture(f) + ".context_length", c.max_seq_len, 1, std::numeric_limits<long long>::max()));
    if (t.dims != want)
      model_error("GGUF: tensor \"", t.name, "\" has dimensions ", json(t.dims).dump(), " but the metadata implies ", json(want).dump());
    read_tensor(src, f, t, parts, w, m ? &*m : nullptr, raw, values);
    for (const std::string& o : ours)
      if (!read.insert(o).second) model_error("GGUF: tensor \"", t.name, "\" gives ", o, " a second time");
  }
  for (const TensorSpec& s : specs)
    if (!read.count(s.name)) model_error("GGUF: the tensor for ", s.name, " is missing");
  check_tokenizer_fits(c, *tok);
  auto model = m ? std::make_shared<const Transformer>(std::move(w), std::move(*m))
                 : std::make_shared<const Transformer>(std::move(w), held);
  return {std::move(model), std::move(tok)};
}

LoadedModel load_gguf(const std::uint8_t* bytes, std::size_t size, std::optional<WeightFormat> format) {
  return load_gguf(MemorySource(bytes, size), format, 0);
}

}  // namespace lookback
