// Generation one call at a time: the same loop as generate() (generate.hpp), with its state (the text, the
// sampler's generator, the count) kept between calls, so a caller can show each token as it comes and stop
// between steps. The same prompt, options and seed give the same tokens as generate().
// Not here: sampling rules (sampler.hpp), the one-call loop (generate.cpp).
#pragma once
#include <string>
#include <vector>

#include "model/generate.hpp"
#include "model/rng.hpp"

namespace lookback {

class GenerationStream {
 public:
  // Checks the options and remembers the prompt (which must fit the context unless options.window).
  GenerationStream(const Session& s, const std::vector<int>& prompt, const GenerateOptions& o);

  // Up to `count` more tokens, appended to ids(); the session may have been used for other texts between
  // calls (its cache is brought back to this text first). After the stop, returns no tokens.
  std::vector<int> step(Session& s, int count);

  bool done() const { return !stop_.empty(); }
  const std::string& stop() const { return stop_; }  // "" while running, else as Generation::stop
  const std::vector<int>& ids() const { return ids_; }

 private:
  GenerateOptions o_;
  std::vector<int> text_;  // what the session must hold before the next draw
  std::vector<int> ids_;   // the new tokens so far
  Rng rng_;
  std::string stop_;
};

}  // namespace lookback
