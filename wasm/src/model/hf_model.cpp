// The Hugging Face model reader (Llama, Qwen2, Qwen3, GPT-2): config mapping, tensor names, and F32/F16/BF16 safetensors data.
// Not here: the tokenizer (hf_tokenizer.cpp), lookback's own safetensors reader (safetensors.cpp).
#include "model/hf_model.hpp"

#include <algorithm>
#include <iterator>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "base/fp16.hpp"
#include "model/hf_tokenizer.hpp"
#include "model/json_depth.hpp"
#include "model/matrices.hpp"
#include "model/safetensors_sizes.hpp"
#include "model/tensor_names.hpp"
#include "model/weights.hpp"

namespace lookback {
namespace {

using nlohmann::json;

json parse(const std::string& text, const char* what) {
  check_json_depth(text, what);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    model_error(what, " is not well-formed JSON: ", e.what());
  }
}

// An integer of config.json, read in 64 bits and refused outside [0, most] (never wrapped to 32 bits: 2^32 + 2
// layers is not 2).
long long wide_field(const json& j, const char* key, long long fallback, long long most) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback >= 0) return fallback;
    model_error("config.json: missing \"", key, "\"");
  }
  const json& v = j[key].is_array() && !j[key].empty() ? j[key][0] : j[key];  // eos_token_id may be a list
  if (!v.is_number_integer())
    model_error("config.json: \"", key, "\" must be an integer (got ", v.dump().substr(0, 40), ")");
  const bool negative = v.is_number_integer() && !v.is_number_unsigned() && v.get<long long>() < 0;
  if (negative || v.get<unsigned long long>() > static_cast<unsigned long long>(most))
    model_error("config.json: \"", key, "\" is ", v.dump(), "; it must be an integer in [0, ", most, "]");
  return v.get<long long>();
}

// JSON text whose top-level keys are each named once (nlohmann keeps the last of a repeated key: a tensor named
// twice would be read from whichever came last).
json parse_unique(const std::string& text, const char* what) {
  check_json_depth(text, what);
  std::set<std::string> keys;
  try {
    return json::parse(text, [&](int depth, json::parse_event_t ev, json& parsed) {
      if (depth == 1 && ev == json::parse_event_t::key && !keys.insert(parsed.get<std::string>()).second)
        model_error(what, ": the name \"", parsed.get<std::string>(), "\" appears twice");
      return true;
    });
  } catch (const json::exception& e) {
    model_error(what, " is not well-formed JSON: ", e.what());
  }
}

// Field `key` of tensor `name` as a T, or a ModelError naming the file, the tensor, the key and the type wanted.
template <class T>
T typed(const json& e, const std::string& file, const std::string& name, const char* key, const char* expected) {
  if (!e.contains(key)) model_error(file, ": tensor \"", name, "\" has no \"", key, "\"");
  try {
    return e[key].get<T>();
  } catch (const json::exception&) {
    model_error(file, ": tensor \"", name, "\": \"", key, "\" must be ", expected, " (got ",
                e[key].dump().substr(0, 40), ")");
  }
}

int int_field(const json& j, const char* key, int fallback = -1) {
  return int(wide_field(j, key, fallback, std::numeric_limits<int>::max()));
}

float float_field(const json& j, const char* key, float fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number()) model_error("config.json: \"", key, "\" must be a number");
  return j[key].get<float>();
}

