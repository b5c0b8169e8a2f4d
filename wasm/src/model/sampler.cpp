// top_k (the candidates in logit order, ties by id; the normaliser from the vectorised float32 softmax) and
// sample_token (float64 softmax, a stable order, one uniform draw per sampled token).
// Not here: the generator (rng.hpp) or generation (generate.cpp).
#include "model/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "lookback/kernels.hpp"

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

// The ids of the `keep` largest of x[n], descending, ties by id (probabilities, or logits: the same order). For a
// few, one pass that keeps them sorted (a next-token call wants 1 to 10 of a vocabulary of thousands); for more, a
// partial sort.
template <class X>
std::vector<int> largest(const X* x, int n, int keep) {
  auto before = [&](int a, int b) { return x[a] != x[b] ? x[a] > x[b] : a < b; };
  keep = std::min(keep, n);
  if (keep > 32) {
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), before);
    order.resize(std::size_t(keep));
    return order;
  }
  std::vector<int> top;
  top.reserve(std::size_t(keep) + 1);
  for (int i = 0; i < n; ++i) {
    if (int(top.size()) == keep && !before(i, top.back())) continue;
    top.insert(std::upper_bound(top.begin(), top.end(), i, before), i);
    if (int(top.size()) > keep) top.pop_back();
  }
  return top;
}

}  // namespace

std::vector<TokenProb> top_k(const float* logits, int V, int k, float temperature) {
  // The normaliser from the vectorised row softmax (a float64 exp per vocabulary entry cost more than the rest of
  // a next-token call's own work): the largest logit's exp is 1, so its probability there is 1 / sum. Each kept
  // token's probability is then its own exp over that, so equal logits get equal probabilities.
  const std::vector<int> ids = largest(logits, V, k);
  if (ids.empty()) return {};
  thread_local std::vector<float> e;
  e.assign(logits, logits + V);
  softmax_rows(e.data(), 1, V, temperature);
  const int best = ids[0];
  const double inv_sum = e[std::size_t(best)], mx = logits[best];
  std::vector<TokenProb> out;
  for (int id : ids) out.push_back({id, float(std::exp((double(logits[id]) - mx) / temperature) * inv_sum)});
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
  const std::vector<int> order = largest(p.data(), V, V);
  double mass = 0;
  std::size_t n = 0;
  while (n < order.size() && mass < top_p * sum) mass += p[order[n++]];
  double r = u * mass, acc = 0;
  for (std::size_t i = 0; i < n; ++i)
    if ((acc += p[order[i]]) > r) return order[i];
  return order[n - 1];
}

}  // namespace lookback
