// A live training run; see live_run.hpp.
#include "train_live/live_run.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/bpe.hpp"
#include "model/head_scores.hpp"
#include "model/safetensors.hpp"
#include "model/session.hpp"
#include "train/sprout_train.hpp"

namespace lookback::live {
namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("live training: " + what);
}

// Mean loss of the scored targets (all when every is set) of one row's logits [T, V].
void row_losses(const std::vector<float>& logits, const std::uint16_t* ids, const std::uint8_t* scored, int T,
                int V, double& all, double& task, long& n_task) {
  for (int t = 0; t < T; ++t) {
    const float* row = logits.data() + std::size_t(t) * V;
    const float mx = *std::max_element(row, row + V);
    double s = 0;
    for (int j = 0; j < V; ++j) s += std::exp(double(row[j]) - mx);
    const double loss = std::log(s) - (double(row[ids[t + 1]]) - mx);
    all += loss;
    if (scored[t]) task += loss, ++n_task;
  }
}

}  // namespace

ModelConfig live_config(const LiveModel& m, bool runtime) {
  check(m.layers >= 1 && m.layers <= 4, "layers must be 1 to 4");
  check(m.heads >= 1 && m.heads <= 8, "heads must be 1 to 8");
  check(m.dim >= 8 && m.dim <= 256 && m.dim % (2 * m.heads) == 0, "dim must be 8 to 256, a multiple of 2 * heads");
  check(m.seq_len >= 2 * kMinRepeat + 1 && m.seq_len <= 128,
        "seq_len must be " + std::to_string(2 * kMinRepeat + 1) + " to 128");
  check(std::isfinite(m.qk_gain) && m.qk_gain > 0 && m.qk_gain <= 8, "qk_gain must be in (0, 8]");
  ModelConfig c;
  c.arch = "sprout";
  c.dim = m.dim, c.n_layers = m.layers, c.n_heads = c.n_kv_heads = m.heads, c.head_dim = m.dim / m.heads;
  c.hidden_dim = m.mlp ? 4 * m.dim : runtime ? 2 : 0;
  c.vocab_size = kVocab, c.max_seq_len = m.seq_len;
  c.qk_norm = m.qk_norm;
  return c;
}

namespace {

TaskSpec spec_of(const LiveOptions& o) {
  TaskSpec s;
  s.task = parse_task(o.task);
  s.alphabet = o.alphabet, s.repeat_min = o.repeat_min, s.repeat_max = o.repeat_max, s.distinct = o.distinct;
  check_spec(s, o.model.seq_len);
  return s;
}

AdamOptions adam_of(const LiveOptions& o) {
  check(o.batch >= 1 && o.batch <= 256, "batch must be 1 to 256");
  check(std::isfinite(o.lr) && o.lr > 0 && o.lr <= 0.1f, "lr must be in (0, 0.1]");
  check(o.warmup >= 0, "warmup must be >= 0");
  check(std::isfinite(o.beta2) && o.beta2 > 0 && o.beta2 < 1, "beta2 must be in (0, 1)");
  check(std::isfinite(o.weight_decay) && o.weight_decay >= 0 && o.weight_decay <= 1, "weight_decay must be in [0, 1]");
  AdamOptions a;
  a.lr = o.lr, a.warmup = o.warmup, a.beta2 = o.beta2, a.weight_decay = o.weight_decay;
  return a;
}

}  // namespace

LiveRun::LiveRun(const LiveOptions& o)
    : opt_(o), spec_(spec_of(o)), train_cfg_(live_config(o.model, false)), model_(train_cfg_),
      w_(model_.n_params()), grad_(model_.n_params()), adam_(adam_of(o), model_.n_params()) {
  check(o.held_out >= 1 && o.held_out <= 1024 && o.probes >= 1 && o.probes <= 64, "held_out 1..1024, probes 1..64");
  held_out_ = task_rows(spec_, train_cfg_.max_seq_len, o.held_out, o.seed, 1);
  model_.init(w_.data(), o.seed);
  if (train_cfg_.qk_norm) {  // the QK-norm gains' starting value: score spread about qk_gain² at the start
    for (const auto& p : model_.params())
      if (p.name.find("_norm.weight") != std::string::npos && p.name.find(".attention.") != std::string::npos)
        std::fill_n(w_.begin() + long(p.offset), p.size, o.model.qk_gain);
  }
}