float bf16_to_float(std::uint16_t b) {
  const std::uint32_t bits = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One tensor of the file, converted to float into out (count floats).
void read_floats(const std::uint8_t* data, const std::string& dtype, std::size_t count, float* out) {
  if (dtype == "F32") {
    std::memcpy(out, data, count * 4);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    out[i] = dtype == "F16" ? half_to_float(h) : bf16_to_float(h);
  }
}

// Where one lookback tensor comes from in the checkpoint: the stored tensor `name`, whose rows in lookback's
// [out, in] orientation number `rows` (0: as many as lookback's tensor has), read from row `first`; `transposed`:
// stored [in, out] (GPT-2's Conv1D). One stored tensor may feed several of lookback's (GPT-2's fused c_attn).
struct Source {
  std::string name;
  int first = 0, rows = 0;
  bool transposed = false;
};

// One transformers architecture lookback runs: its name in "architectures", its model_type, its config.json
// mapping, where each lookback tensor comes from, which stored tensors it leaves unread, and a prefix its tensor
// names may carry (GPT-2's "transformer.").
struct HfArchitecture {
  const char* name;
  const char* model_type;
  ModelConfig (*config)(const json& j);
  Source (*source)(const json& j, const ModelConfig& c, const std::string& ours);
  bool (*unread)(const std::string& theirs, const ModelConfig& c);
  const char* optional_prefix;
};

const HfArchitecture& architecture_of(const json& j);

// One stored tensor: its header entry and the data section of the file that holds it (read from its source).
struct Stored {
  const json* entry;
  const ByteSource* source;
  std::uint64_t data_at, data_size;
  const std::string* file;
};

constexpr std::size_t kChunkFloats = std::size_t(1) << 20;  // floats of one tensor converted at a time (4 MB)

// A sharded checkpoint's model.safetensors.index.json: tensor name -> the file that holds it.
std::map<std::string, std::string> weight_map_of(const std::string& index_json) {
  const json index = parse(index_json, "model.safetensors.index.json");
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    model_error("model.safetensors.index.json: \"weight_map\" must be an object of tensor name -> file name");
  std::map<std::string, std::string> map;
  for (const auto& item : index["weight_map"].items()) {
    if (!item.value().is_string())
      model_error("model.safetensors.index.json: the file of \"", item.key(), "\" must be a string (got ",
                  item.value().dump().substr(0, 40), ")");
    map[item.key()] = item.value().get<std::string>();
  }
  return map;
}

// Every tensor the config implies, read from the files' sources a chunk of rows at a time: into w, or (a weight
// matrix, when m is given) straight into m's format; the embedding into both when m makes a tied classifier of it.
void read_weights(const HfArchitecture& arch, const json& config, const ModelConfig& c,
                  const std::vector<SafetensorsFile>& files, const std::string& index_json, Weights& w, Matrices* m) {
  if (files.empty()) model_error("no safetensors file came with config.json");
  const bool sharded = !index_json.empty();
  const std::map<std::string, std::string> weight_map = sharded ? weight_map_of(index_json) : std::map<std::string, std::string>{};
  std::set<std::string> given;
  for (const SafetensorsFile& f : files) given.insert(f.name);
  for (const auto& [tensor, file] : weight_map)
    if (!given.count(file))
      model_error("model.safetensors.index.json: tensor \"", tensor, "\" is in \"", file, "\", which was not given");
  // the stored tensors of every file by name, the architecture's optional prefix taken off
  std::vector<json> headers;
  headers.reserve(files.size());
  std::vector<MemorySource> in_memory;  // the sources of files given as bytes
  in_memory.reserve(files.size());
  std::map<std::string, Stored> stored;
  const std::string prefix = arch.optional_prefix;
  for (const SafetensorsFile& f : files) {
    if (!f.source) in_memory.emplace_back(f.data, f.size);
    const ByteSource& src = f.source ? *f.source : in_memory.back();
    const std::uint64_t size = src.size();
    if (size < 8) model_error(f.name, ": ", size, " bytes is too short for a safetensors file");
    std::uint8_t length[8];
    src.read(0, 8, length);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | length[i];
    if (n > size - 8) model_error(f.name, ": the header length ", n, " runs past the file's end");
    std::vector<std::uint8_t> head(8 + std::size_t(n));
    src.read(0, head.size(), head.data());
    check_safetensors_sizes(head.data(), head.size(), size);
    headers.push_back(parse_unique(std::string(reinterpret_cast<const char*>(head.data()) + 8, std::size_t(n)), (f.name + "'s header").c_str()));
    const json& header = headers.back();
    if (!header.is_object()) model_error(f.name, ": the header must be a JSON object");
    for (const auto& item : header.items()) {
      if (item.key() == "__metadata__") continue;
      if (sharded) {
        const auto mapped = weight_map.find(item.key());
        if (mapped == weight_map.end())
          model_error(f.name, ": tensor \"", item.key(), "\" is not in model.safetensors.index.json's weight_map");
        if (mapped->second != f.name)
          model_error(f.name, ": tensor \"", item.key(), "\" is here but model.safetensors.index.json puts it in \"",
                      mapped->second, "\"");
      }
      const bool prefixed = !prefix.empty() && item.key().rfind(prefix, 0) == 0;
      const std::string name = prefixed ? item.key().substr(prefix.size()) : item.key();
      const auto [at, fresh] = stored.emplace(name, Stored{&item.value(), &src, 8 + n, size - 8 - n, &f.name});
      if (!fresh) model_error("tensor \"", name, "\" is in both \"", *at->second.file, "\" and \"", f.name, "\"");
    }
  }
  // stored name -> its file and byte range
  std::map<std::string, std::tuple<const std::string*, std::uint64_t, std::uint64_t>> used;
  std::vector<float> whole, rows_of;
  std::vector<std::uint8_t> raw;
  for (const TensorSpec& spec : tensor_specs(c)) {
    const Source src = arch.source(config, c, spec.name);
    const auto found = stored.find(src.name);
    if (found == stored.end()) model_error(files.size() == 1 ? files[0].name : "the safetensors files", ": tensor \"", src.name, "\" is missing");
    const std::string& name = src.name;
    const Stored& st = found->second;
    const std::string& file = *st.file;
    const json& e = *st.entry;
    if (!e.is_object()) model_error(file, ": tensor \"", name, "\" must be an object (got ", e.dump().substr(0, 40), ")");
    const std::string dtype = typed<std::string>(e, file, name, "dtype", "a string");
    const std::size_t width = dtype == "F32" ? 4 : (dtype == "F16" || dtype == "BF16") ? 2 : 0;
    if (!width) model_error(file, ": tensor \"", name, "\" has dtype \"", dtype, "\" (read: F32, F16, BF16)");
    const auto shape = typed<std::vector<std::int64_t>>(e, file, name, "shape", "an array of integers");
    const auto range = typed<std::vector<std::uint64_t>>(e, file, name, "data_offsets", "[begin, end], two non-negative integers");
    // the shape lookback's tensor implies for the stored one
    const int N = spec.shape[0], rows = src.rows ? src.rows : N;
    std::vector<std::int64_t> want = {rows};
    if (spec.shape.size() == 2) want = src.transposed ? std::vector<std::int64_t>{spec.shape[1], rows} : std::vector<std::int64_t>{rows, spec.shape[1]};
    if (shape != want)
      model_error(file, ": tensor \"", name, "\" has shape ", json(shape).dump(), " but config.json implies ",
                  json(want).dump());
    std::size_t count = 1;
    for (std::int64_t d : want) count *= std::size_t(d);
    if (range.size() != 2 || range[0] > range[1] || range[1] > st.data_size || range[1] - range[0] != count * width)
      model_error(file, ": tensor \"", name, "\" has data_offsets outside the file or of the wrong size");
    used[name] = {st.file, range[0], range[1]};
    const std::size_t K = spec.shape.size() == 2 ? std::size_t(spec.shape[1]) : 1;
    float* const held = w.find(spec.name) ? w.tensor(spec.name) : nullptr;
    // rows r0 .. r0 + n of lookback's tensor, [n, K] floats: where they are held
    const auto take = [&](int r0, int n, const float* rows) {
      if (held && rows != held + std::size_t(r0) * K) std::copy_n(rows, std::size_t(n) * K, held + std::size_t(r0) * K);
      if (m && m->wants(spec.name)) m->put(spec.name, r0, n, rows);
    };
    const std::uint64_t at = st.data_at + range[0];
    if (!src.transposed) {  // rows first .. first + N of [rows, K], a chunk at a time
      const int chunk = int(std::max<std::size_t>(1, kChunkFloats / K));
      for (int r0 = 0; r0 < N; r0 += chunk) {
        const int n = std::min(chunk, N - r0);
        raw.resize(std::size_t(n) * K * width);
        st.source->read(at + (std::uint64_t(src.first) + std::uint64_t(r0)) * K * width, raw.size(), raw.data());
        float* rows = held ? held + std::size_t(r0) * K : (rows_of.resize(std::size_t(n) * K), rows_of.data());
        read_floats(raw.data(), dtype, std::size_t(n) * K, rows);
        take(r0, n, rows);
      }
      continue;
    }
    raw.resize(count * width);  // [K, rows] -> rows first .. first + N of its transpose
    st.source->read(at, raw.size(), raw.data());
    whole.resize(count);
    read_floats(raw.data(), dtype, count, whole.data());
    rows_of.resize(std::size_t(N) * K);
    for (int r = 0; r < N; ++r)
      for (std::size_t k = 0; k < K; ++k) rows_of[std::size_t(r) * K + k] = whole[k * std::size_t(rows) + std::size_t(src.first + r)];
    take(0, N, rows_of.data());
  }
  for (const auto& [name, st] : stored)
    if (!used.count(name) && !arch.unread(name, c))
      model_error(*st.file, ": tensor \"", name, "\" is not part of a ", arch.name, " model lookback runs "
                  "(quantised weights and other architectures are not read)");
  // no two tensors of a file share a byte (a file whose tensors overlap is damaged or made to mislead)
  std::vector<std::tuple<const std::string*, std::uint64_t, std::uint64_t, std::string>> ranges;
  for (const auto& [name, r] : used) ranges.emplace_back(std::get<0>(r), std::get<1>(r), std::get<2>(r), name);
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) {
    return std::tie(*std::get<0>(a), std::get<1>(a)) < std::tie(*std::get<0>(b), std::get<1>(b));
  });
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (*std::get<0>(ranges[i]) == *std::get<0>(ranges[i - 1]) && std::get<1>(ranges[i]) < std::get<2>(ranges[i - 1]))
      model_error(*std::get<0>(ranges[i]), ": tensors \"", std::get<3>(ranges[i - 1]), "\" and \"", std::get<3>(ranges[i]),
                  "\" overlap (bytes ", std::get<1>(ranges[i]), "..", std::get<2>(ranges[i - 1]), ")");
  w.check_finite();
}

