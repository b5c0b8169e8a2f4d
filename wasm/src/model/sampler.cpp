// top_k and sample_token: float64 softmax over the vocabulary, a stable order (probability, then id), and
// one uniform draw per sampled token. Not here: the generator (rng.hpp) or generation (generate.cpp).
#include "model/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lookback {
namespace {

// Unnormalised probabilities exp((l - max) / temperature); returns their sum.
double weights(const float* logits, int V, float temperature, std::vector<double>& p) {
  const float mx = *std::max_element(logits, logits + V);
  p.resize(std::size_t(V));
  double sum = 0;
  for (int i = 0; i < V; ++i) sum += p[i] = std::exp((double(logits[i]) - mx) / temperature);
  return sum;
}

// Ids ordered by probability, descending; ties by id.
std::vector<int> by_probability(const std::vector<double>& p, int keep) {
  std::vector<int> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  auto cmp = [&](int a, int b) { return p[a] != p[b] ? p[a] > p[b] : a < b; };
  keep = std::min<int>(keep, int(order.size()));
  std::partial_sort(order.begin(), order.begin() + keep, order.end(), cmp);
  order.resize(std::size_t(keep));
  return order;
}

}  // namespace

std::vector<TokenProb> top_k(const float* logits, int V, int k, float temperature) {
  std::vector<double> p;
  const double sum = weights(logits, V, temperature, p);
  std::vector<TokenProb> out;
  for (int id : by_probability(p, k)) out.push_back({id, float(p[id] / sum)});
  return out;
}

int sample_token(const float* logits, int V, float temperature, float top_p, Rng& rng) {
  if (temperature <= 0) return int(std::max_element(logits, logits + V) - logits);
  std::vector<double> p;
  const double sum = weights(logits, V, temperature, p);
  const double u = rng.uniform_double();
  if (top_p >= 1) {
    double r = u * sum, acc = 0;
    for (int i = 0; i < V; ++i)
      if ((acc += p[i]) > r) return i;
    return V - 1;
  }
  const std::vector<int> order = by_probability(p, V);
  double mass = 0;
  std::size_t n = 0;
  while (n < order.size() && mass < top_p * sum) mass += p[order[n++]];
  double r = u * mass, acc = 0;
  for (std::size_t i = 0; i < n; ++i)
    if ((acc += p[order[i]]) > r) return order[i];
  return order[n - 1];
}

}  // namespace lookback
