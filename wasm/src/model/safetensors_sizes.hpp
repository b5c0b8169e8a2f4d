// The 64-bit size check of a safetensors header, run before the reader (safetensors.hpp) narrows anything to
// size_t, which is 32 bits in WebAssembly: every shape size, product and data offset is read as a 64-bit
// integer and checked against the file's size, so a size of 2^32 + n can never pass as n. Also bounds the
// header's nesting depth. Not here: the full validation and the reading of tensors (safetensors.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace lookback {

// ModelError naming the tensor and field when a shape size exceeds 2^31 - 1, a shape's byte count or a data
// offset exceeds the data section, or the header is nested too deeply. Headers it cannot read (too short,
// malformed JSON, wrong types) pass: the reader reports those with its own messages.
void check_safetensors_sizes(const std::uint8_t* bytes, std::size_t size);
// The same from the first `have` bytes of a file of `size` (a file read in parts: its header at hand).
void check_safetensors_sizes(const std::uint8_t* bytes, std::size_t have, std::uint64_t size);

}  // namespace lookback
