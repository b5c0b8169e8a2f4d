// The Hugging Face Llama reader: config mapping, tensor names, and F32/F16/BF16 safetensors data.
// Not here: the tokenizer (hf_tokenizer.cpp), lookback's own safetensors reader (safetensors.cpp).
#include "model/hf_llama.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "base/fp16.hpp"
#include "model/hf_tokenizer.hpp"
#include "model/json_depth.hpp"
#include "model/safetensors_sizes.hpp"
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
    model_error("config.json (Hugging Face Llama): missing \"", key, "\"");
  }
  const json& v = j[key].is_array() && !j[key].empty() ? j[key][0] : j[key];  // eos_token_id may be a list
  if (!v.is_number_integer())
    model_error("config.json (Hugging Face Llama): \"", key, "\" must be an integer (got ", v.dump().substr(0, 40), ")");
  const bool negative = v.is_number_integer() && !v.is_number_unsigned() && v.get<long long>() < 0;
  if (negative || v.get<unsigned long long>() > static_cast<unsigned long long>(most))
    model_error("config.json (Hugging Face Llama): \"", key, "\" is ", v.dump(), "; it must be an integer in [0, ", most, "]");
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
T typed(const json& e, const std::string& name, const char* key, const char* expected) {
  if (!e.contains(key)) model_error("model.safetensors: tensor \"", name, "\" has no \"", key, "\"");
  try {
    return e[key].get<T>();
  } catch (const json::exception&) {
    model_error("model.safetensors: tensor \"", name, "\": \"", key, "\" must be ", expected, " (got ",
                e[key].dump().substr(0, 40), ")");
  }
}

int int_field(const json& j, const char* key, int fallback = -1) {
  return int(wide_field(j, key, fallback, std::numeric_limits<int>::max()));
}

float float_field(const json& j, const char* key, float fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number()) model_error("config.json (Hugging Face Llama): \"", key, "\" must be a number");
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

Weights read_weights(const ModelConfig& c, const std::uint8_t* bytes, std::size_t size) {
  if (size < 8) model_error("model.safetensors: ", size, " bytes is too short for a safetensors file");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > size - 8) model_error("model.safetensors: the header length ", n, " runs past the file's end");
  check_safetensors_sizes(bytes, size);
  const json header = parse_unique(std::string(reinterpret_cast<const char*>(bytes) + 8, n), "model.safetensors' header");
  if (!header.is_object()) model_error("model.safetensors: the header must be a JSON object");
  const std::uint8_t* data = bytes + 8 + n;
  const std::size_t data_size = size - 8 - n;
  Weights w(c);
  std::map<std::string, std::string> wanted;  // their name -> ours
  for (const TensorSpec& s : w.specs()) wanted[hf_llama_tensor_name(s.name)] = s.name;
  std::set<std::string> seen;
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> ranges;  // [begin, end) and name of each tensor read
  for (const auto& item : header.items()) {
    const std::string& name = item.key();
    const json& e = item.value();
    if (name == "__metadata__") continue;
    if (!wanted.count(name)) {
      if (name.find("rotary_emb.inv_freq") != std::string::npos || (c.tied_embeddings && name == "lm_head.weight")) continue;
      model_error("model.safetensors: tensor \"", name, "\" is not part of a Llama model lookback runs (biases, "
                  "other architectures and quantised weights are not read)");
    }
    if (!e.is_object()) model_error("model.safetensors: tensor \"", name, "\" must be an object (got ", e.dump().substr(0, 40), ")");
    const std::string dtype = typed<std::string>(e, name, "dtype", "a string");
    const std::size_t width = dtype == "F32" ? 4 : (dtype == "F16" || dtype == "BF16") ? 2 : 0;
    if (!width) model_error("model.safetensors: tensor \"", name, "\" has dtype \"", dtype, "\" (read: F32, F16, BF16)");
    const auto shape = typed<std::vector<std::int64_t>>(e, name, "shape", "an array of integers");
    const auto range = typed<std::vector<std::uint64_t>>(e, name, "data_offsets", "[begin, end], two non-negative integers");
    const std::string& ours = wanted[name];
    const TensorSpec* spec = w.find(ours);
    if (!std::equal(shape.begin(), shape.end(), spec->shape.begin(), spec->shape.end()))
      model_error("model.safetensors: tensor \"", name, "\" has shape ", json(shape).dump(), " but config.json implies ",
                  json(spec->shape).dump());
    if (range.size() != 2 || range[0] > range[1] || range[1] > data_size || range[1] - range[0] != spec->size() * width)
      model_error("model.safetensors: tensor \"", name, "\" has data_offsets outside the file or of the wrong size");
    read_floats(data + range[0], dtype, spec->size(), w.tensor(ours));
    seen.insert(name);
    ranges.emplace_back(range[0], range[1], name);
  }
  // no two tensors share a byte (a file whose tensors overlap is damaged or made to mislead)
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (std::get<0>(ranges[i]) < std::get<1>(ranges[i - 1]))
      model_error("model.safetensors: tensors \"", std::get<2>(ranges[i - 1]), "\" and \"", std::get<2>(ranges[i]),
                  "\" overlap (bytes ", std::get<0>(ranges[i]), "..", std::get<1>(ranges[i - 1]), ")");
  for (const auto& [name, ours] : wanted)
    if (!seen.count(name)) model_error("model.safetensors: tensor \"", name, "\" is missing (sharded checkpoints are not read)");
  w.check_finite();
  return w;
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

