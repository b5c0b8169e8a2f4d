// ggml's 4-bit matrices (Q4_0, Q4_K) written into lookback's Q4 layout (lookback/matvec.hpp) without going
// through floats: every weight the Q4 matrix gives equals the one ggml's dequantizer gives. Not here: reading
// the GGUF container (gguf.hpp) or choosing a storage (gguf_model.hpp).
// Letters: N rows, K values per row (a multiple of the type's block: 32 for Q4_0, 256 for Q4_K).
#pragma once
#include <cstdint>

#include "model/ggml_types.hpp"

namespace lookback {

// raw: N rows of K values of type t (Q4_0 or Q4_K; ModelError for any other type or a K that is not a whole number
// of its blocks), row after row as ggml stores them -> out: q4_bytes(N, K).
void q4_from_ggml(const GgmlType& t, const std::uint8_t* raw, int N, int K, std::uint8_t* out);
// The same for rows n0..n0+rows of an N-row matrix only (raw: those rows), written at their places in out.
void q4_from_ggml_rows(const GgmlType& t, const std::uint8_t* raw, int n0, int rows, int N, int K, std::uint8_t* out);

}  // namespace lookback
