// The window model's forward pass: gather the W embeddings, hidden GELU layer, classifier (see window_model.hpp).
#include "model/window_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "lookback/nn.hpp"
#include "model/errors.hpp"
#include "model/json_depth.hpp"
#include "model/safetensors.hpp"

namespace lookback {
namespace {

int field(const nlohmann::json& j, const char* name, int lo, int hi) {
  if (!j.contains(name) || !j[name].is_number_integer()) model_error("window config.json: \"", name, "\" must be an integer");
  const long long v = j[name].get<long long>();
  if (v < lo || v > hi) model_error("window config.json: \"", name, "\" must be in [", lo, ", ", hi, "] (got ", v, ")");
  return int(v);
}

// A string field, or `fallback` when absent; ModelError when it is not a string (nlohmann's value() would throw
// its own type_error).
std::string text_field(const nlohmann::json& j, const char* name, const char* fallback) {
  if (!j.contains(name)) return fallback;
  if (!j[name].is_string()) model_error("window config.json: \"", name, "\" must be a string");
  return j[name].get<std::string>();
}

std::vector<float> tensor(const std::uint8_t* bytes, const SafetensorsHeader& h, const std::string& name,
                          std::vector<std::int64_t> shape) {
  const SafetensorsEntry* e = h.find(name);
  if (!e) model_error("window model: tensor \"", name, "\" is missing");
  if (e->shape != shape) model_error("window model: tensor \"", name, "\" has the wrong shape");
  std::vector<float> v(e->count());
  read_tensor(bytes, h, *e, v.data());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) model_error("window model: tensor \"", name, "\" has a non-finite value at index ", i);
  return v;
}

}  // namespace

WindowModelConfig window_config_from_json(const std::string& text) {
  check_json_depth(text, "window config.json");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    model_error("window config.json is not valid JSON: ", e.what());
  }
  if (!j.is_object() || text_field(j, "arch", "") != "window") model_error("window config.json: \"arch\" must be \"window\"");
  if (text_field(j, "activation", "gelu") != "gelu") model_error("window config.json: only \"activation\": \"gelu\" is supported");
  WindowModelConfig c;
  c.window = field(j, "window", 1, 64);
  c.embed_dim = field(j, "embed_dim", 1, 4096);
  c.hidden_dim = field(j, "hidden_dim", 1, 16384);
  c.vocab_size = field(j, "vocab_size", 2, 1 << 20);
  c.bos_id = j.contains("bos_id") ? field(j, "bos_id", 0, c.vocab_size - 1) : 0;
  c.eos_id = j.contains("eos_id") ? field(j, "eos_id", 0, c.vocab_size - 1) : 1;
  return c;
}

WindowModel::WindowModel(const std::uint8_t* bytes, std::size_t size, const std::string& config_json)
    : c_(window_config_from_json(config_json)) {
  const SafetensorsHeader h = read_safetensors_header(bytes, size);
  const std::int64_t V = c_.vocab_size, E = c_.embed_dim, N = c_.hidden_dim, I = std::int64_t(c_.window) * E;
  if (h.tensors.size() != 5) model_error("window model: expected 5 tensors, found ", h.tensors.size());
  embed_ = tensor(bytes, h, "embed.weight", {V, E});
  hidden_w_ = tensor(bytes, h, "hidden.weight", {N, I});
  hidden_b_ = tensor(bytes, h, "hidden.bias", {N});
  out_w_ = tensor(bytes, h, "out.weight", {V, N});
  out_b_ = tensor(bytes, h, "out.bias", {V});
}

std::vector<int> WindowModel::window_at(const std::vector<int>& ids, int t) const {
  std::vector<int> w(c_.window);
  for (int j = 0; j < c_.window; ++j) {
    const int pos = t - (c_.window - 1) + j;
    w[j] = pos < 0 ? c_.bos_id : ids[pos];
  }
  return w;
}

std::vector<float> WindowModel::logits(const std::vector<int>& ids) const {
  const int T = int(ids.size()), E = c_.embed_dim, N = c_.hidden_dim, V = c_.vocab_size, I = c_.window * E;
  for (int t = 0; t < T; ++t)
    if (ids[t] < 0 || ids[t] >= V) model_error("window model: token id ", ids[t], " at position ", t, " is outside [0, ", V, ")");
  std::vector<float> x(std::size_t(T) * I), h(std::size_t(T) * N), out(std::size_t(T) * V);  // x: [T, W*E]
  for (int t = 0; t < T; ++t) {
    const std::vector<int> w = window_at(ids, t);
    for (int j = 0; j < c_.window; ++j)
      std::memcpy(x.data() + std::size_t(t) * I + j * E, embed_.data() + std::size_t(w[j]) * E, sizeof(float) * E);
  }
  for (int t = 0; t < T; ++t) std::memcpy(h.data() + std::size_t(t) * N, hidden_b_.data(), sizeof(float) * N);
  linear(x.data(), T, I, hidden_w_.data(), N, h.data(), true);  // h: [T, N]
  gelu(h.data(), h.data(), T * N);
  for (int t = 0; t < T; ++t) std::memcpy(out.data() + std::size_t(t) * V, out_b_.data(), sizeof(float) * V);
  linear(h.data(), T, N, out_w_.data(), V, out.data(), true);  // out: [T, V]
  return out;
}

double WindowModel::loss(const std::vector<int>& ids) const {
  if (ids.size() < 2) model_error("window model: loss needs at least two tokens");
  const std::vector<float> z = logits(ids);
  const int V = c_.vocab_size;
  double total = 0;
  for (std::size_t t = 0; t + 1 < ids.size(); ++t) {
    const float* row = z.data() + t * V;
    const float mx = *std::max_element(row, row + V);
    double sum = 0;
    for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
    total += std::log(sum) + mx - row[ids[t + 1]];
  }
  return total / double(ids.size() - 1);
}

}  // namespace lookback