ModelConfig hf_llama_config(const std::string& config_json) {
  const json j = parse(config_json, "config.json");
  const json arch = j.value("architectures", json::array());
  const bool llama = (arch.is_array() && std::find(arch.begin(), arch.end(), "LlamaForCausalLM") != arch.end()) ||
                     (!j.contains("architectures") && j.value("model_type", "") == "llama");
  if (!llama)
    model_error("config.json: architectures ", arch.dump(), " (model_type \"", j.value("model_type", ""),
                "\"); of the Hugging Face formats lookback reads LlamaForCausalLM");
  if (j.contains("rope_scaling") && !j["rope_scaling"].is_null())
    model_error("config.json: rope_scaling ", j["rope_scaling"].dump(), " is not supported (plain rotary positions only)");
  for (const char* bias : {"attention_bias", "mlp_bias"})
    if (j.value(bias, false)) model_error("config.json: \"", bias, "\": true is not supported (Llama without biases only)");
  if (j.value("hidden_act", "silu") != "silu")
    model_error("config.json: hidden_act \"", j.value("hidden_act", ""), "\" is not supported (silu only)");
  ModelConfig c;
  c.arch = "llama (Hugging Face)";
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
  c.rope_layout = RopeLayout::half;
  c.qk_norm = false;
  c.mlp = Mlp::swiglu;
  c.tied_embeddings = j.value("tie_word_embeddings", false);
  c.bos_id = int_field(j, "bos_token_id", 1);
  c.eos_id = int_field(j, "eos_token_id", 2);
  validate_config(c);
  return c;
}

std::string hf_llama_tensor_name(const std::string& name) {
  static const std::pair<const char*, const char*> kLayer[] = {
      {"attention_norm.weight", "input_layernorm.weight"},
      {"attention.wq.weight", "self_attn.q_proj.weight"},
      {"attention.wk.weight", "self_attn.k_proj.weight"},
      {"attention.wv.weight", "self_attn.v_proj.weight"},
      {"attention.wo.weight", "self_attn.o_proj.weight"},
      {"ffn_norm.weight", "post_attention_layernorm.weight"},
      {"feed_forward.w1.weight", "mlp.gate_proj.weight"},
      {"feed_forward.w3.weight", "mlp.up_proj.weight"},
      {"feed_forward.w2.weight", "mlp.down_proj.weight"},
  };
  if (name == "tok_embeddings.weight") return "model.embed_tokens.weight";
  if (name == "norm.weight") return "model.norm.weight";
  if (name == "output.weight") return "lm_head.weight";
  if (name.rfind("layers.", 0) == 0) {
    const std::size_t dot = name.find('.', 7);
    const std::string rest = name.substr(dot + 1);
    for (const auto& [ours, theirs] : kLayer)
      if (rest == ours) return "model." + name.substr(0, dot + 1) + theirs;
  }
  model_error("no Hugging Face Llama name for tensor \"", name, "\"");
}

LoadedModel load_hf_llama(const std::uint8_t* safetensors, std::size_t size, const std::string& config_json,
                          const std::string& tokenizer_json, WeightFormat format) {
  const ModelConfig c = hf_llama_config(config_json);
  std::shared_ptr<const Tokenizer> tok =
      std::make_shared<HfByteBpeTokenizer>(tokenizer_json, c.vocab_size, c.bos_id, c.eos_id);
  auto model = std::make_shared<const Transformer>(read_weights(c, safetensors, size), format);
  return {std::move(model), std::move(tok)};
}

}  // namespace lookback
