// The small tasks a model can be trained on live (in a page or a test), each row generated from a seed:
//   induction - the start mark, n random tokens (no token twice), then the same tokens again to the row's end;
//   previous  - the start mark, then triples (a, b, a) of random tokens: the third repeats the token before b;
//   corpus    - the start mark and bytes of a Sprout corpus story (byte-level ids).
// Ids are byte-level (0 <s>, 1 </s>, 2 + byte), so the plain byte tokenizer reads them; the random tokens come
// from an alphabet: the first `alphabet` bytes of an order that starts with the 188 visible ones (letters, digits,
// punctuation, Latin-1 letters and signs).
// Each row carries a mask of the targets that measure the task's own skill (for induction: the repeated tokens
// a copy can predict, i.e. after the first token of the repeat; the copies; every target for corpus).
// Not here: the model or the training loop (live_run.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lookback::live {

enum class Task { induction, previous, corpus };
// The tasks' names in the order of Task: the one list of them (the training module gives it to JS as
// trainTasks(); web/js/train-tasks.js labels the same names and a test compares the two).
const std::vector<std::string>& task_names();
Task parse_task(const std::string& name);  // throws std::invalid_argument naming the choices
const char* task_name(Task t);

constexpr int kVocab = 258;     // <s>, </s>, 256 bytes
constexpr int kMinRepeat = 4;   // an induction row's first copy holds at least this many tokens

// The defaults are what made an induction head form quickly and reliably in the tuning runs (README, "Live
// training"): many distinct tokens, so that a guess among the tokens already seen is worth little, and first
// copies of varied length, so that no fixed offset finds the earlier copy.
struct TaskSpec {
  Task task = Task::induction;
  int alphabet = 188;           // distinct random tokens, 2 to 256 (188: every visible one)
  int repeat_min = 0;           // induction: the first copy's length n, drawn from [repeat_min, repeat_max];
  int repeat_max = 0;           // 0: T/2 - 3T/16 and T/2 (10 and 16 for T = 32)
  bool distinct = true;         // induction: no token twice inside the first copy
};

// The first copy's shortest and longest length for rows of T tokens.
std::pair<int, int> repeat_range(const TaskSpec& spec, int T);

// The id of the alphabet's i-th token (i < 256).
std::uint16_t alphabet_id(int i);

struct TaskRows {
  int T = 0;                          // each row holds T + 1 ids (T predictions)
  std::vector<std::uint16_t> ids;     // [rows, T + 1]
  std::vector<std::uint8_t> scored;   // [rows, T]: 1 where target t + 1 measures the task
  int rows() const { return T ? int(ids.size() / (T + 1)) : 0; }
};

// Checks a spec for rows of T tokens; throws std::invalid_argument naming what is wrong.
void check_spec(const TaskSpec& spec, int T);

// `rows` rows of the task. Each (seed, split, first) gives its own rows: split 0 is training data (first = the
// index of the first row, so consecutive calls continue the stream), split 1 held out (other seeds, other stories).
TaskRows task_rows(const TaskSpec& spec, int T, int rows, std::uint64_t seed, int split, std::uint64_t first = 0);

}  // namespace lookback::live
