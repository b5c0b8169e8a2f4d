// Attention for a few queries (decoding: one new token against the cache), which attention() hands over to:
// the packed kernel would pack every key and value and fill whole blocks of query lanes for one query. Not a
// public header (lookback/kernels.hpp's attention is the entry point; attention_ref is the twin of both paths).
#pragma once
#include <cstdint>

#include "lookback/kernels.hpp"

namespace lookback {

// Queries at most this many go through attention_few.
constexpr int kFewQueries = 2;

// attention() for a.T <= kFewQueries, with the same arguments and result.
int attention_few(const float* q, const float* k, const float* v, float* out, float* weights, const AttentionShape& a,
                  const std::uint8_t* mask);

}  // namespace lookback
