// The weight buffer's layout (tensor_specs), lookups by name and role, the finiteness check, and seeded
// random weights. Not here: file formats.
#include "model/weights.hpp"

#include <cmath>
#include <cstring>
#include <iterator>
#include <sstream>

#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/rng.hpp"

namespace lookback {

std::size_t TensorSpec::size() const {
  std::size_t n = 1;
  for (int d : shape) n *= std::size_t(d);
  return n;
}

std::vector<TensorSpec> tensor_specs(const ModelConfig& c) {
  const int C = c.dim, HD = c.n_heads * c.head_dim, KD = c.n_kv_heads * c.head_dim, F = c.hidden_dim;
  const bool layer_norm = c.norm == Norm::layer, swiglu = c.mlp == Mlp::swiglu;
  std::vector<TensorSpec> specs;
  std::size_t offset = 0;
  auto add = [&](std::string name, std::vector<int> shape) {
    specs.push_back({std::move(name), std::move(shape), offset});
    offset += specs.back().size();
  };
  add("tok_embeddings.weight", {c.vocab_size, C});
  if (c.positions == Positions::learned) add("pos_embeddings.weight", {c.max_seq_len, C});
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    add(p + "attention_norm.weight", {C});
    if (layer_norm) add(p + "attention_norm.bias", {C});
    add(p + "attention.wq.weight", {HD, C});
    add(p + "attention.wk.weight", {KD, C});
    add(p + "attention.wv.weight", {KD, C});
    if (c.qkv_bias) {
      add(p + "attention.wq.bias", {HD});
      add(p + "attention.wk.bias", {KD});
      add(p + "attention.wv.bias", {KD});
    }
    if (c.qk_norm) {
      add(p + "attention.q_norm.weight", {c.head_dim});
      add(p + "attention.k_norm.weight", {c.head_dim});
    }
    add(p + "attention.wo.weight", {C, HD});
    if (c.out_bias) add(p + "attention.wo.bias", {C});
    add(p + "ffn_norm.weight", {C});
    if (layer_norm) add(p + "ffn_norm.bias", {C});
    add(p + "feed_forward.w1.weight", {F, C});
    if (swiglu) add(p + "feed_forward.w3.weight", {F, C});
    if (c.mlp_bias) {
      add(p + "feed_forward.w1.bias", {F});
      if (swiglu) add(p + "feed_forward.w3.bias", {F});
    }
    add(p + "feed_forward.w2.weight", {C, F});
    if (c.mlp_bias) add(p + "feed_forward.w2.bias", {C});
  }
  add("norm.weight", {C});
  if (layer_norm) add("norm.bias", {C});
  if (!c.tied_embeddings) add("output.weight", {c.vocab_size, C});
  return specs;
}

namespace {
// Every LayerView member with the name of its tensor in a layer, in one list (constructor and layer() read it).
struct LayerMember {
  const float* LayerView::*member;
  const char* name;
};
constexpr LayerMember kLayerMembers[] = {
    {&LayerView::attention_norm, "attention_norm.weight"},   {&LayerView::attention_norm_bias, "attention_norm.bias"},
    {&LayerView::wqkv, "attention.wq.weight"},               {&LayerView::qkv_bias, "attention.wq.bias"},
    {&LayerView::q_norm, "attention.q_norm.weight"},         {&LayerView::k_norm, "attention.k_norm.weight"},
    {&LayerView::wo, "attention.wo.weight"},                 {&LayerView::wo_bias, "attention.wo.bias"},
    {&LayerView::ffn_norm, "ffn_norm.weight"},               {&LayerView::ffn_norm_bias, "ffn_norm.bias"},
    {&LayerView::w13, "feed_forward.w1.weight"},             {&LayerView::w13_bias, "feed_forward.w1.bias"},
    {&LayerView::w2, "feed_forward.w2.weight"},              {&LayerView::w2_bias, "feed_forward.w2.bias"},
};
constexpr std::size_t kNoTensor = std::size_t(-1);
}  // namespace

bool is_matrix_tensor(const std::string& name) {
  static const char* const kMatrices[] = {".attention.wq.weight", ".attention.wk.weight", ".attention.wv.weight",
                                          ".attention.wo.weight", ".feed_forward.w1.weight", ".feed_forward.w2.weight",
                                          ".feed_forward.w3.weight"};
  if (name == "output.weight") return true;
  if (name.rfind("layers.", 0) != 0) return false;
  for (const char* m : kMatrices) {
    const std::size_t n = std::strlen(m);
    if (name.size() > n && name.compare(name.size() - n, n, m) == 0) return true;
  }
  return false;
}

