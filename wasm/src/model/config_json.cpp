// config.json reading and writing with nlohmann/json, plus the validation of a ModelConfig.
// Not here: tensor names and shapes (weights.cpp).
#include "model/config_json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "model/errors.hpp"

namespace lookback {
namespace {

using nlohmann::json;

// Upper bounds that keep a corrupt or hostile config from asking for absurd memory.
constexpr long kMaxWidth = 1 << 16, kMaxLayers = 1024, kMaxHeads = 1024, kMaxVocab = 1 << 20,
               kMaxContext = 1 << 16;
constexpr double kMaxParameters = double(1u << 29);  // 2 GiB of float32

void check_range(const char* field, long v, long lo, long hi) {
  if (v < lo || v > hi) model_error("config: ", field, " must be in [", lo, ", ", hi, "] (got ", v, ")");
}

int get_int(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) model_error("config.json: \"", key, "\" must be an integer (got ", v.dump(), ")");
  const auto x = v.get<long long>();
  if (x < -(1ll << 31) || x > (1ll << 31) - 1) model_error("config.json: \"", key, "\" is out of range (", x, ")");
  return int(x);
}

float get_float(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number()) model_error("config.json: \"", key, "\" must be a number (got ", v.dump(), ")");
  return v.get<float>();
}

bool get_bool(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_boolean()) model_error("config.json: \"", key, "\" must be true or false (got ", v.dump(), ")");
  return v.get<bool>();
}

std::string get_string(const json& j, const char* key, std::initializer_list<const char*> allowed = {}) {
  const json& v = j.at(key);
  if (!v.is_string()) model_error("config.json: \"", key, "\" must be a string (got ", v.dump(), ")");
  std::string s = v.get<std::string>();
  if (allowed.size() == 0) return s;
  std::string list;  // "a", "b" or "c"
  std::size_t i = 0;
  for (const char* a : allowed) {
    if (s == a) return s;
    list += std::string(i == 0 ? "\"" : i + 1 == allowed.size() ? " or \"" : ", \"") + a + "\"";
    ++i;
  }
  model_error("config.json: \"", key, "\" must be ", list, " (got \"", s, "\")");
}

// The shortest decimal that reads back as the same float (1e-05, not 9.999999747378752e-06).
double short_decimal(float x) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(x));
    if (std::strtof(buf, nullptr) == x) break;
  }
  return std::strtod(buf, nullptr);
}

}  // namespace

std::size_t parameter_count(const ModelConfig& c) {
  const double C = c.dim, HD = double(c.n_heads) * c.head_dim, KD = double(c.n_kv_heads) * c.head_dim,
               F = c.hidden_dim, V = c.vocab_size;
  const double norms = c.norm == Norm::layer ? 2 : 1, F13 = (c.mlp == Mlp::swiglu ? 2 : 1) * F;
  const double per_layer = 2 * norms * C + HD * C + 2 * KD * C + C * HD + (c.qk_norm ? 2.0 * c.head_dim : 0.0) +
                           F13 * C + F * C + (c.qkv_bias ? HD + 2 * KD : 0.0) + (c.out_bias ? C : 0.0) +
                           (c.mlp_bias ? F13 + C : 0.0);
  const double positions = c.positions == Positions::learned ? double(c.max_seq_len) * C : 0.0;
  const double total = V * C + positions + c.n_layers * per_layer + norms * C + (c.tied_embeddings ? 0 : V * C);
  return total > kMaxParameters ? std::size_t(-1) : std::size_t(total);
}

