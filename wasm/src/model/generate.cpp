// The generation loop over a Session and the sliding-window helper. Not here: the forward pass.
#include "model/generate.hpp"

#include <algorithm>

#include "model/errors.hpp"
#include "model/sampler.hpp"

namespace lookback {

std::vector<int> sliding_window(const std::vector<int>& ids, int size, int bos) {
  if (size < 1) model_error("sliding window: size must be at least 1 (got ", size, ")");
  if (int(ids.size()) <= size) return ids;
  const bool keep_bos = !ids.empty() && ids[0] == bos && size > 1;
  std::vector<int> out;
  if (keep_bos) out.push_back(bos);
  out.insert(out.end(), ids.end() - (size - int(out.size())), ids.end());
  return out;
}

std::optional<std::vector<int>> fit_context(std::vector<int> ids, const ModelConfig& c, bool window) {
  if (int(ids.size()) <= c.max_seq_len) return ids;
  if (!window) return std::nullopt;
  return sliding_window(ids, c.max_seq_len, c.bos_id);
}

Generation generate(Session& s, const std::vector<int>& prompt, const GenerateOptions& o) {
  const ModelConfig& c = s.model().config();
  if (o.max_tokens < 0) model_error("generate: max_tokens must be >= 0 (got ", o.max_tokens, ")");
  if (!(o.temperature >= 0)) model_error("generate: temperature must be >= 0 (got ", o.temperature, ")");
  if (!(o.top_p > 0 && o.top_p <= 1)) model_error("generate: top_p must be in (0, 1] (got ", o.top_p, ")");
  StepOptions step;
  step.positions = o.positions;
  step.all_logits = false;
  std::vector<int> text = o.window ? sliding_window(prompt, c.max_seq_len, c.bos_id) : prompt;
  s.process(text, step);
  Rng rng(o.seed);
  Generation g;
  g.stop = "max_tokens";
  while (int(g.ids.size()) < o.max_tokens) {
    const int next = sample_token(s.last_logits(), c.vocab_size, o.temperature, o.top_p, rng);
    if (next == c.eos_id || next == c.bos_id) {
      g.stop = "end";
      break;
    }
    g.ids.push_back(next);
    text.push_back(next);
    if (int(g.ids.size()) == o.max_tokens) break;
    if (s.length() < c.max_seq_len) {
      s.append(next, step);
    } else if (o.window) {
      text = sliding_window(text, std::max(1, c.max_seq_len / 2), c.bos_id);
      s.process(text, step);
    } else {
      g.stop = "context";
      break;
    }
  }
  return g;
}

}  // namespace lookback