// rope_scaling: none, or Llama 3.1's "llama3" (older files name the type "type", newer "rope_type"); any other
// type is refused by name.
RopeScaling rope_scaling_of(const json& j) {
  RopeScaling s;
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return s;
  const json& r = j["rope_scaling"];
  const json type = r.is_object() ? r.value("rope_type", r.value("type", json())) : json();
  if (type != "llama3")
    model_error("config.json: rope_scaling ", r.dump().substr(0, 80), " is not supported (lookback reads none or "
                "\"rope_type\": \"llama3\")");
  s.type = RopeScaling::Type::llama3;
  s.factor = float_field(r, "factor", -1);
  s.low_freq_factor = float_field(r, "low_freq_factor", -1);
  s.high_freq_factor = float_field(r, "high_freq_factor", -1);
  s.original_context = int_field(r, "original_max_position_embeddings");
  return s;
}

void refuse_true(const json& j, const char* key, const char* why) {
  if (j.contains(key) && j[key].is_boolean() && j[key].get<bool>())
    model_error("config.json: \"", key, "\": true is not supported (", why, ")");
}

// The settings Llama, Qwen2 and Qwen3 share: RMSNorm, rotate-half rotary positions, SwiGLU (silu).
ModelConfig llama_family(const json& j, const char* arch) {
  const std::string act = j.value("hidden_act", "silu");
  if (act != "silu") model_error("config.json: hidden_act \"", act, "\" is not supported (silu only)");
  ModelConfig c;
  c.arch = std::string(arch) + " (Hugging Face)";
  c.dim = int_field(j, "hidden_size");
  c.n_layers = int_field(j, "num_hidden_layers");
  c.n_heads = int_field(j, "num_attention_heads");
  c.n_kv_heads = int_field(j, "num_key_value_heads", c.n_heads);
  c.head_dim = int_field(j, "head_dim", c.n_heads > 0 ? c.dim / c.n_heads : 1);
  c.hidden_dim = int_field(j, "intermediate_size");
  c.vocab_size = int_field(j, "vocab_size");
  c.max_seq_len = int(std::min<long long>(wide_field(j, "max_position_embeddings", kHfMaxContext, std::numeric_limits<long long>::max()), kHfMaxContext));
  c.norm_eps = float_field(j, "rms_norm_eps", 1e-6f);
  c.rope_theta = float_field(j, "rope_theta", 10000.0f);
  c.rope_scaling = rope_scaling_of(j);
  c.rope_layout = RopeLayout::half;
  c.qk_norm = false;
  c.mlp = Mlp::swiglu;
  c.tied_embeddings = j.value("tie_word_embeddings", false);
  c.bos_id = int_field(j, "bos_token_id", 1);
  c.eos_id = int_field(j, "eos_token_id", 2);
  return c;
}

