// Benchmark harness around llama2.c's run.c (included unmodified): load a legacy checkpoint from bytes in
// the heap and decode greedily with run.c's own forward(). Not part of lookback; built only by
// tests/bench/llama2c.mjs for `npm run bench`.
#define TESTING
#include "run.c"

#include <emscripten/emscripten.h>

// Takes ownership of `bytes` (malloc'd, the whole .bin file). Returns null when the size is impossible.
EMSCRIPTEN_KEEPALIVE Transformer* rc_load(unsigned char* bytes, long size) {
  if (size < (long)sizeof(Config)) return NULL;
  Transformer* t = calloc(1, sizeof(Transformer));
  memcpy(&t->config, bytes, sizeof(Config));
  int shared_weights = t->config.vocab_size > 0 ? 1 : 0;
  t->config.vocab_size = abs(t->config.vocab_size);
  t->data = (float*)bytes;
  t->file_size = size;
  t->fd = -1;
  memory_map_weights(&t->weights, &t->config, (float*)bytes + sizeof(Config) / sizeof(float), shared_weights);
  malloc_run_state(&t->state, &t->config);
  return t;
}

EMSCRIPTEN_KEEPALIVE void rc_free(Transformer* t) {
  free_run_state(&t->state);
  free(t->data);
  free(t);
}

EMSCRIPTEN_KEEPALIVE int rc_vocab(Transformer* t) { return t->config.vocab_size; }
EMSCRIPTEN_KEEPALIVE int rc_seq_len(Transformer* t) { return t->config.seq_len; }

// One forward() of `token` at `pos`; returns the logits [vocab].
EMSCRIPTEN_KEEPALIVE float* rc_forward(Transformer* t, int token, int pos) { return forward(t, token, pos); }

// From `token` at position 0, `steps` forwards, each feeding back the argmax of the last logits; writes the
// chosen tokens to out[steps]. (run.c's generate() stops at the start mark; this runs every step.)
EMSCRIPTEN_KEEPALIVE void rc_greedy(Transformer* t, int token, int steps, int* out) {
  for (int pos = 0; pos < steps; pos++) {
    float* logits = forward(t, token, pos);
    token = sample_argmax(logits, t->config.vocab_size);
    out[pos] = token;
  }
}
