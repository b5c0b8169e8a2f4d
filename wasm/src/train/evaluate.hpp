// Evaluation of a trained Sprout (and the window baseline) on held-out text: validation loss, the probes
// (object recall, swap, made-up names, pronouns) and every head's measured habits. The result is the
// model card's JSON; nothing in it is typed by hand. Native only (it generates the held-out text with the
// corpus generator). Not here: file checksums and the readable summary (the eval script adds those).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/bundle.hpp"
#include "model/window_model.hpp"

namespace lookback::train {

struct EvalOptions {
  std::uint64_t seed = 1;    // the corpus seed the models were trained with (validation/probe splits)
  int val_stories = 400;     // validation stories for the losses
  int head_texts = 200;      // of those, how many the head habits are measured on
  int probes = 300;          // probes of each kind
  int repeats = 100;         // random repeated sequences for the induction score
  int repeat_len = 50;       // tokens in each half
};

// window may be null (its rows are left out of the card).
nlohmann::json evaluate(const LoadedModel& sprout, const WindowModel* window, const EvalOptions& o);

}  // namespace lookback::train