void validate_config(const ModelConfig& c) {
  check_range("dim", c.dim, 1, kMaxWidth);
  check_range("n_layers", c.n_layers, 1, kMaxLayers);
  check_range("n_heads", c.n_heads, 1, kMaxHeads);
  check_range("n_kv_heads", c.n_kv_heads, 1, c.n_heads);
  if (c.n_heads % c.n_kv_heads)
    model_error("config: n_kv_heads (", c.n_kv_heads, ") must divide n_heads (", c.n_heads, ")");
  check_range("head_dim", c.head_dim, 2, kMaxWidth);
  if (c.positions == Positions::rope && c.head_dim % 2)
    model_error("config: head_dim must be even for rotary positions (got ", c.head_dim, ")");
  const RopeScaling& rs = c.rope_scaling;
  if (rs.type == RopeScaling::Type::llama3 &&
      !(std::isfinite(rs.factor) && rs.factor >= 1 && std::isfinite(rs.low_freq_factor) && rs.low_freq_factor > 0 &&
        std::isfinite(rs.high_freq_factor) && rs.high_freq_factor > rs.low_freq_factor && rs.original_context > 0))
    model_error("config: rope_scaling llama3 needs factor >= 1, 0 < low_freq_factor < high_freq_factor and "
                "original_context > 0 (got factor ", rs.factor, ", low_freq_factor ", rs.low_freq_factor,
                ", high_freq_factor ", rs.high_freq_factor, ", original_context ", rs.original_context, ")");
  if (long(c.n_heads) * c.head_dim > kMaxWidth)
    model_error("config: n_heads * head_dim (", long(c.n_heads) * c.head_dim, ") exceeds ", kMaxWidth);
  check_range("hidden_dim", c.hidden_dim, 1, kMaxWidth);
  check_range("vocab_size", c.vocab_size, 1, kMaxVocab);
  check_range("max_seq_len", c.max_seq_len, 1, kMaxContext);
  check_range("bos_id", c.bos_id, 0, c.vocab_size - 1);
  check_range("eos_id", c.eos_id, 0, c.vocab_size - 1);
  if (!(std::isfinite(c.norm_eps) && c.norm_eps > 0)) model_error("config: norm_eps must be a positive number");
  if (!(std::isfinite(c.rope_theta) && c.rope_theta > 0)) model_error("config: rope_theta must be a positive number");
  if (parameter_count(c) == std::size_t(-1))
    model_error("config: the weights would need more than ", std::size_t(kMaxParameters), " floats");
  if (double(c.n_layers) * c.max_seq_len * c.n_kv_heads * c.head_dim * 2 > kMaxParameters)
    model_error("config: the key/value cache (n_layers * max_seq_len * n_kv_heads * head_dim * 2) is too large");
}