bool is_compact_tensor(const std::string& name) { return name == "tok_embeddings.weight" || is_matrix_tensor(name); }

Weights::Weights(const ModelConfig& c, bool matrices) : config_(c), matrices_(matrices) {
  validate_config(c);
  specs_ = tensor_specs(c);
  if (!matrices) {  // the rest, one after another
    std::vector<TensorSpec> held;
    std::size_t offset = 0;
    for (TensorSpec& s : specs_)
      if (!is_compact_tensor(s.name)) {
        s.offset = offset;
        offset += s.size();
        held.push_back(std::move(s));
      }
    specs_ = std::move(held);
  }
  buffer_.assign(specs_.back().offset + specs_.back().size(), 0.0f);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    std::vector<std::size_t> offsets;
    for (const LayerMember& m : kLayerMembers) {
      const TensorSpec* s = find(p + m.name);
      offsets.push_back(s ? s->offset : kNoTensor);
    }
    layer_offsets_.push_back(std::move(offsets));
  }
  norm_offset_ = find("norm.weight")->offset;
  classifier_offset_ = !matrices ? kNoTensor : c.tied_embeddings ? 0 : find("output.weight")->offset;
}

const TensorSpec* Weights::find(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

float* Weights::tensor(const std::string& name) {
  const TensorSpec* s = find(name);
  if (!s) model_error("the model has no tensor named '", name, "'");
  return buffer_.data() + s->offset;
}

const float* Weights::tensor(const std::string& name) const { return const_cast<Weights*>(this)->tensor(name); }

const float* Weights::embedding() const { return matrices_ ? buffer_.data() : nullptr; }

const float* Weights::at(const std::string& name) const {
  const TensorSpec* s = find(name);
  return s ? buffer_.data() + s->offset : nullptr;
}

const float* Weights::positions() const { return at("pos_embeddings.weight"); }

LayerView Weights::layer(int l) const {
  LayerView v{};
  const std::vector<std::size_t>& offsets = layer_offsets_[std::size_t(l)];
  for (std::size_t i = 0; i < std::size(kLayerMembers); ++i)
    v.*kLayerMembers[i].member = offsets[i] == kNoTensor ? nullptr : buffer_.data() + offsets[i];
  return v;
}

const float* Weights::final_norm() const { return buffer_.data() + norm_offset_; }

const float* Weights::final_norm_bias() const { return at("norm.bias"); }

const float* Weights::classifier() const { return classifier_offset_ == kNoTensor ? nullptr : buffer_.data() + classifier_offset_; }

std::vector<NamedTensor> Weights::named() const {
  std::vector<NamedTensor> out;
  for (const auto& s : specs_) out.push_back({s.name, s.shape, buffer_.data() + s.offset});
  return out;
}

std::string index_in_shape(std::size_t flat, const std::vector<int>& shape) {
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % std::size_t(shape[d]) : 0;
    flat = shape[d] ? flat / std::size_t(shape[d]) : 0;
  }
  std::ostringstream s;
  s << "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s << (d ? ", " : "") << idx[d];
  s << "]";
  return s.str();
}

void Weights::check_finite() const {
  for (const auto& s : specs_) {
    const float* p = buffer_.data() + s.offset;
    for (std::size_t i = 0, n = s.size(); i < n; ++i)
      if (!std::isfinite(p[i]))
        model_error("tensor '", s.name, "' holds ", std::isnan(p[i]) ? "NaN" : p[i] > 0 ? "+Inf" : "-Inf",
                    " at ", index_in_shape(i, s.shape), "; weights must be finite");
  }
}

Weights random_weights(const ModelConfig& c, std::uint64_t seed) {
  Weights w(c);
  Rng rng(seed);
  for (const auto& s : w.specs()) {
    float* p = w.data() + s.offset;
    const std::size_t n = s.size();
    const bool bias = s.name.size() > 5 && s.name.compare(s.name.size() - 5, 5, ".bias") == 0;
    if (bias) {
      for (std::size_t i = 0; i < n; ++i) p[i] = 0.2f * (2.0f * rng.uniform() - 1.0f);
    } else if (s.shape.size() == 1) {
      for (std::size_t i = 0; i < n; ++i) p[i] = 1.0f + 0.2f * (2.0f * rng.uniform() - 1.0f);
    } else {
      const bool embedding = s.name == "tok_embeddings.weight" || s.name == "pos_embeddings.weight";
      const float bound = embedding ? 1.0f : 1.0f / std::sqrt(float(s.shape[1]));
      for (std::size_t i = 0; i < n; ++i) p[i] = bound * (2.0f * rng.uniform() - 1.0f);
    }
  }
  return w;
}

}  // namespace lookback
