// fp16 safetensors writer and the export folder; see export.hpp.
#include "train/export.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/safetensors.hpp"
#include "train/trainer.hpp"

namespace lookback::train {

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u) return std::uint16_t(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u : 0u));  // inf/nan
  if (ax >= 0x477FF000u) return std::uint16_t(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {                                        // below the smallest normal half: subnormal
    if (ax < 0x33000000u) return std::uint16_t(sign);            // < 2^-25: rounds to zero
    const std::uint32_t e = ax >> 23, m = (ax & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - int(e);  // m · 2^(e-150) in units of 2^-24
    std::uint32_t h = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return std::uint16_t(sign | h);
  }
  std::uint32_t h = ((ax >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  const std::uint32_t rem = ax & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return std::uint16_t(sign | h);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  float f;
  if (e == 0) {
    f = std::ldexp(float(m), -24);
  } else if (e == 31) {
    f = m ? NAN : INFINITY;
  } else {
    f = std::ldexp(float(m | 0x400u), int(e) - 25);
  }
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  x |= sign;
  std::memcpy(&f, &x, 4);
  return f;
}

std::string safetensors_f16(const std::vector<ParamInfo>& params, const float* w,
                            const nlohmann::json& metadata) {
  nlohmann::ordered_json header;
  if (!metadata.empty()) {
    nlohmann::ordered_json md;
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
      md[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    header["__metadata__"] = md;
  }
  std::size_t off = 0;
  for (const ParamInfo& p : params) {
    header[p.name] = {{"dtype", "F16"}, {"shape", p.shape}, {"data_offsets", {off, off + 2 * p.size}}};
    off += 2 * p.size;
  }
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  std::string out(8 + h.size() + off, '\0');
  const std::uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = char((n >> (8 * i)) & 0xFF);
  std::memcpy(&out[8], h.data(), h.size());
  char* dst = &out[8 + h.size()];
  for (const ParamInfo& p : params)
    for (std::size_t i = 0; i < p.size; ++i) {
      const std::uint16_t v = float_to_half(w[p.offset + i]);
      *dst++ = char(v & 0xFF);
      *dst++ = char(v >> 8);
    }
  return out;
}

// The runtime's writer (model/safetensors.hpp): F16, names and shapes from the model's parameter list.
std::string safetensors_bytes(const std::vector<ParamInfo>& params, const float* w, const nlohmann::json& metadata) {
  std::vector<NamedTensor> tensors;
  for (const ParamInfo& p : params) tensors.push_back({p.name, p.shape, w + p.offset});
  std::map<std::string, std::string> md;
  for (auto it = metadata.begin(); it != metadata.end(); ++it)
    md[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  const auto bytes = write_safetensors(tensors, true, md);
  return std::string(bytes.begin(), bytes.end());
}

void export_folder(const std::string& dir, const TrainModel& model, const float* w, const std::string& tokenizer,
                   const nlohmann::json& extra_metadata) {
  std::filesystem::create_directories(dir);
  nlohmann::json md = extra_metadata;
  md["format"] = "pt";
  md["arch"] = model.kind();
  write_atomic(dir + "/model.safetensors", safetensors_bytes(model.params(), w, md));
  write_atomic(dir + "/config.json", model.config_json().dump(2) + "\n");
  if (!tokenizer.empty()) {
    std::ifstream in(tokenizer, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read tokenizer " + tokenizer);
    std::stringstream ss;
    ss << in.rdbuf();
    write_atomic(dir + "/tokenizer.json", ss.str());
  }
}

}  // namespace lookback::train
