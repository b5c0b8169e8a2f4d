// What a person reads about each task a live training run learns: its label and what its own loss scores, keyed
// by the task's name. The names are the training module's (wasm/src/train_live/live_tasks.cpp task_names, which
// the JS API reads through trainTasks() to check a task); tests/js/train.test.mjs fails when these keys differ
// from them, tests/js/types.test.mjs when the API's TrainTask type does. Read by the training widget (its menu and
// labels). Only data: imports nothing.
export const TRAIN_TASKS = Object.freeze({
  induction: Object.freeze({ label: 'random symbols, repeated', scored: 'repeat' }),
  previous: Object.freeze({ label: 'copy the token before', scored: 'copied tokens' }),
  corpus: Object.freeze({ label: 'Sprout stories (bytes)', scored: 'held-out text', all: true }),  // all: every held-out token scored (its loss is the held-out loss)
});