ModelConfig llama_config(const json& j) {
  ModelConfig c = llama_family(j, "llama");
  c.qkv_bias = c.out_bias = j.value("attention_bias", false);  // Llama's attention_bias: q, k, v and o
  c.mlp_bias = j.value("mlp_bias", false);
  return c;
}

ModelConfig qwen2_config(const json& j) {
  refuse_true(j, "use_sliding_window", "every layer attends to the whole context");
  ModelConfig c = llama_family(j, "qwen2");
  c.qkv_bias = true;  // Qwen2's q, k and v projections always carry biases, o none
  return c;
}

ModelConfig qwen3_config(const json& j) {
  refuse_true(j, "use_sliding_window", "every layer attends to the whole context");
  ModelConfig c = llama_family(j, "qwen3");
  c.qk_norm = true;  // RMSNorm of each head's q and k (weights [head_dim]) before the rotary positions
  c.qkv_bias = c.out_bias = j.value("attention_bias", false);
  return c;
}

ModelConfig gpt2_config(const json& j) {
  const std::string act = j.value("activation_function", "gelu_new");
  if (act != "gelu_new" && act != "gelu_pytorch_tanh")
    model_error("config.json: activation_function \"", act, "\" is not supported (gelu_new, gelu_pytorch_tanh)");
  refuse_true(j, "add_cross_attention", "a decoder without an encoder");
  refuse_true(j, "scale_attn_by_inverse_layer_idx", "scores scaled by 1/sqrt(head width) only");
  if (j.contains("scale_attn_weights") && j["scale_attn_weights"] == false)
    model_error("config.json: \"scale_attn_weights\": false is not supported (scores scaled by 1/sqrt(head width))");
  ModelConfig c;
  c.arch = "gpt2 (Hugging Face)";
  c.dim = int_field(j, "n_embd");
  c.n_layers = int_field(j, "n_layer");
  c.n_heads = c.n_kv_heads = int_field(j, "n_head");
  c.head_dim = c.n_heads > 0 ? c.dim / c.n_heads : 1;
  if (c.n_heads > 0 && c.dim % c.n_heads) model_error("config.json: n_embd (", c.dim, ") must be a multiple of n_head (", c.n_heads, ")");
  c.hidden_dim = j.contains("n_inner") && !j["n_inner"].is_null() ? int_field(j, "n_inner") : 4 * c.dim;
  c.vocab_size = int_field(j, "vocab_size");
  c.max_seq_len = int(std::min<long long>(wide_field(j, "n_positions", 1024, kHfMaxContext * 1024LL), kHfMaxContext));
  c.norm_eps = float_field(j, "layer_norm_epsilon", 1e-5f);
  c.norm = Norm::layer;
  c.positions = Positions::learned;
  c.qk_norm = false;
  c.mlp = Mlp::gelu_tanh;
  c.qkv_bias = c.out_bias = c.mlp_bias = true;
  c.tied_embeddings = j.value("tie_word_embeddings", true);
  if (!c.tied_embeddings) model_error("config.json: \"tie_word_embeddings\": false is not supported for GPT-2 (its head is wte)");
  c.bos_id = int_field(j, "bos_token_id", 50256);
  c.eos_id = int_field(j, "eos_token_id", 50256);
  return c;
}

