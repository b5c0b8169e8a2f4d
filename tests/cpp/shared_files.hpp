// Paths of the project's stories260K checkpoint (shared/models/stories260K) and of llama2.c's reference
// outputs for it (tests/fixtures/stories260K), and whole-file reads. Not a test itself.
#pragma once
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace lookback::testing {

inline std::string stories260k_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/shared/models/stories260K"; }
inline std::string stories260k_reference_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/tests/fixtures/stories260K"; }

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
