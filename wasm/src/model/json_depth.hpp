// A nesting-depth check for JSON text, run before any recursive parser sees it: text nested deeper than
// kMaxJsonDepth is a ModelError naming the file and the byte where the limit is passed. It only counts
// brackets outside strings; it does not validate the JSON (the readers do). Not here: parsing.
#pragma once
#include <cstddef>
#include <string_view>

namespace lookback {

// Deeper than every file lookback reads needs (config.json: 1, tokenizer.json: 3, safetensors header: 3) and
// far below what exhausts a WebAssembly stack.
constexpr int kMaxJsonDepth = 64;

// ModelError "<what>: JSON nested more than 64 levels deep (at byte N)" when the text is nested deeper.
void check_json_depth(std::string_view text, const char* what);

}  // namespace lookback
