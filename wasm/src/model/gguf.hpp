// The GGUF container (llama.cpp's model file, versions 2 and 3): the header, every metadata key/value (all
// thirteen value types, arrays included), the tensor infos and where each tensor's bytes lie, with every count
// and size checked against the file's length before anything is allocated. Not here: what the keys or tensors
// mean for a model (gguf_model.hpp) or how quantised blocks decode (ggml_types.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/byte_source.hpp"

namespace lookback {

// GGUF value types, numbered as the file stores them.
enum class GgufType : std::uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
  u64 = 10, i64 = 11, f64 = 12
};
const char* gguf_type_name(GgufType t);  // "UINT8" ... "FLOAT64", as the GGUF specification names them

// One metadata value: its type (and its elements' type for an array) and the value as JSON (numbers, booleans,
// strings, arrays of them; strings keep their bytes as stored).
struct GgufValue {
  GgufType type = GgufType::u8;
  GgufType element = GgufType::u8;  // arrays only
  nlohmann::json value;
};

// One tensor: name, dimensions in ggml's order (dims[0] the innermost: a [N, K] matrix has dims {K, N}), ggml
// type number, and its bytes inside the file.
struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> dims;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;  // from the start of the data section
  const std::uint8_t* data = nullptr;
  std::size_t bytes = 0;
  std::uint64_t count() const;  // elements
};

struct GgufFile {
  std::uint32_t version = 0;
  std::uint32_t alignment = 32;  // general.alignment, or 32
  std::size_t data_offset = 0;   // where the data section starts in the file
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensor> tensors;  // in file order

  const GgufValue* find(const std::string& key) const;
  const GgufTensor* tensor(const std::string& name) const;
};

// True when the bytes start with the magic "GGUF".
bool is_gguf(const std::uint8_t* bytes, std::size_t size);

// The whole container; ModelError naming the byte offset, key or tensor for anything malformed (a count or size
// past the file's end, a repeated key or tensor name, an alignment that is not a power of two, tensors
// overlapping or outside the data), UnsupportedFormat (load.hpp) for a version other than 2 or 3 or a tensor type lookback
// does not decode (naming the tensor and the type).
GgufFile read_gguf(const std::uint8_t* bytes, std::size_t size);

// The header alone (metadata and tensor infos, the same checks against the file's size) from the start of a file
// read in parts: the first kGgufHeadBytes, then four times as many until the header fits (kept in `head`). The
// tensors' data pointers are null: their bytes are read from the source at data_offset + offset.
constexpr std::size_t kGgufHeadBytes = std::size_t(1) << 20;
GgufFile read_gguf_header(const ByteSource& source, std::vector<std::uint8_t>& head);

}  // namespace lookback
