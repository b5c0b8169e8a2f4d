// One running text on a Transformer: the forward pass with its key/value cache. Processing a text reuses
// the longest prefix already computed (so editing the end of a text, or decoding one more token, costs
// only the new positions), and can record, per position, the logits, every head's attention weights and
// the residual stream. All buffers belong to the session and only grow, so decoding allocates nothing.
// Not here: sampling (sampler.hpp), generation loops (generate.hpp), tokenizers.
// Letters: T tokens, S keys, L layers, H heads, Hkv key/value heads, D head width, C = dim, F hidden, V vocab.
#pragma once
#include <memory>
#include <vector>

#include "base/aligned.hpp"
#include "model/transformer.hpp"

namespace lookback {

struct StepOptions {
  bool positions = true;   // rotary or learned positions; false: the model sees no order at all (shuffle test)
  bool attention = false;  // record attention weights of the computed positions
  bool residuals = false;  // record the residual stream of the computed positions
  bool all_logits = true;  // logits of every computed position (false: only the last one)
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Transformer> model);

  const Transformer& model() const { return *model_; }
  const std::vector<int>& tokens() const { return tokens_; }
  int length() const { return int(tokens_.size()); }

  // Makes the session hold `ids` (1 to max_seq_len ids, each in [0, V); ModelError otherwise). Positions
  // already computed for the same leading ids with the same options are kept; at least the last position is
  // recomputed. Returns how many positions were reused.
  int process(const std::vector<int>& ids, const StepOptions& o = {});
  // Appends one token (a decoding step); same as process(tokens() + id) but without the prefix search.
  void append(int id, const StepOptions& o = {});
  void reset();

  // Logits of position t: [V]. The last position always has them; others need all_logits.
  const float* logits(int t) const;
  const float* last_logits() const { return logits(length() - 1); }
  // All positions' logits [T, V], attention [L, H, T, T] (zero above the diagonal) and residual stream
  // [L+1, T, C] (before each layer, then after the last), for T = length(). Each needs the matching
  // option on the process() call that computed the positions (ModelError otherwise).
  std::vector<float> all_logits() const;
  std::vector<float> attention() const;
  std::vector<float> residuals() const;

 private:
  void check_ids(const int* ids, int n, int first_index) const;
  void truncate(int n);
  void run(const int* ids, int T, const StepOptions& o);  // positions length() .. length()+T
  void layer(int l, int T, int start, int first, const StepOptions& o);
  void check_finite_logits(int start, int first, int rows);  // ModelError (and the new positions dropped) if not
  void mlp(int l, int first, int T);        // rows first..first+T-1
  void norm(const float* x, const float* w, const float* b, float* y, int rows) const;  // the config's norm
  void norm_rows(const float* w, const float* b, int first, int T);  // xn = norm(x), rows first..first+T-1
  void reserve_workspace(int T, int S, bool attention);
  void reserve_kv(int S);  // room for S positions in the cache, keeping the length() cached
  // Keys (which = 0) or values (1) of layer l from position t on: rows of Hkv*D floats.
  float* kv(int l, int which, int t) {
    return kv_.data() + ((std::size_t(l) * 2 + which) * kv_rows_ + t) * kv_width_;
  }

  std::shared_ptr<const Transformer> model_;
  int kv_width_;                 // Hkv * D
  std::vector<int> tokens_;      // the tokens whose keys and values are cached
  bool positions_ = true;        // the position mode the cache was computed with
  // [L, 2, kv_rows_, Hkv*D]: per layer the keys, then the values. It grows with the texts seen (doubling, up to
  // max_seq_len rows), so a file's context of 65,536 costs nothing until texts that long come.
  std::vector<float> kv_;
  int kv_rows_ = 0;
  // per-position records, valid for the leading rows counted beside them
  std::vector<float> logits_;    // [T, V]
  int logits_rows_ = 0;
  std::vector<float> attn_;      // row t: [L, H, t+1] (causal weights only), rows stored one after another
  int attn_rows_ = 0;
  std::vector<float> resid_;     // [T, L+1, C]
  int resid_rows_ = 0;
  // workspace, on cache lines: the threads write the attention output's heads side by side
  AlignedVector<float> x_, xn_, qkv_, att_, hid_, weights_;
};

}  // namespace lookback
