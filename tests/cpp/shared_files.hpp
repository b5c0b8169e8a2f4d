// The C++ tests' one way to read a file (a missing file fails the test: doctest reports the exception, naming
// the path), and the paths of the project's shipped models (shared/models: stories260K, Sprout) and of
// llama2.c's reference outputs (tests/fixtures/stories260K). Not a test itself.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/read_file.hpp"

namespace lookback::testing {

inline std::string stories260k_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/shared/models/stories260K"; }
inline std::string stories260k_reference_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/tests/fixtures/stories260K"; }
inline std::string sprout_dir() { return std::string(LOOKBACK_SOURCE_DIR) + "/shared/models/sprout/"; }

// A whole file; std::runtime_error("cannot read PATH") when it cannot be opened.
inline std::string read_text(const std::string& path) { return read_file(path); }

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  const std::string s = read_file(path);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

}  // namespace lookback::testing
