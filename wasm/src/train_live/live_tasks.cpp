// Row generators of the live tasks; see live_tasks.hpp.
#include "train_live/live_tasks.hpp"

#include <algorithm>
#include <stdexcept>

#include "train/corpus.hpp"

namespace lookback::live {
namespace {

std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Draw {
  std::uint64_t s;
  int below(int n) { return int((s = mix(s)) % std::uint64_t(n)); }
  std::uint16_t letter() { return std::uint16_t(kLetterLo + below(kLetterHi - kLetterLo)); }
};

// row[0] = <s>; row[1..T] filled by the task; scored[t] marks target row[t + 1].
void induction_row(Draw& d, int T, std::uint16_t* row, std::uint8_t* scored) {
  const int n = kMinRepeat + d.below(std::max(1, T / 2 - kMinRepeat + 1));
  for (int i = 1; i <= T; ++i) row[i] = i <= n ? d.letter() : row[i - n];
  for (int t = 0; t < T; ++t) scored[t] = t + 1 > n;
}

void previous_row(Draw& d, int T, std::uint16_t* row, std::uint8_t* scored) {
  for (int i = 1; i <= T; ++i) {
    const int k = (i - 1) % 3;
    row[i] = k == 2 ? row[i - 2] : d.letter();
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

Task parse_task(const std::string& name) {
  if (name == "induction") return Task::induction;
  if (name == "previous") return Task::previous;
  if (name == "corpus") return Task::corpus;
  throw std::invalid_argument("unknown task '" + name + "' (expected induction, previous or corpus)");
}

const char* task_name(Task t) {
  return t == Task::induction ? "induction" : t == Task::previous ? "previous" : "corpus";
}

TaskRows task_rows(Task task, int T, int rows, std::uint64_t seed, int split) {
  if (T < 2 * kMinRepeat + 1) throw std::invalid_argument("task rows need T >= " + std::to_string(2 * kMinRepeat + 1));
  TaskRows out;
  out.T = T;
  out.ids.assign(std::size_t(rows) * (T + 1), 0);
  out.scored.assign(std::size_t(rows) * T, 0);
  Draw d{mix(seed ^ mix(0x7A5Cull + std::uint64_t(split)))};
  for (int r = 0; r < rows; ++r) {
    std::uint16_t* row = out.ids.data() + std::size_t(r) * (T + 1);
    std::uint8_t* sc = out.scored.data() + std::size_t(r) * T;
    row[0] = 0;
    if (task == Task::induction) induction_row(d, T, row, sc);
    else if (task == Task::previous) previous_row(d, T, row, sc);
    else corpus_row(d, seed, split, std::uint64_t(r), T, row, sc);
  }
  return out;
}

}  // namespace lookback::live
