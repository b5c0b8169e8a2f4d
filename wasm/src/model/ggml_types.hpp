// The ggml tensor types lookback reads from GGUF files (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K): their
// block sizes and their decoding to float32, value for value as ggml's dequantize_row_* computes it (scalar code;
// it runs once, at load). Not here: the GGUF container (gguf.hpp) or the storages the products read (matrices.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace lookback {

struct GgmlType {
  std::uint32_t id;    // ggml's number (GGML_TYPE_*)
  const char* name;    // "F32", "Q4_K", ...
  int block;           // elements per block (1 for plain floats)
  int block_bytes;     // bytes per block
  void (*decode_block)(const std::uint8_t*, float*);  // one block's values; null for the plain float types
};

// The type of ggml number `id`, or null when lookback does not read it.
const GgmlType* ggml_type(std::uint32_t id);
// ggml's name of any type number ("IQ2_XXS", "Q4_1", ...; "type 99" when ggml has none), for messages.
std::string ggml_type_name(std::uint32_t id);
// "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K": the types read, for messages.
std::string ggml_types_read();

// n elements (a multiple of the type's block) of type t at `bytes` into out.
void dequantize_ggml(const GgmlType& t, const std::uint8_t* bytes, std::size_t n, float* out);

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block's 12 scale bytes (ggml's get_scale_min_k4).
void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t* d, std::uint8_t* m);

// One block each (the decoders dequantize_ggml runs; exposed for tests against hand-computed blocks).
void dequantize_q8_0_block(const std::uint8_t* b, float* y);  // 32 values from 34 bytes
void dequantize_q4_0_block(const std::uint8_t* b, float* y);  // 32 values from 18 bytes
void dequantize_q4_k_block(const std::uint8_t* b, float* y);  // 256 values from 144 bytes
void dequantize_q5_k_block(const std::uint8_t* b, float* y);  // 256 values from 176 bytes
void dequantize_q6_k_block(const std::uint8_t* b, float* y);  // 256 values from 210 bytes

}  // namespace lookback