ModelConfig config_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // syntax errors, and numbers beyond double range
    model_error("config.json is not well-formed JSON: ", e.what());
  }
  if (!j.is_object()) model_error("config.json must hold a JSON object");
  static const std::set<std::string> required = {"dim", "n_layers", "n_heads", "n_kv_heads", "head_dim",
                                                 "hidden_dim", "vocab_size", "max_seq_len", "rope_layout",
                                                 "qk_norm", "mlp", "tied_embeddings"};
  static const std::set<std::string> optional = {"arch",     "norm_eps", "rope_theta", "bos_id",   "eos_id",
                                                 "norm",     "positions", "rope_scaling", "qkv_bias", "out_bias",
                                                 "mlp_bias"};
  for (const auto& item : j.items())
    if (!required.count(item.key()) && !optional.count(item.key()))
      model_error("config.json: unknown key \"", item.key(), "\"");
  for (const auto& key : required)
    if (!j.contains(key)) model_error("config.json: missing key \"", key, "\"");
  ModelConfig c;
  if (j.contains("arch")) c.arch = get_string(j, "arch");
  c.dim = get_int(j, "dim");
  c.n_layers = get_int(j, "n_layers");
  c.n_heads = get_int(j, "n_heads");
  c.n_kv_heads = get_int(j, "n_kv_heads");
  c.head_dim = get_int(j, "head_dim");
  c.hidden_dim = get_int(j, "hidden_dim");
  c.vocab_size = get_int(j, "vocab_size");
  c.max_seq_len = get_int(j, "max_seq_len");
  if (j.contains("norm_eps")) c.norm_eps = get_float(j, "norm_eps");
  if (j.contains("rope_theta")) c.rope_theta = get_float(j, "rope_theta");
  c.rope_layout = get_string(j, "rope_layout", {"adjacent", "half"}) == "half" ? RopeLayout::half : RopeLayout::adjacent;
  c.qk_norm = get_bool(j, "qk_norm");
  const std::string mlp = get_string(j, "mlp", {"swiglu", "gelu", "gelu_tanh"});
  c.mlp = mlp == "gelu" ? Mlp::gelu : mlp == "gelu_tanh" ? Mlp::gelu_tanh : Mlp::swiglu;
  if (j.contains("norm")) c.norm = get_string(j, "norm", {"rms", "layer"}) == "layer" ? Norm::layer : Norm::rms;
  if (j.contains("positions"))
    c.positions = get_string(j, "positions", {"rope", "learned"}) == "learned" ? Positions::learned : Positions::rope;
  if (j.contains("qkv_bias")) c.qkv_bias = get_bool(j, "qkv_bias");
  if (j.contains("out_bias")) c.out_bias = get_bool(j, "out_bias");
  if (j.contains("mlp_bias")) c.mlp_bias = get_bool(j, "mlp_bias");
  if (j.contains("rope_scaling")) {
    const json& r = j["rope_scaling"];
    if (!r.is_object()) model_error("config.json: \"rope_scaling\" must be an object (got ", r.dump(), ")");
    static const std::set<std::string> keys = {"type", "factor", "low_freq_factor", "high_freq_factor", "original_context"};
    for (const auto& item : r.items())
      if (!keys.count(item.key())) model_error("config.json: unknown key \"rope_scaling.", item.key(), "\"");
    for (const auto& key : keys)
      if (!r.contains(key)) model_error("config.json: missing key \"rope_scaling.", key, "\"");
    get_string(r, "type", {"llama3"});
    c.rope_scaling.type = RopeScaling::Type::llama3;
    c.rope_scaling.factor = get_float(r, "factor");
    c.rope_scaling.low_freq_factor = get_float(r, "low_freq_factor");
    c.rope_scaling.high_freq_factor = get_float(r, "high_freq_factor");
    c.rope_scaling.original_context = get_int(r, "original_context");
  }
  c.tied_embeddings = get_bool(j, "tied_embeddings");
  if (j.contains("bos_id")) c.bos_id = get_int(j, "bos_id");
  if (j.contains("eos_id")) c.eos_id = get_int(j, "eos_id");
  validate_config(c);
  return c;
}

std::string config_to_json(const ModelConfig& c) {
  json j = json::object();
  j["arch"] = c.arch;
  j["dim"] = c.dim;
  j["n_layers"] = c.n_layers;
  j["n_heads"] = c.n_heads;
  j["n_kv_heads"] = c.n_kv_heads;
  j["head_dim"] = c.head_dim;
  j["hidden_dim"] = c.hidden_dim;
  j["vocab_size"] = c.vocab_size;
  j["max_seq_len"] = c.max_seq_len;
  j["norm_eps"] = short_decimal(c.norm_eps);
  j["rope_theta"] = short_decimal(c.rope_theta);
  j["rope_layout"] = c.rope_layout == RopeLayout::half ? "half" : "adjacent";
  j["qk_norm"] = c.qk_norm;
  j["mlp"] = c.mlp == Mlp::gelu ? "gelu" : c.mlp == Mlp::gelu_tanh ? "gelu_tanh" : "swiglu";
  j["tied_embeddings"] = c.tied_embeddings;
  j["bos_id"] = c.bos_id;
  j["eos_id"] = c.eos_id;
  if (c.norm != Norm::rms) j["norm"] = "layer";
  if (c.positions != Positions::rope) j["positions"] = "learned";
  if (c.rope_scaling.type == RopeScaling::Type::llama3)
    j["rope_scaling"] = {{"type", "llama3"},
                         {"factor", short_decimal(c.rope_scaling.factor)},
                         {"low_freq_factor", short_decimal(c.rope_scaling.low_freq_factor)},
                         {"high_freq_factor", short_decimal(c.rope_scaling.high_freq_factor)},
                         {"original_context", c.rope_scaling.original_context}};
  if (c.qkv_bias) j["qkv_bias"] = true;
  if (c.out_bias) j["out_bias"] = true;
  if (c.mlp_bias) j["mlp_bias"] = true;
  return j.dump(2) + "\n";
}

}  // namespace lookback