// layers.{l}.<rest> -> {l, rest}; l = -1 for the tensors outside the layers
std::pair<int, std::string> split_layer(const std::string& name) {
  const auto [layer, rest] = split_layer_name(name, "layers.");
  if (layer.empty()) return {-1, name};
  return {std::stoi(layer), rest};
}

Source llama_source(const json&, const ModelConfig&, const std::string& ours) { return {hf_llama_tensor_name(ours)}; }

bool llama_unread(const std::string& theirs, const ModelConfig& c) {
  return theirs.find("rotary_emb.inv_freq") != std::string::npos || (c.tied_embeddings && theirs == "lm_head.weight");
}

// GPT-2: Conv1D weights stored [in, out]; q, k and v are the thirds of c_attn's outputs (and of its bias).
Source gpt2_source(const json& j, const ModelConfig& c, const std::string& ours) {
  const auto [l, rest] = split_layer(ours);
  const int C = c.dim;
  if (l < 0) {
    if (ours == "tok_embeddings.weight") return {"wte.weight"};
    if (ours == "pos_embeddings.weight") return {"wpe.weight", 0, int(wide_field(j, "n_positions", 1024, kHfMaxContext * 1024LL))};
    if (ours == "norm.weight") return {"ln_f.weight"};
    if (ours == "norm.bias") return {"ln_f.bias"};
  }
  const std::string h = "h." + std::to_string(l) + ".";
  static const NamePair kPlain[] = {
      {"attention_norm.weight", "ln_1.weight"}, {"attention_norm.bias", "ln_1.bias"},
      {"ffn_norm.weight", "ln_2.weight"},       {"ffn_norm.bias", "ln_2.bias"},
      {"attention.wo.bias", "attn.c_proj.bias"}, {"feed_forward.w1.bias", "mlp.c_fc.bias"},
      {"feed_forward.w2.bias", "mlp.c_proj.bias"}};
  if (const char* theirs = look_up(kPlain, rest)) return {h + theirs};
  if (rest == "attention.wo.weight") return {h + "attn.c_proj.weight", 0, 0, true};
  if (rest == "feed_forward.w1.weight") return {h + "mlp.c_fc.weight", 0, 0, true};
  if (rest == "feed_forward.w2.weight") return {h + "mlp.c_proj.weight", 0, 0, true};
  const char* parts[] = {"attention.wq.", "attention.wk.", "attention.wv."};
  for (int i = 0; i < 3; ++i)
    if (rest.rfind(parts[i], 0) == 0) {
      const bool weight = rest.substr(13) == "weight";
      return {h + "attn.c_attn." + rest.substr(13), i * C, 3 * C, weight};
    }
  model_error("no GPT-2 name for tensor \"", ours, "\"");
}

