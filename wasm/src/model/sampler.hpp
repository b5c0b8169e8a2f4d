// Choosing the next token from logits: the top k with their probabilities (for display), and sampling
// (greedy at temperature 0, else softmax at a temperature, optionally restricted to the top-p nucleus)
// from the model's own seeded generator. Sampling computes probabilities in float64; top_k takes its normaliser
// from a float32 softmax. Not here: the loop that feeds tokens back (generate.hpp).
#pragma once
#include <vector>

#include "model/rng.hpp"

namespace lookback {

struct TokenProb {
  int id;
  float p;
};

// The k most probable ids under softmax(logits / temperature), most probable first (ties: lower id first).
// temperature > 0; k is clipped to V.
std::vector<TokenProb> top_k(const float* logits, int V, int k, float temperature);

// temperature 0: the argmax (lowest id on ties), no random number drawn. Otherwise one draw: ids sorted by
// probability, the smallest leading set whose mass reaches top_p (top_p >= 1: all of them), renormalised.
int sample_token(const float* logits, int V, float temperature, float top_p, Rng& rng);

}  // namespace lookback
