// safetensors reading (header validation, F32/F16 conversion, checks against a config) and writing.
// Not here: what the tensors mean (weights.cpp, transformer.cpp).
#include "model/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "model/errors.hpp"
#include "base/fp16.hpp"

namespace lookback {
namespace {

using nlohmann::json;
constexpr std::size_t kMaxHeader = 100u << 20;  // the format's own limit (100 MB)

std::size_t dtype_bytes(Dtype d) { return d == Dtype::f32 ? 4 : 2; }

std::uint64_t read_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << "]";
  return o.str();
}

std::string shape_text(const std::vector<int>& s) { return shape_text(std::vector<std::int64_t>(s.begin(), s.end())); }

// A non-negative integer that fits in size_t, or an error naming the field.
std::size_t count_field(const json& v, const std::string& tensor, const char* field) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    model_error("safetensors header: tensor '", tensor, "': ", field, " must hold non-negative integers (got ",
                v.dump(), ")");
  const std::uint64_t x = v.get<std::uint64_t>();
  if (x > (std::uint64_t(1) << 52)) model_error("safetensors header: tensor '", tensor, "': ", field, " value ", x, " is too large");
  return std::size_t(x);
}

SafetensorsEntry parse_entry(const std::string& name, const json& v, std::size_t data_size) {
  if (!v.is_object()) model_error("safetensors header: tensor '", name, "' must be an object (got ", v.dump(), ")");
  for (const auto& item : v.items())
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
      model_error("safetensors header: tensor '", name, "' has an unknown field \"", item.key(), "\"");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) model_error("safetensors header: tensor '", name, "' has no \"", key, "\"");
  SafetensorsEntry e;
  e.name = name;
  const json& dt = v["dtype"];
  if (!dt.is_string()) model_error("safetensors header: tensor '", name, "': dtype must be a string");
  const std::string dts = dt.get<std::string>();
  if (dts == "F32") e.dtype = Dtype::f32;
  else if (dts == "F16") e.dtype = Dtype::f16;
  else model_error("safetensors header: tensor '", name, "' has dtype ", dts, "; supported: F32, F16");
  const json& sh = v["shape"];
  if (!sh.is_array() || sh.size() > 8) model_error("safetensors header: tensor '", name, "': shape must be an array of at most 8 sizes");
  double elements = 1;
  for (const json& d : sh) {
    e.shape.push_back(std::int64_t(count_field(d, name, "shape")));
    elements *= double(e.shape.back());
  }
  const json& off = v["data_offsets"];
  if (!off.is_array() || off.size() != 2) model_error("safetensors header: tensor '", name, "': data_offsets must be [begin, end]");
  e.begin = count_field(off[0], name, "data_offsets");
  e.end = count_field(off[1], name, "data_offsets");
  if (e.end < e.begin) model_error("safetensors header: tensor '", name, "': data_offsets [", e.begin, ", ", e.end, "] end before they begin");
  if (e.end > data_size)
    model_error("safetensors: tensor '", name, "' data_offsets [", e.begin, ", ", e.end, "] run past the end of the data (",
                data_size, " bytes; the file is truncated or the header is wrong)");
  const double want = elements * double(dtype_bytes(e.dtype));
  if (want != double(e.end - e.begin))
    model_error("safetensors: tensor '", name, "' has shape ", shape_text(e.shape), " of ", dts, " = ", want,
                " bytes but data_offsets [", e.begin, ", ", e.end, "] hold ", e.end - e.begin);
  return e;
}

// The tensors must cover [0, data_size) exactly once, in some order.
void check_tiling(std::vector<SafetensorsEntry>& ts, std::size_t data_size) {
  std::sort(ts.begin(), ts.end(), [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::size_t at = 0;
  const SafetensorsEntry* prev = nullptr;
  for (const auto& e : ts) {
    if (e.begin < at)
      model_error("safetensors: tensors '", prev->name, "' and '", e.name, "' overlap (bytes ", e.begin, "..", at, ")");
    if (e.begin > at)
      model_error("safetensors: bytes ", at, "..", e.begin, " of the data belong to no tensor (a gap before '", e.name, "')");
    at = e.end;
    prev = &e;
  }
  if (at != data_size)
    model_error("safetensors: ", data_size - at, " bytes after the last tensor belong to no tensor (data is ",
                data_size, " bytes, tensors end at ", at, ")");
}

void write_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}

}  // namespace

std::size_t SafetensorsEntry::count() const { return (end - begin) / dtype_bytes(dtype); }

