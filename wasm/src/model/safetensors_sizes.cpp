// check_safetensors_sizes(): parses the header once more with nlohmann/json (after the depth check) and
// checks each tensor's shape sizes, their product in bytes and its data_offsets in 64-bit arithmetic.
// Not here: anything the reader checks itself (dtypes, duplicates, tiling, values).
#include "model/safetensors_sizes.hpp"

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/errors.hpp"
#include "model/json_depth.hpp"

namespace lookback {
namespace {

using nlohmann::json;
constexpr std::uint64_t kMaxDimSize = 0x7FFFFFFFu;

bool unsigned_number(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0); }

void check_entry(const std::string& name, const json& v, std::uint64_t data_size) {
  if (!v.is_object() || !v.contains("shape") || !v.contains("data_offsets") || !v.contains("dtype")) return;
  const json &shape = v["shape"], &off = v["data_offsets"], &dtype = v["dtype"];
  const std::uint64_t width = dtype == "F32" ? 4 : (dtype == "F16" || dtype == "BF16") ? 2 : 0;
  if (!shape.is_array() || !off.is_array() || off.size() != 2 || width == 0) return;
  std::uint64_t bytes = width;  // stays <= data_size, so the product cannot overflow 64 bits
  bool zero = false;
  for (const json& d : shape) {
    if (!unsigned_number(d)) return;
    const std::uint64_t x = d.get<std::uint64_t>();
    if (x > kMaxDimSize)
      model_error("safetensors header: tensor '", name, "': shape size ", x, " is larger than ", kMaxDimSize);
    zero = zero || x == 0;
    if (!zero && (bytes *= x) > data_size)
      model_error("safetensors: tensor '", name, "' has a shape of more than ", data_size,
                  " bytes, the size of the file's data section");
  }
  if (!unsigned_number(off[0]) || !unsigned_number(off[1])) return;
  const std::uint64_t begin = off[0].get<std::uint64_t>(), end = off[1].get<std::uint64_t>();
  if (begin > data_size || end > data_size)  // worded as the reader words it
    model_error("safetensors: tensor '", name, "' data_offsets [", begin, ", ", end, "] run past the end of the data (",
                data_size, " bytes; the file is truncated or the header is wrong)");
  if (end >= begin && end - begin != (zero ? 0 : bytes))
    model_error("safetensors: tensor '", name, "' has a shape of ", zero ? 0 : bytes, " bytes but data_offsets [",
                begin, ", ", end, "] hold ", end - begin);
}

}  // namespace

void check_safetensors_sizes(const std::uint8_t* bytes, std::size_t size) { check_safetensors_sizes(bytes, size, size); }

void check_safetensors_sizes(const std::uint8_t* bytes, std::size_t have, std::uint64_t size) {
  if (size < 8 || have < 8) return;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > size - 8 || n > have - 8) return;
  const std::string_view text(reinterpret_cast<const char*>(bytes + 8), std::size_t(n));
  check_json_depth(text, "safetensors header");
  const json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_object()) return;
  const std::uint64_t data_size = size - 8 - n;
  for (const auto& item : j.items())
    if (item.key() != "__metadata__") check_entry(item.key(), item.value(), data_size);
}

}  // namespace lookback
