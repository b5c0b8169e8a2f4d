// Generation: feed a prompt, then sample one token at a time with the key/value cache until the end mark,
// the token budget or the full context. With `window`, a full context slides instead: the oldest tokens
// are dropped (the start mark kept) and the rest recomputed, half a context at a time. Also the explicit
// sliding-window helper for texts longer than the context. Not here: sampling rules (sampler.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/session.hpp"

namespace lookback {

struct GenerateOptions {
  int max_tokens = 64;
  float temperature = 1.0f;  // 0 = greedy
  float top_p = 1.0f;        // nucleus mass in (0, 1]
  std::uint64_t seed = 1;
  bool window = false;       // slide past the context instead of stopping
  bool positions = true;
};

struct Generation {
  std::vector<int> ids;  // the new tokens (without the stopping mark)
  std::string stop;      // "end" (end or start mark sampled), "max_tokens" or "context"
};

// The prompt must fit the context unless options.window (then sliding_window() applies to it).
Generation generate(Session& s, const std::vector<int>& prompt, const GenerateOptions& o);

// The last `size` ids; when ids start with the start mark (bos) it stays first and the rest is the last
// size-1. ids shorter than size come back unchanged.
std::vector<int> sliding_window(const std::vector<int>& ids, int size, int bos);

// The ids a call on a model of config c runs on: all of them when they fit its context; else, with window,
// sliding_window() of them; without, nothing (the caller says how to ask for the window).
std::optional<std::vector<int>> fit_context(std::vector<int> ids, const ModelConfig& c, bool window);

}  // namespace lookback
