// Regression tests of generations streamed side by side on one model: each stream has its own state in the core,
// so each gets the tokens it would get alone (once, two streams shared one state: each got half of the other's
// tokens, then "no generation was started"), and a stream left early frees its state. Not generation itself
// (generation.test.mjs) or the worker's side (tests/browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';

const lb = await loadLookback();
const CONFIG = {
  arch: 'test', dim: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, hidden_dim: 64, vocab_size: 258,
  max_seq_len: 48, rope_layout: 'half', qk_norm: true, mlp: 'swiglu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const model = await lb.loadModel(lb.randomWeights(CONFIG, { seed: 8 }), { config: CONFIG, tokenizer: TOKENIZER });
const OPTS = [['the cat', { maxTokens: 12, seed: 3, temperature: 1.5 }], ['a dog ran', { maxTokens: 9, seed: 4, temperature: 1.5 }],
  ['x', { maxTokens: 15, seed: 5, temperature: 0 }]];

async function collect(iterator) {
  const tokens = [];
  for (;;) {
    const { done, value } = await iterator.next();
    if (done) return { tokens, result: value };
    tokens.push(value);
  }
}

test('three streams on one model, run side by side, each get what generate() gives alone', async () => {
  const alone = OPTS.map(([p, o]) => model.generate(p, o));
  const results = await Promise.all(OPTS.map(([p, o]) => collect(model.stream(p, o))));
  for (const [i, { tokens, result }] of results.entries()) {
    assert.deepEqual(result.ids, alone[i].ids, `stream ${i}`);
    assert.equal(result.text, alone[i].text);
    assert.deepEqual(tokens.map((t) => t.id), alone[i].ids);
  }
  // interleaved by hand, one token at a time, with other calls on the model between them
  const a = model.stream(...OPTS[0]), b = model.stream(...OPTS[1]);
  const got = [[], []];
  for (let open = 2; open;) {
    open = 0;
    for (const [i, s] of [a, b].entries()) {
      const { done, value } = await s.next();
      model.forward('something else entirely');
      if (!done) {
        got[i].push(value.id);
        open++;
      }
    }
  }
  assert.deepEqual(got, [alone[0].ids, alone[1].ids]);
});

test('streams left early (break, abort) and a disposed model end cleanly; the others go on', async () => {
  const alone = model.generate(...OPTS[1]);
  const long = model.stream(...OPTS[1]);
  const controller = new AbortController();
  for (let i = 0; i < 50; i++) {
    for await (const t of model.stream('left early', { maxTokens: 30, seed: i })) {
      void t;
      break;
    }
  }
  const aborted = model.stream('aborted', { maxTokens: 30, signal: controller.signal });
  await aborted.next();
  controller.abort();
  await assert.rejects(() => aborted.next(), (e) => e.name === 'AbortError' && e.code === 'LOOKBACK_ABORTED');
  assert.deepEqual((await collect(long)).result.ids, alone.ids);
  // a disposed model ends its streams with a coded Error
  const other = await lb.loadModel(lb.randomWeights(CONFIG, { seed: 8 }), { config: CONFIG, tokenizer: TOKENIZER });
  const s = other.stream('x', { maxTokens: 5 });
  await s.next();
  other.dispose();
  await assert.rejects(() => s.next(), (e) => e.code === 'LOOKBACK_DISPOSED');
});
