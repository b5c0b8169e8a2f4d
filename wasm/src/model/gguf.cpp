// The GGUF container reader: a cursor that checks every read against the file's end, the metadata values of
// every type, the tensor infos and the data section's layout. Not here: the model a file describes.
#include "model/gguf.hpp"

#include <algorithm>
#include <limits>
#include <cstring>
#include <set>
#include <tuple>

#include "model/errors.hpp"
#include "model/ggml_types.hpp"
#include "model/load.hpp"  // UnsupportedFormat

namespace lookback {
namespace {

using nlohmann::json;

constexpr int kMaxArrayDepth = 4;     // arrays of arrays nest no deeper (llama.cpp writes none nested)
constexpr std::uint32_t kMaxDims = 4;  // GGML_MAX_DIMS

// The least bytes one value of a type takes in the file (an array: its element type and count).
std::size_t least_bytes(GgufType t) {
  switch (t) {
    case GgufType::u8: case GgufType::i8: case GgufType::boolean: return 1;
    case GgufType::u16: case GgufType::i16: return 2;
    case GgufType::u32: case GgufType::i32: case GgufType::f32: return 4;
    case GgufType::u64: case GgufType::i64: case GgufType::f64: case GgufType::string: return 8;
    case GgufType::array: return 12;
  }
  return 1;
}

// Thrown when a read lies inside the file but past the bytes at hand (a header read from a prefix of the file).
struct NeedMore {};

// Reads checked against the file's end (n bytes), from the first `have` of them that are at hand.
class Cursor {
 public:
  Cursor(const std::uint8_t* b, std::size_t n, std::size_t have) : b_(b), n_(n), have_(have) {}
  std::size_t at() const { return at_; }
  std::size_t left() const { return n_ - at_; }

  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_ + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }

  std::string string(const char* what) {
    const std::uint64_t len = get<std::uint64_t>(what);
    if (len > left()) model_error("GGUF: ", what, " at byte ", at_ - 8, " is ", len, " bytes long but the file has ", left(), " left");
    need(std::size_t(len), what);
    std::string s(reinterpret_cast<const char*>(b_ + at_), std::size_t(len));
    at_ += std::size_t(len);
    return s;
  }

  // A count of items of at least `each` bytes, refused when they cannot fit in what is left of the file.
  std::uint64_t count(const char* what, std::size_t each) {
    const std::size_t where = at_;
    const std::uint64_t n = get<std::uint64_t>(what);
    if (n > left() / each) model_error("GGUF: ", what, " at byte ", where, " is ", n, "; the ", left(), " bytes left hold at most ", left() / each);
    return n;
  }

 private:
  void need(std::size_t k, const char* what) {
    if (k > left()) model_error("GGUF: the file ends at byte ", n_, " inside ", what, " (byte ", at_, ")");
    if (k > have_ - at_) throw NeedMore{};
  }
  const std::uint8_t* b_;
  std::size_t n_, have_, at_ = 0;
};

GgufType value_type(Cursor& c, const std::string& key) {
  const std::size_t where = c.at();
  const std::uint32_t t = c.get<std::uint32_t>("a value type");
  if (t > 12) model_error("GGUF: key \"", key, "\" has value type ", t, " at byte ", where, " (types are 0..12)");
  return GgufType(t);
}

json scalar(Cursor& c, GgufType t, const std::string& key) {
  switch (t) {
    case GgufType::u8: return c.get<std::uint8_t>("a UINT8");
    case GgufType::i8: return c.get<std::int8_t>("an INT8");
    case GgufType::u16: return c.get<std::uint16_t>("a UINT16");
    case GgufType::i16: return c.get<std::int16_t>("an INT16");
    case GgufType::u32: return c.get<std::uint32_t>("a UINT32");
    case GgufType::i32: return c.get<std::int32_t>("an INT32");
    case GgufType::f32: return c.get<float>("a FLOAT32");
    case GgufType::u64: return c.get<std::uint64_t>("a UINT64");
    case GgufType::i64: return c.get<std::int64_t>("an INT64");
    case GgufType::f64: return c.get<double>("a FLOAT64");
    case GgufType::boolean: {
      const std::size_t where = c.at();
      const std::uint8_t v = c.get<std::uint8_t>("a BOOL");
      if (v > 1) model_error("GGUF: key \"", key, "\": BOOL at byte ", where, " is ", int(v), " (0 or 1)");
      return v == 1;
    }
    case GgufType::string: return c.string("a STRING");
    case GgufType::array: break;
  }
  model_error("GGUF: key \"", key, "\": an array where a single value belongs");
}

json value(Cursor& c, GgufType t, const std::string& key, int depth, GgufType* element) {
  if (t != GgufType::array) return scalar(c, t, key);
  if (depth >= kMaxArrayDepth) model_error("GGUF: key \"", key, "\": arrays nested deeper than ", kMaxArrayDepth);
  const GgufType e = value_type(c, key);
  if (element) *element = e;
  const std::uint64_t n = c.count("an array's length", least_bytes(e));
  json a = json::array();
  a.get_ref<json::array_t&>().reserve(std::size_t(n));
  for (std::uint64_t i = 0; i < n; ++i) a.push_back(value(c, e, key, depth + 1, nullptr));
  return a;
}

}  // namespace

const char* gguf_type_name(GgufType t) {
  static const char* const kNames[] = {"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
                                       "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"};
  return std::uint32_t(t) <= 12 ? kNames[std::uint32_t(t)] : "unknown";
}

std::uint64_t GgufTensor::count() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : dims) n *= d;
  return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  const auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

