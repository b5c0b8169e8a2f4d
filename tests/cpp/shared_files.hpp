// Access to the optional reference files beside the checkout (../shared, absent for the project's users):
// the path of a file and whole-file reads. Tests that need them skip with a printed message when absent.
// Not a test itself.
#pragma once
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace lookback::testing {

inline std::string stories260k_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/../shared/models/stories260K"; }

inline bool file_exists(const std::string& path) { return std::ifstream(path, std::ios::binary).good(); }

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace lookback::testing
