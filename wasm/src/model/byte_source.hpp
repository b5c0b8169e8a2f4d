// A model file read in parts: its size and the bytes of any range, so a loader can take a large file a tensor at
// a time instead of holding all of it (a file on disk, a browser File/Blob, or bytes already in memory). Not
// here: which parts a format needs (gguf_model.cpp) or how a host reads (the bindings give the JS side's reader).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "model/errors.hpp"

namespace lookback {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // n bytes from `at` into out; ModelError when the range is outside the file or the host cannot read it.
  virtual void read(std::uint64_t at, std::size_t n, std::uint8_t* out) const = 0;
};

// Bytes in memory as a source (tests, and files given whole).
class MemorySource final : public ByteSource {
 public:
  MemorySource(const std::uint8_t* bytes, std::size_t size) : bytes_(bytes), size_(size) {}
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t at, std::size_t n, std::uint8_t* out) const override {
    if (at > size_ || n > size_ - at) model_error("reading bytes ", at, "..", at + n, " of a file of ", size_);
    if (n) std::memcpy(out, bytes_ + at, n);
  }

 private:
  const std::uint8_t* bytes_;
  std::size_t size_;
};

}  // namespace lookback
