// fp16 safetensors writer and the export folder; see export.hpp.
#include "train/export.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/fp16.hpp"
#include "base/read_file.hpp"
#include "model/safetensors.hpp"
#include "train/trainer.hpp"

namespace lookback::train {

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
    write_atomic(dir + "/tokenizer.json", read_file(tokenizer));
  }
}

}  // namespace lookback::train