// GPT-2 checkpoints may keep the causal mask buffers (attn.bias, attn.masked_bias) and the tied head.
bool gpt2_unread(const std::string& theirs, const ModelConfig&) {
  const auto ends = [&](const char* s) {
    const std::size_t n = std::strlen(s);
    return theirs.size() >= n && theirs.compare(theirs.size() - n, n, s) == 0;
  };
  return theirs == "lm_head.weight" || ends(".attn.bias") || ends(".attn.masked_bias");
}

const HfArchitecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama", llama_config, llama_source, llama_unread, ""},
    {"Qwen2ForCausalLM", "qwen2", qwen2_config, llama_source, llama_unread, ""},
    {"Qwen3ForCausalLM", "qwen3", qwen3_config, llama_source, llama_unread, ""},
    {"GPT2LMHeadModel", "gpt2", gpt2_config, gpt2_source, gpt2_unread, "transformer."},
};

const HfArchitecture& architecture_of(const json& j) {
  const json arch = j.value("architectures", json::array());
  std::string names;
  for (const HfArchitecture& a : kArchitectures) {
    const bool named = arch.is_array() && std::find(arch.begin(), arch.end(), a.name) != arch.end();
    if (named || (!j.contains("architectures") && j.value("model_type", "") == a.model_type)) return a;
    names += std::string(names.empty() ? "" : ", ") + a.name;
  }
  model_error("config.json: architectures ", arch.dump().substr(0, 80), " (model_type \"", j.value("model_type", ""),
              "\"); of the Hugging Face formats lookback reads ", names);
}

ModelConfig config_of(const json& j, const HfArchitecture& a) {
  ModelConfig c = a.config(j);
  validate_config(c);
  return c;
}

}  // namespace

