// UTF-8 well-formedness (Unicode's table 3-7), in one place: is_valid_utf8() checks it, valid_utf8() replaces
// each maximal ill-formed subpart with U+FFFD, so that decoded text can always be handed to JavaScript, and
// utf16_places() says where each byte lands in that text. Not here: tokenisation.
#include <cstdint>
#include <string_view>

#include "model/tokenizer.hpp"

namespace lookback {
namespace {

// Bytes consumed by the well-formed sequence at s[i], or the negated length of the ill-formed subpart.
int sequence_at(std::string_view s, std::size_t i) {
  const auto b0 = std::uint8_t(s[i]);
  if (b0 < 0x80) return 1;
  int len;
  std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) len = 3, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
  else if (b0 >= 0xF0 && b0 <= 0xF4) len = 4, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
  else return -1;
  for (int k = 1; k < len; ++k) {
    if (i + k >= s.size()) return -k;
    const auto b = std::uint8_t(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return -k;
  }
  return len;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const int n = sequence_at(s, i);
    if (n < 0) return false;
    i += std::size_t(n);
  }
  return true;
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const int n = sequence_at(text, i);
    if (n > 0) {
      out.append(text, i, std::size_t(n));
      i += std::size_t(n);
    } else {
      out += "\xEF\xBF\xBD";
      i += std::size_t(-n);
    }
  }
  return out;
}

std::vector<std::pair<int, int>> utf16_places(std::string_view bytes) {
  std::vector<std::pair<int, int>> at(bytes.size() + 1);
  int u = 0;
  for (std::size_t i = 0; i < bytes.size();) {
    const int n = sequence_at(bytes, i);
    const std::size_t len = std::size_t(n > 0 ? n : -n);
    const int units = n == 4 ? 2 : 1;  // above U+FFFF: a surrogate pair
    at[i] = {u, u};
    for (std::size_t k = 1; k < len; ++k) at[i + k] = {u, u + units};
    i += len;
    u += units;
  }
  at[bytes.size()] = {u, u};
  return at;
}

}  // namespace lookback
