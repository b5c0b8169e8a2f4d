// Per-layer tensor names taken apart (see tensor_names.hpp).
// Not here: any format's table of names.
#include "model/tensor_names.hpp"

namespace lookback {

std::pair<std::string, std::string> split_layer_name(const std::string& name, const std::string& prefix) {
  const std::size_t n = prefix.size();
  if (name.compare(0, n, prefix) != 0) return {};
  const std::size_t dot = name.find('.', n);
  if (dot == std::string::npos || dot == n || name.find_first_not_of("0123456789", n) != dot) return {};
  return {name.substr(n, dot - n), name.substr(dot + 1)};
}

}  // namespace lookback
