// safetensors files: write a list of named float tensors (as F32 or F16), read and validate a file's
// header, convert its tensors to float, and read the weights a config expects. Every problem is a
// ModelError that names the tensor or byte range at fault. Not here: config.json (config_json.hpp),
// tokenizers, or llama2.c files (llama2c.hpp).
//
// File layout: 8-byte little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32"|"F16", "shape": [...], "data_offsets": [begin, end]}, ..., "__metadata__": {...}}
// then the data; offsets are relative to the data's start, and the tensors must tile it exactly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/weights.hpp"

namespace lookback {

enum class Dtype { f32, f16 };

struct SafetensorsEntry {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<std::int64_t> shape;
  std::size_t begin = 0, end = 0;  // byte range inside the data section
  std::size_t count() const;       // number of elements
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> tensors;  // in file order of data (ascending offsets)
  std::map<std::string, std::string> metadata;
  std::size_t data_start = 0;             // byte offset of the data section in the file
  const SafetensorsEntry* find(const std::string& name) const;
};

// Serialises tensors in the given order (F16 rounds to nearest even; a value beyond the F16 range is a
// ModelError naming the tensor and index). The header is padded with spaces to a multiple of 8 bytes.
std::vector<std::uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors, bool f16,
                                            const std::map<std::string, std::string>& metadata = {});

// Parses and validates the header: size field, JSON well-formed, no duplicate names, entries with exactly
// dtype/shape/data_offsets, dtype known, sizes matching shapes, offsets in range, no overlap, no gap, no
// trailing bytes. Does not read tensor data.
SafetensorsHeader read_safetensors_header(const std::uint8_t* bytes, std::size_t size);

// Converts one tensor's data to float (out holds e.count() floats).
void read_tensor(const std::uint8_t* bytes, const SafetensorsHeader& h, const SafetensorsEntry& e, float* out);

// The weights for a config: every tensor the config expects must be present with its exact shape, no
// other tensors may be present, and every value must be finite.
Weights read_safetensors(const ModelConfig& config, const std::uint8_t* bytes, std::size_t size);

}  // namespace lookback