const GgufTensor* GgufFile::tensor(const std::string& name) const {
  for (const GgufTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

bool is_gguf(const std::uint8_t* bytes, std::size_t size) {
  return size >= 4 && std::memcmp(bytes, "GGUF", 4) == 0;
}

namespace {

// The container from the first `have` bytes of a file of `size` (NeedMore when its header reaches further); the
// tensors' data pointers are set when the whole file is at hand.
GgufFile parse(const std::uint8_t* bytes, std::size_t have, std::size_t size) {
  if (!is_gguf(bytes, have)) model_error("GGUF: the file does not start with the magic \"GGUF\"");
  Cursor c(bytes + 4, size - 4, have - 4);
  GgufFile f;
  f.version = c.get<std::uint32_t>("the version");
  if (f.version != 2 && f.version != 3)
    throw UnsupportedFormat("GGUF: version " + std::to_string(f.version) + "; lookback reads GGUF versions 2 and 3");
  const std::uint64_t n_tensors = c.count("the tensor count", 24);  // name length, dims count, type, offset
  const std::uint64_t n_kv = c.count("the metadata count", 13);      // key length, type, one byte
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const std::size_t where = c.at() + 4;
    std::string key = c.string("a metadata key");
    GgufValue v;
    v.type = value_type(c, key);
    v.value = value(c, v.type, key, 0, &v.element);
    if (!f.metadata.emplace(key, std::move(v)).second) model_error("GGUF: metadata key \"", key, "\" appears twice (byte ", where, ")");
  }
  if (const GgufValue* a = f.find("general.alignment")) {
    const json& v = a->value;
    const bool ok = a->type == GgufType::u32 && v.get<std::uint32_t>() != 0 && (v.get<std::uint32_t>() & (v.get<std::uint32_t>() - 1)) == 0;
    if (!ok) model_error("GGUF: general.alignment is ", v.dump(), " (", gguf_type_name(a->type), "); it must be a UINT32 power of two");
    f.alignment = v.get<std::uint32_t>();
  }
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensor t;
    t.name = c.string("a tensor name");
    if (!names.insert(t.name).second) model_error("GGUF: tensor \"", t.name, "\" appears twice");
    const std::uint32_t n_dims = c.get<std::uint32_t>("a tensor's dimension count");
    if (n_dims == 0 || n_dims > kMaxDims) model_error("GGUF: tensor \"", t.name, "\" has ", n_dims, " dimensions (1..", kMaxDims, ")");
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const std::uint64_t n = c.get<std::uint64_t>("a tensor's dimension");
      if (n == 0 || n > (std::uint64_t(1) << 40) / count)
        model_error("GGUF: tensor \"", t.name, "\" dimension ", d, " is ", n, " (the tensor must hold 1 to 2^40 elements)");
      count *= n;
      t.dims.push_back(n);
    }
    t.type = c.get<std::uint32_t>("a tensor's type");
    t.offset = c.get<std::uint64_t>("a tensor's offset");
    const GgmlType* type = ggml_type(t.type);
    if (!type)
      throw UnsupportedFormat("GGUF: tensor \"" + t.name + "\" has type " + std::to_string(t.type) + " (" +
                              ggml_type_name(t.type) + "); lookback reads " + ggml_types_read());
    if (t.dims[0] % std::uint64_t(type->block) != 0)
      model_error("GGUF: tensor \"", t.name, "\" of type ", type->name, " has rows of ", t.dims[0], " values, not a multiple of its block of ", type->block);
    t.bytes = std::size_t(count / std::uint64_t(type->block) * std::uint64_t(type->block_bytes));
    f.tensors.push_back(std::move(t));
  }
  const std::size_t end_of_infos = 4 + c.at();
  f.data_offset = (end_of_infos + f.alignment - 1) / f.alignment * f.alignment;
  if (f.data_offset > size && !f.tensors.empty())
    model_error("GGUF: the data section would start at byte ", f.data_offset, ", past the file's end (", size, ")");
  const std::size_t data_size = f.data_offset <= size ? size - f.data_offset : 0;
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> ranges;
  for (GgufTensor& t : f.tensors) {
    if (t.offset % f.alignment != 0)
      model_error("GGUF: tensor \"", t.name, "\" starts at data offset ", t.offset, ", not a multiple of the alignment ", f.alignment);
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      model_error("GGUF: tensor \"", t.name, "\" needs bytes ", t.offset, "..", t.offset + t.bytes, " of the data section, which holds ", data_size);
    if (have == size) t.data = bytes + f.data_offset + t.offset;
    ranges.emplace_back(t.offset, t.offset + t.bytes, t.name);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (std::get<0>(ranges[i]) < std::get<1>(ranges[i - 1]))
      model_error("GGUF: tensors \"", std::get<2>(ranges[i - 1]), "\" and \"", std::get<2>(ranges[i]), "\" overlap");
  return f;
}

}  // namespace

GgufFile read_gguf(const std::uint8_t* bytes, std::size_t size) { return parse(bytes, size, size); }

GgufFile read_gguf_header(const ByteSource& source, std::vector<std::uint8_t>& head) {
  const std::uint64_t size = source.size();
  if (size > std::numeric_limits<std::size_t>::max()) model_error("GGUF: the file is ", size, " bytes, more than a 32-bit build (WebAssembly) can address");
  for (std::size_t have = std::size_t(std::min<std::uint64_t>(size, kGgufHeadBytes));; have = std::size_t(std::min<std::uint64_t>(size, std::uint64_t(have) * 4))) {
    head.resize(have);
    source.read(0, have, head.data());
    try {
      return parse(head.data(), have, std::size_t(size));
    } catch (const NeedMore&) {
      // the header reaches past these bytes (a large vocabulary): read four times as many and parse again
    }
  }
}

}  // namespace lookback
