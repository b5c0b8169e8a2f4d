// A whole file's bytes, for the native tools and the trainer (files they are told to read, read at once).
// Not for the browser or the bindings, which receive bytes from JS.
#pragma once
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace lookback {

// Throws std::runtime_error("cannot read PATH") when the file cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace lookback
