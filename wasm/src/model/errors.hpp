// The one exception type of the model layer: a message that says what was wrong and where (which file,
// tensor, byte offset, token), so the bindings can hand it to JS as is. Not here: argument checks of the
// bindings (wasm/bindings/args.hpp).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace lookback {

struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws a ModelError whose message is the concatenation of the parts.
template <class... P>
[[noreturn]] void model_error(const P&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  throw ModelError(s.str());
}

}  // namespace lookback
