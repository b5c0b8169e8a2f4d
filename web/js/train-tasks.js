// The tasks a live training run learns, in one table: each task's name (as the training module,
// wasm/src/train_live/live_tasks.cpp, takes it), what a person reads about it, and what its own loss scores.
// Read by the JS API (train.js: the names it accepts) and the training widget (its menu and labels); the API's
// TrainTask type is checked against it (tests/js/types.test.mjs). Only data: imports nothing.
export const TRAIN_TASKS = Object.freeze({
  induction: Object.freeze({ label: 'random symbols, repeated', scored: 'repeat' }),
  previous: Object.freeze({ label: 'copy the token before', scored: 'copied tokens' }),
  corpus: Object.freeze({ label: 'Sprout stories (bytes)', scored: 'held-out text', all: true }),  // all: every held-out token scored (its loss is the held-out loss)
});
