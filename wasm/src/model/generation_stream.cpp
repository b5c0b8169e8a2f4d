// The resumable generation loop. Not here: the one-call loop (generate.cpp), which this mirrors step by step.
#include "model/generation_stream.hpp"

#include <algorithm>

#include "model/errors.hpp"
#include "model/sampler.hpp"

namespace lookback {

GenerationStream::GenerationStream(const Session& s, const std::vector<int>& prompt, const GenerateOptions& o)
    : o_(o), rng_(o.seed) {
  const ModelConfig& c = s.model().config();
  if (o.max_tokens < 0) model_error("generate: max_tokens must be >= 0 (got ", o.max_tokens, ")");
  if (!(o.temperature >= 0)) model_error("generate: temperature must be >= 0 (got ", o.temperature, ")");
  if (!(o.top_p > 0 && o.top_p <= 1)) model_error("generate: top_p must be in (0, 1] (got ", o.top_p, ")");
  text_ = o.window ? sliding_window(prompt, c.max_seq_len, c.bos_id) : prompt;
  if (o.max_tokens == 0) stop_ = "max_tokens";
}

std::vector<int> GenerationStream::step(Session& s, int count) {
  const ModelConfig& c = s.model().config();
  StepOptions step;
  step.positions = o_.positions;
  step.all_logits = false;
  std::vector<int> out;
  while (!done() && int(out.size()) < count) {
    s.process(text_, step);  // computes only what the cache lacks: the last token, after a step
    const int next = sample_token(s.last_logits(), c.vocab_size, o_.temperature, o_.top_p, rng_);
    if (next == c.eos_id || next == c.bos_id) {
      stop_ = "end";
      break;
    }
    ids_.push_back(next);
    out.push_back(next);
    text_.push_back(next);
    if (int(ids_.size()) == o_.max_tokens) {
      stop_ = "max_tokens";
    } else if (int(text_.size()) <= c.max_seq_len) {
      // the next call computes the new token's position
    } else if (o_.window) {
      text_ = sliding_window(text_, std::max(1, c.max_seq_len / 2), c.bos_id);
    } else {
      stop_ = "context";
    }
  }
  return out;
}

}  // namespace lookback
