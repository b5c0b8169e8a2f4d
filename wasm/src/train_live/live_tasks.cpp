// Row generators of the live tasks; see live_tasks.hpp.
#include "train_live/live_tasks.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/splitmix64.hpp"
#include "train/corpus.hpp"

namespace lookback::live {
namespace {


// Bytes in the order alphabets take them: letters, digits, punctuation, the printable Latin-1 characters
// (without the soft hyphen), then every other byte: the first 188 are visible characters.
struct Order {
  std::uint8_t b[256];
  Order() {
    int n = 0;
    bool used[256] = {};
    auto add = [&](int lo, int hi) {
      for (int c = lo; c <= hi; ++c)
        if (!used[c]) used[c] = true, b[n++] = std::uint8_t(c);
    };
    add('A', 'Z'), add('a', 'z'), add('0', '9'), add('!', '~'), add(0xA1, 0xAC), add(0xAE, 0xFF), add(0, 0xFF);
  }
};

struct Draw {
  std::uint64_t state;
  int below(int n) { return int(splitmix64_next(state) % std::uint64_t(n)); }
};

// row[0] = <s>; row[1..T] filled by the task; scored[t] marks target row[t + 1].
void induction_row(Draw& d, const TaskSpec& spec, int T, std::uint16_t* row, std::uint8_t* scored) {
  const auto [lo, hi] = repeat_range(spec, T);
  const int n = lo + d.below(hi - lo + 1);
  int pick[256];
  for (int i = 0; i < spec.alphabet; ++i) pick[i] = i;
  for (int i = 1; i <= n; ++i) {
    if (spec.distinct) {  // a partial Fisher-Yates shuffle
      const int j = (i - 1) + d.below(spec.alphabet - (i - 1));
      std::swap(pick[i - 1], pick[j]);
      row[i] = alphabet_id(pick[i - 1]);
    } else {
      row[i] = alphabet_id(d.below(spec.alphabet));
    }
  }
  for (int i = n + 1; i <= T; ++i) row[i] = row[i - n];
  for (int t = 0; t < T; ++t) scored[t] = t > n;  // the current token t was seen before: a copy predicts t + 1
}

void previous_row(Draw& d, const TaskSpec& spec, int T, std::uint16_t* row, std::uint8_t* scored) {
  for (int i = 1; i <= T; ++i) {
    const int k = (i - 1) % 3;
    row[i] = k == 2 ? row[i - 2] : alphabet_id(d.below(spec.alphabet));
    scored[i - 1] = k == 2;
  }
}

// T bytes of story `index` from a random offset (story openings are much alike).
void corpus_row(Draw& d, std::uint64_t seed, int split, std::uint64_t index, int T, std::uint16_t* row,
                std::uint8_t* scored) {
  const auto s = corpus::make_story(seed, split ? corpus::Split::validation : corpus::Split::train, index);
  const std::size_t from = std::size_t(d.below(std::max(1, int(s.text.size()) - T)));
  for (int i = 1; i <= T; ++i) {
    const std::size_t c = from + std::size_t(i - 1);
    row[i] = c < s.text.size() ? std::uint16_t(2 + std::uint8_t(s.text[c])) : std::uint16_t(1);
    scored[i - 1] = 1;
  }
}

}  // namespace

const std::vector<std::string>& task_names() {
  static const std::vector<std::string> names = {"induction", "previous", "corpus"};
  return names;
}

Task parse_task(const std::string& name) {
  const auto& names = task_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return Task(i);
  std::string choices;
  for (std::size_t i = 0; i < names.size(); ++i)
    choices += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw std::invalid_argument("unknown task '" + name + "' (expected " + choices + ")");
}

const char* task_name(Task t) { return task_names().at(std::size_t(t)).c_str(); }

std::uint16_t alphabet_id(int i) {
  static const Order order;
  return std::uint16_t(2 + order.b[i & 255]);
}

std::pair<int, int> repeat_range(const TaskSpec& spec, int T) {
  return {spec.repeat_min ? spec.repeat_min : T / 2 - 3 * T / 16, spec.repeat_max ? spec.repeat_max : T / 2};
}

void check_spec(const TaskSpec& spec, int T) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("live task: " + what);
  };
  need(T >= 2 * kMinRepeat + 1, "rows need T >= " + std::to_string(2 * kMinRepeat + 1));
  need(spec.alphabet >= 2 && spec.alphabet <= 256, "alphabet must be 2 to 256");
  const auto [lo, hi] = repeat_range(spec, T);
  need(lo >= kMinRepeat && lo <= hi && hi <= T / 2,
       "repeat lengths must satisfy " + std::to_string(kMinRepeat) + " <= min <= max <= T/2");
  need(!spec.distinct || spec.task != Task::induction || hi <= spec.alphabet,
       "a first copy without repeated tokens needs repeat_max <= alphabet");
}

TaskRows task_rows(const TaskSpec& spec, int T, int rows, std::uint64_t seed, int split, std::uint64_t first) {
  check_spec(spec, T);
  TaskRows out;
  out.T = T;
  out.ids.assign(std::size_t(rows) * (T + 1), 0);
  out.scored.assign(std::size_t(rows) * T, 0);
  for (int r = 0; r < rows; ++r) {
    const std::uint64_t index = first + std::uint64_t(r);
    Draw d{splitmix64(seed ^ splitmix64(0x7A5Cull + std::uint64_t(split)) ^ splitmix64(index * 0x9E37ull + 1))};
    std::uint16_t* row = out.ids.data() + std::size_t(r) * (T + 1);
    std::uint8_t* sc = out.scored.data() + std::size_t(r) * T;
    row[0] = 0;
    if (spec.task == Task::induction) induction_row(d, spec, T, row, sc);
    else if (spec.task == Task::previous) previous_row(d, spec, T, row, sc);
    else corpus_row(d, seed, split, index, T, row, sc);
  }
  return out;
}

}  // namespace lookback::live