double LiveRun::step() {
  const std::uint64_t first = std::uint64_t(adam_.steps()) * std::uint64_t(opt_.batch);
  const TaskRows rows = task_rows(spec_, train_cfg_.max_seq_len, opt_.batch, opt_.seed, 0, first);
  const double loss = model_.loss_grad(w_.data(), rows.ids.data(), opt_.batch, grad_.data(), 1);
  adam_.update(model_.params(), w_.data(), grad_.data());
  return loss;
}

long LiveRun::steps_done() const { return adam_.steps(); }

std::size_t LiveRun::parameters() const { return model_.n_params(); }

std::vector<float> LiveRun::logits(const std::uint16_t* ids) { return model_.logits(w_.data(), ids); }

Losses LiveRun::evaluate() {
  const int T = held_out_.T, V = train_cfg_.vocab_size;
  double all = 0, task = 0;
  long n_task = 0;
  for (int r = 0; r < held_out_.rows(); ++r) {
    const std::uint16_t* ids = held_out_.ids.data() + std::size_t(r) * (T + 1);
    row_losses(model_.logits(w_.data(), ids), ids, held_out_.scored.data() + std::size_t(r) * T, T, V, all, task,
               n_task);
  }
  return {all / (double(held_out_.rows()) * T), n_task ? task / double(n_task) : NAN};
}

Bundle LiveRun::bundle() const {
  // the runtime's tensor list (a zero MLP of width 2 when the model has none), filled by name
  const ModelConfig rc = live_config(opt_.model, true);
  const train::SproutTrain shape(rc);
  const auto& trained = model_.params();
  const float* w = w_.data();
  std::vector<float> buffer(shape.n_params(), 0.0f);
  std::vector<NamedTensor> tensors;
  for (const auto& p : shape.params()) {
    const auto it = std::find_if(trained.begin(), trained.end(), [&](const auto& q) { return q.name == p.name; });
    if (it != trained.end() && it->size == p.size) std::copy(w + it->offset, w + it->offset + p.size, buffer.begin() + p.offset);
    tensors.push_back({p.name, p.shape, buffer.data() + p.offset});
  }
  Bundle b;
  b.weights = write_safetensors(tensors, false, {{"step", std::to_string(steps_done())},
                                                 {"task", task_name(spec_.task)}, {"seed", std::to_string(opt_.seed)}});
  b.config = train::model_config_json(rc).dump(2);
  b.tokenizer = BpeTokenizer().to_json();
  return b;
}

ProbeView LiveRun::probe() const {
  const Bundle b = bundle();
  const ModelConfig rc = live_config(opt_.model, true);
  Session s(std::make_shared<const Transformer>(read_safetensors(rc, b.weights.data(), b.weights.size())));
  StepOptions so;
  so.attention = true;
  const int T = rc.max_seq_len;
  ProbeView v;
  v.ids.assign(held_out_.ids.begin(), held_out_.ids.begin() + T);
  s.process(v.ids, so);
  v.attention = s.attention();
  // head scores on random tokens of the task's alphabet repeated: [<s>, R, R] with R as long as fits
  HeadScoreAccumulator acc(rc.n_layers, rc.n_heads);
  const int n = (T - 1) / 2;
  for (int r = 0; r < opt_.probes; ++r) {
    std::vector<int> ids = {rc.bos_id};
    for (int i : random_repeat(opt_.seed * 7919 + std::uint64_t(r) + 1, n, 0, spec_.alphabet)) ids.push_back(alphabet_id(i));
    s.process(ids, so);
    acc.add_repeat(s.attention().data(), n);
  }
  const HeadScores h = acc.result();
  v.previous = h.previous_token_on_random_tokens.score;
  v.induction = h.induction.score;
  return v;
}

}  // namespace lookback::live