bool is_hf_config(const std::string& config_json) {
  check_json_depth(config_json, "config.json");
  json j;
  try {
    j = json::parse(config_json);
  } catch (const json::exception&) {
    return false;
  }
  return j.is_object() && (j.contains("architectures") || j.contains("model_type"));
}

ModelConfig hf_config(const std::string& config_json) {
  const json j = parse(config_json, "config.json");
  if (!j.is_object()) model_error("config.json must be a JSON object");
  return config_of(j, architecture_of(j));
}

std::string hf_architecture_names() {
  std::string names;
  for (std::size_t i = 0; i < std::size(kArchitectures); ++i)
    names += std::string(i == 0 ? "" : i + 1 == std::size(kArchitectures) ? " or " : ", ") + kArchitectures[i].name;
  return names;
}

std::string hf_llama_tensor_name(const std::string& name) {
  static const NamePair kLayer[] = {
      {"attention_norm.weight", "input_layernorm.weight"},
      {"attention.wq.weight", "self_attn.q_proj.weight"},
      {"attention.wk.weight", "self_attn.k_proj.weight"},
      {"attention.wv.weight", "self_attn.v_proj.weight"},
      {"attention.wq.bias", "self_attn.q_proj.bias"},
      {"attention.wk.bias", "self_attn.k_proj.bias"},
      {"attention.wv.bias", "self_attn.v_proj.bias"},
      {"attention.q_norm.weight", "self_attn.q_norm.weight"},
      {"attention.k_norm.weight", "self_attn.k_norm.weight"},
      {"attention.wo.weight", "self_attn.o_proj.weight"},
      {"attention.wo.bias", "self_attn.o_proj.bias"},
      {"ffn_norm.weight", "post_attention_layernorm.weight"},
      {"feed_forward.w1.weight", "mlp.gate_proj.weight"},
      {"feed_forward.w3.weight", "mlp.up_proj.weight"},
      {"feed_forward.w2.weight", "mlp.down_proj.weight"},
      {"feed_forward.w1.bias", "mlp.gate_proj.bias"},
      {"feed_forward.w3.bias", "mlp.up_proj.bias"},
      {"feed_forward.w2.bias", "mlp.down_proj.bias"},
  };
  if (name == "tok_embeddings.weight") return "model.embed_tokens.weight";
  if (name == "norm.weight") return "model.norm.weight";
  if (name == "output.weight") return "lm_head.weight";
  const auto [layer, rest] = split_layer_name(name, "layers.");
  if (const char* theirs = layer.empty() ? nullptr : look_up(kLayer, rest)) return "model.layers." + layer + "." + theirs;
  model_error("no Hugging Face Llama name for tensor \"", name, "\"");
}

LoadedModel load_hf_model(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                          const std::string& tokenizer_json, WeightFormat format) {
  return load_hf_model({{"model.safetensors", safetensors, size}}, "", config_json, tokenizer_json, format, 0);
}

LoadedModel load_hf_model(const std::vector<SafetensorsFile>& files, const std::string& index_json,
                          const std::string& config_json, const std::string& tokenizer_json, WeightFormat format,
                          std::size_t memory) {
  const json j = parse(config_json, "config.json");
  if (!j.is_object()) model_error("config.json must be a JSON object");
  const HfArchitecture& arch = architecture_of(j);
  const ModelConfig c = config_of(j, arch);
  std::shared_ptr<const Tokenizer> tok =
      std::make_shared<HfBpeTokenizer>(tokenizer_json, c.vocab_size, c.bos_id, c.eos_id);
  check_model_fits(c, format, memory);
  // float32 matrices are read where the forward pass reads them (the weights' buffer); compact ones straight
  // into their format, so no full float32 copy of them is ever made
  Weights w(c, format == WeightFormat::f32);
  std::optional<Matrices> m;
  if (format != WeightFormat::f32) m.emplace(w, format, Matrices::Parts{});
  read_weights(arch, j, c, files, index_json, w, m ? &*m : nullptr);
  auto model = m ? std::make_shared<const Transformer>(std::move(w), std::move(*m))
                 : std::make_shared<const Transformer>(std::move(w), format);
  return {std::move(model), std::move(tok)};
}

}  // namespace lookback
