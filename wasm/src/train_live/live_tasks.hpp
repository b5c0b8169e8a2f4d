// The small tasks a model can be trained on live (in a page or a test), each row generated from a seed:
//   induction - the start mark, n random letters, then the same letters again to the row's end;
//   previous  - the start mark, then triples (a, b, a) of random letters: the third repeats the token before b;
//   corpus    - the start mark and the first bytes of a Sprout corpus story (byte-level ids).
// Ids are byte-level (0 <s>, 1 </s>, 2 + byte), so the plain byte tokenizer reads them. Each row carries a mask
// of the targets that measure the task's own skill (the repeat, the copies; every target for corpus).
// Not here: the model or the training loop (live_run.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lookback::live {

enum class Task { induction, previous, corpus };
Task parse_task(const std::string& name);  // throws std::invalid_argument naming the choices
const char* task_name(Task t);

constexpr int kVocab = 258;                                // <s>, </s>, 256 bytes
constexpr int kLetterLo = 2 + 'A', kLetterHi = 2 + 'z' + 1;  // random letters: the bytes 'A'..'z'
constexpr int kMinRepeat = 6;                              // induction rows repeat 6 .. T/2 letters

struct TaskRows {
  int T = 0;                          // each row holds T + 1 ids (T predictions)
  std::vector<std::uint16_t> ids;     // [rows, T + 1]
  std::vector<std::uint8_t> scored;   // [rows, T]: 1 where target t + 1 measures the task
  int rows() const { return T ? int(ids.size() / (T + 1)) : 0; }
};

// `rows` rows of the task; split 0 is training data, split 1 held out (disjoint seeds, and other stories).
TaskRows task_rows(Task task, int T, int rows, std::uint64_t seed, int split);

}  // namespace lookback::live
