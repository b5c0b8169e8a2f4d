// node:test tests of attentionRow (one row of the core's scalar reference attention with its intermediates, the
// numbers the chapter's code walk shows): each intermediate against the plain-JS float64 reference, grouped
// heads and masks, and errors that name the argument.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { attentionRef, maxError, randomArray } from './reference.mjs';

const lb = await loadLookback();
const close = (got, want, what) => assert.ok(maxError(got, want) <= 1, `${what}: error ${maxError(got, want)}`);

test('attentionRow: scores, max, exponentials, sum, weights and output agree with the reference', () => {
  const T = 5, S = 7, H = 4, Hkv = 2, D = 6;
  const q = randomArray(T * H * D, 1), k = randomArray(S * Hkv * D, 2), v = randomArray(S * Hkv * D, 3);
  const scale = 1 / Math.sqrt(D);
  const ref = attentionRef(q, k, v, { T, S, H, Hkv, D, scale, causal: true, temperature: 0.8 });
  for (const head of [0, 3]) {
    for (const query of [0, 4]) {
      const r = lb.attentionRow(q, k, v, { T, S, heads: H, kvHeads: Hkv, d: D, causal: true, temperature: 0.8, head, query });
      assert.ok(r.sees);
      const seen = query + (S - T) + 1;
      const g = Math.floor(head / (H / Hkv));
      const score = Array.from({ length: S }, (_, s) => {
        if (s >= seen) return -Infinity;
        let acc = 0;
        for (let d = 0; d < D; d++) acc += q[(query * H + head) * D + d] * k[(s * Hkv + g) * D + d];
        return (acc * scale) / 0.8;
      });
      assert.deepEqual(Array.from(r.score, Number.isFinite), score.map(Number.isFinite), 'hidden keys are -Infinity');
      close(r.score.filter(Number.isFinite), score.filter(Number.isFinite), 'scores');
      assert.equal(r.max, Math.max(...r.score));
      close(r.e, Array.from(r.score, (x) => (Number.isFinite(x) ? Math.exp(x - r.max) : 0)), 'exponentials');
      close([r.sum], [r.e.reduce((a, x) => a + x, 0)], 'sum');
      close(r.weight, ref.weights.subarray((head * T + query) * S, (head * T + query + 1) * S), 'weights');
      close(r.out, ref.output.subarray((query * H + head) * D, (query * H + head + 1) * D), 'output');
    }
  }
});

test('attentionRow: a fully masked row reports sees = false with zero weights and output', () => {
  const q = randomArray(6, 4), k = randomArray(6, 5), v = randomArray(6, 6);
  const mask = new Uint8Array([1, 0, 0, 0, 0, 0, 1, 1, 0]);
  const r = lb.attentionRow(q, k, v, { T: 3, d: 2, mask, query: 1 });
  assert.equal(r.sees, false);
  assert.equal(r.max, -Infinity);
  assert.ok(r.weight.every((x) => x === 0) && r.out.every((x) => x === 0));
  assert.equal(lb.attentionRow(q, k, v, { T: 3, d: 2, mask, query: 2 }).sees, true);
});

test('attentionRow: bad input names the argument', () => {
  const q = randomArray(6, 7);
  assert.throws(() => lb.attentionRow(q, q, q, { T: 3, d: 2, query: 3 }), /attentionRow: query must be an integer in \[0, 2\]/);
  assert.throws(() => lb.attentionRow(q, q, q, { T: 3, d: 2, query: 0, head: 1 }), /attentionRow: head must be an integer in \[0, 0\]/);
  assert.throws(() => lb.attentionRow(q, q, q, { T: 3, d: 2 }), /attentionRow: option "query" is required/);
  assert.throws(() => lb.attentionRow(q.subarray(1), q, q, { T: 3, d: 2, query: 0 }), /attentionRow: q must hold/);
  assert.throws(() => lb.attentionRow(q, q, q, { T: 3, d: 2, query: 0, weights: true }), /unknown option "weights"/);
});
