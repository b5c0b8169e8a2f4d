// Per-layer tensor names ("blk.3.attn_q.weight", "layers.3.attention.wq.weight") taken apart, and a lookup in a
// table of name pairs: what the readers that rename a format's tensors to lookback's share.
// Not here: any format's table of names (each reader holds its own).
#pragma once
#include <cstddef>
#include <string>
#include <utility>

namespace lookback {

using NamePair = std::pair<const char*, const char*>;

// "<prefix><digits>.<rest>" -> {digits, rest}; {"", ""} when the name is not of that form.
std::pair<std::string, std::string> split_layer_name(const std::string& name, const std::string& prefix);

// The second name of the pair whose first is `key`, or nullptr when none is.
template <std::size_t N>
const char* look_up(const NamePair (&pairs)[N], const std::string& key) {
  for (const auto& [first, second] : pairs)
    if (key == first) return second;
  return nullptr;
}

}  // namespace lookback
