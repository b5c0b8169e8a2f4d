// check_json_depth(): one pass over the bytes counting '[' and '{' outside strings (escapes inside strings
// skipped). Iterative, so no input can exhaust the stack. Not here: parsing or validation of the JSON.
#include "model/json_depth.hpp"

#include "model/errors.hpp"

namespace lookback {

void check_json_depth(std::string_view text, const char* what) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        model_error(what, ": JSON nested more than ", kMaxJsonDepth, " levels deep (at byte ", i, ")");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

}  // namespace lookback