const SafetensorsEntry* SafetensorsHeader::find(const std::string& name) const {
  for (const auto& e : tensors)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors, bool f16,
                                            const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  std::size_t offset = 0;
  std::set<std::string> names;
  for (const auto& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") model_error("write_safetensors: invalid tensor name '", t.name, "'");
    if (!names.insert(t.name).second) model_error("write_safetensors: tensor '", t.name, "' appears twice");
    std::size_t n = 1;
    for (int d : t.shape) {
      if (d < 0) model_error("write_safetensors: tensor '", t.name, "' has a negative size in ", shape_text(t.shape));
      n *= std::size_t(d);
    }
    const std::size_t bytes = n * (f16 ? 2 : 4);
    header[t.name] = {{"dtype", f16 ? "F16" : "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::uint8_t> out;
  out.reserve(8 + text.size() + offset);
  write_u64(out, text.size());
  out.insert(out.end(), text.begin(), text.end());
  for (const auto& t : tensors) {
    std::size_t n = 1;
    for (int d : t.shape) n *= std::size_t(d);
    const std::size_t at = out.size();
    out.resize(at + n * (f16 ? 2 : 4));
    if (!f16) {
      if (n) std::memcpy(out.data() + at, t.data, n * 4);  // little-endian hosts only (x86, wasm)
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t h = float_to_half(t.data[i]);
      if ((h & 0x7C00u) == 0x7C00u && std::isfinite(t.data[i]))
        model_error("write_safetensors: tensor '", t.name, "' value ", t.data[i], " at ", index_in_shape(i, t.shape),
                    " does not fit in F16 (largest 65504)");
      out[at + 2 * i] = std::uint8_t(h), out[at + 2 * i + 1] = std::uint8_t(h >> 8);
    }
  }
  return out;
}

SafetensorsHeader read_safetensors_header(const std::uint8_t* bytes, std::size_t size) {
  if (size < 8) model_error("safetensors: the file is ", size, " bytes; it must start with an 8-byte header length");
  const std::uint64_t n = read_u64(bytes);
  if (n > size - 8)
    model_error("safetensors: the header length (", n, " bytes) runs past the end of the file (", size,
                " bytes; truncated, or not a safetensors file)");
  if (n > kMaxHeader) model_error("safetensors: the header length (", n, " bytes) exceeds the format's 100 MB limit");
  if (n < 2 || bytes[8] != '{') model_error("safetensors: the header at bytes 8..", 8 + n, " must be a JSON object starting with '{'");
  SafetensorsHeader h;
  h.data_start = std::size_t(8 + n);
  const std::size_t data_size = size - h.data_start;
  std::set<std::string> seen;
  json j;
  try {
    const char* text = reinterpret_cast<const char*>(bytes + 8);
    j = json::parse(text, text + n, [&](int depth, json::parse_event_t ev, json& parsed) {
      if (depth == 1 && ev == json::parse_event_t::key && !seen.insert(parsed.get<std::string>()).second)
        model_error("safetensors header: the name '", parsed.get<std::string>(), "' appears twice");
      return true;
    });
  } catch (const json::exception& e) {
    model_error("safetensors header (bytes 8..", 8 + n, ") is not well-formed JSON: ", e.what());
  }
  if (!j.is_object()) model_error("safetensors header must be a JSON object");
  for (const auto& item : j.items()) {
    if (item.key() == "__metadata__") {
      if (!item.value().is_object()) model_error("safetensors header: __metadata__ must be an object of strings");
      for (const auto& m : item.value().items()) {
        if (!m.value().is_string()) model_error("safetensors header: __metadata__ \"", m.key(), "\" must be a string");
        h.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    h.tensors.push_back(parse_entry(item.key(), item.value(), data_size));
  }
  check_tiling(h.tensors, data_size);
  return h;
}

void read_tensor(const std::uint8_t* bytes, const SafetensorsHeader& h, const SafetensorsEntry& e, float* out) {
  const std::uint8_t* p = bytes + h.data_start + e.begin;
  const std::size_t n = e.count();
  if (e.dtype == Dtype::f32) {
    if (n) std::memcpy(out, p, n * 4);  // memcpy: the data need not be 4-byte aligned
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = half_to_float(std::uint16_t(p[2 * i] | (p[2 * i + 1] << 8)));
}

Weights read_safetensors(const ModelConfig& config, const std::uint8_t* bytes, std::size_t size) {
  const SafetensorsHeader h = read_safetensors_header(bytes, size);
  const std::vector<TensorSpec> specs = tensor_specs(config);
  std::set<std::string> expected;
  for (const auto& s : specs) {
    expected.insert(s.name);
    const SafetensorsEntry* e = h.find(s.name);
    if (!e) model_error("safetensors: missing tensor '", s.name, "' ", shape_text(s.shape), " that config.json implies");
    if (e->shape != std::vector<std::int64_t>(s.shape.begin(), s.shape.end()))
      model_error("safetensors: tensor '", s.name, "' has shape ", shape_text(e->shape), " but config.json implies ",
                  shape_text(s.shape));
  }
  for (const auto& e : h.tensors)
    if (!expected.count(e.name))
      model_error("safetensors: unexpected tensor '", e.name, "' for this config",
                  e.name == "output.weight" ? " (config.json says tied_embeddings: true)" : "");
  Weights w(config);
  for (const auto& s : specs) read_tensor(bytes, h, *h.find(s.name), w.data() + s.offset);
  w.check_finite();
  return w;
}

}  // namespace lookback
