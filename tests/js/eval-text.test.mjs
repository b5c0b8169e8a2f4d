// node:test tests of the text measures `npm run eval` writes into the card (.scripts/eval-text.mjs): repeated
// sentences, the longest repeated span, token spans over the text, the start mark by query position, and the
// hand-written probe files' shape (kept out of training: nothing under wasm/ or .scripts/train.mjs reads them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { loadLookback } from 'lookback';
import * as E from '../../.scripts/eval-text.mjs';

const root = new URL('../../', import.meta.url);
const lb = await loadLookback();
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 2, n_heads: 2, n_kv_heads: 2, head_dim: 8, hidden_dim: 24, vocab_size: 300,
  max_seq_len: 64, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
// 42 merges of letter pairs, so that ids 258..299 exist (byte b is id b + 2)
const TOKENIZER = { type: 'byte-bpe', version: 1, vocab_size: 300, bos_id: 0, eos_id: 1,
  merges: Array.from({ length: 42 }, (_, i) => [2 + 97 + (i % 26), 2 + 97 + Math.floor(i / 26)]) };

async function randomModel() {
  const weights = lb.randomWeights(CONFIG, { seed: 5 });
  return lb.loadModel(weights, { config: CONFIG, tokenizer: JSON.stringify(TOKENIZER) });
}

test('repeated sentences and the longest repeated span are found, and only they', () => {
  assert.deepEqual(E.repeatedSentences('Tom ran home. He was glad. Tom ran home. Yes.'), ['Tom ran home.']);
  assert.deepEqual(E.repeatedSentences('Tom ran home. Tom ran far.'), []);
  assert.equal(E.longestRepeat('a b c d a b c e'), 3);
  assert.equal(E.longestRepeat('a b c d'), 0);
  assert.equal(E.longestRepeat('x y x y x y'), 4);
});

test('token spans cover the text exactly, the start mark covering nothing', async () => {
  const m = await randomModel();
  const text = 'Lily found a box. "Look!" she said.';
  const { ids, spans } = E.tokenSpans(m, text);
  assert.equal(ids.length, spans.length);
  assert.deepEqual(spans[0], [0, 0]);
  assert.equal(spans.at(-1)[1], text.length);
  for (let i = 2; i < spans.length; i++) assert.equal(spans[i][0], spans[i - 1][1]);
  m.dispose();
});

test('the start mark by position averages each head over the queries of each bucket', async () => {
  const m = await randomModel();
  const seqs = E.randomSequences(m, 2, 40, 3);
  assert.equal(seqs[0].length, 40);
  assert.ok(seqs.flat().slice(1).every((id) => id === seqs[0][0] || (id >= 258 && id < 300)));
  const buckets = E.startMarkByPosition(m, seqs);
  assert.deepEqual(buckets.map((b) => b.queries), [32, 46, 0, 0]);
  const f = m.forward(seqs[0], { attention: true }), g = m.forward(seqs[1], { attention: true });
  const T = 40, H = 2;
  let want = 0;
  for (const r of [f, g]) for (let t = 1; t <= 16; t++) want += r.attention[((1 * H + 0) * T + t) * T];
  assert.ok(Math.abs(buckets[0].by_layer[1][0] - want / 32) < 1e-6);
  const best = E.startMarkUpTo64(buckets);
  const all = buckets[0].by_layer.flat().map((x, i) => (x * 32 + buckets[1].by_layer.flat()[i] * 46) / 78);
  assert.ok(Math.abs(best.score - Math.max(...all)) < 1e-9);
  const [l, h] = best.head.split('.').map(Number);
  assert.deepEqual(best.by_position.map((p) => p.positions), ['1-16', '17-64', '65-128', '129-256']);
  assert.deepEqual(best.by_position.map((p) => p.score), buckets.map((k) => k.by_layer[l][h]));
  assert.ok(Math.abs((best.by_position[0].score * 32 + best.by_position[1].score * 46) / 78 - best.score) < 1e-9);
  m.dispose();
});

test('the hand-written probe sets have their labels in place and are read by nothing that trains', async () => {
  for (const name of ['dev', 'dev2', 'final', 'final-v3', 'final-v5']) {  // (v4 names its made-up names three times)
    const set = JSON.parse(readFileSync(new URL(`shared/probes/handwritten-${name}.json`, root), 'utf8'));
    assert.ok(set.recall.length + set.pronoun.length + set.names.length >= 30, name);
    for (const p of set.recall) assert.match(p.text.slice(0, -1), new RegExp(`\\b${p.answer}\\b`));
    for (const p of set.pronoun) assert.equal((p.text.match(/\[/g) || []).length, 1);
    for (const p of set.names) assert.equal(p.text.split(p.name).length, 3);
    for (const p of set.pronoun) {
      const before = p.text.slice(0, p.text.indexOf('['));
      assert.ok(before.includes(p.name) && before.includes(p.other), `${name}: both names come before the pronoun`);
    }
  }
  // the final set for the next Sprout (the one `npm run eval` reads as final): at least 40 recall, 20 pronoun and
  // 10 made-up-name probes, none repeated
  const { HANDWRITTEN } = await import('../../.scripts/eval.mjs');
  assert.deepEqual(HANDWRITTEN, { dev: 'handwritten-dev.json', final: 'handwritten-final-v4.json' });
  const v3 = JSON.parse(readFileSync(new URL(`shared/probes/${HANDWRITTEN.final}`, root), 'utf8'));
  assert.ok(v3.recall.length >= 40 && v3.pronoun.length >= 20 && v3.names.length >= 10);
  // the set written for the Sprout after the shipped one: as large, and read by no evaluation yet
  const v5 = JSON.parse(readFileSync(new URL('shared/probes/handwritten-final-v5.json', root), 'utf8'));
  assert.ok(v5.recall.length >= 40 && v5.pronoun.length >= 20 && v5.names.length >= 10);
  for (const f of ['.scripts/eval.mjs', '.scripts/eval-text.mjs', '.scripts/eval-dev.mjs']) {
    assert.ok(!readFileSync(new URL(f, root), 'utf8').includes('final-v5'), `${f} does not read the next final set`);
  }
  const texts = ['dev', 'dev2', 'final', 'final-v3', 'final-v4', 'final-v5'].flatMap((n) => {
    const set = JSON.parse(readFileSync(new URL(`shared/probes/handwritten-${n}.json`, root), 'utf8'));
    return [...set.recall, ...set.pronoun, ...set.names].map((p) => p.text);
  });
  assert.equal(new Set(texts).size, texts.length, 'no probe text appears twice across the sets');
  const trainer = readFileSync(new URL('.scripts/train.mjs', root), 'utf8');
  assert.ok(!trainer.includes('probes/'), 'training reads no probe file');
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(new URL(`${e.name}/`, dir)) : [new URL(e.name, dir)]));
  for (const f of walk(new URL('wasm/', root))) assert.ok(!readFileSync(f, 'utf8').includes('handwritten'), f.pathname);
});

test('made-up names: the loss per piece over the pieces that can be copied, every piece but the first', async () => {
  const m = await randomModel();
  const text = 'A cat named Zibblor sat. Then Zibblor ran off.';
  const name = 'Zibblor';
  const { ids, spans } = E.tokenSpans(m, text);
  const f = m.forward(ids);
  const V = f.shape.V;
  const loss = (t) => {
    const row = Array.from(f.logits.subarray((t - 1) * V, t * V));
    const mx = Math.max(...row);
    return Math.log(row.reduce((s, x) => s + Math.exp(x - mx), 0)) + mx - row[ids[t]];
  };
  // the tokens of each mention, by their spans over the text
  const pieces = [text.indexOf(name), text.lastIndexOf(name)].map((c) => spans.flatMap(([a, b], i) => (i > 0 && a < c + name.length && b > c ? [i] : [])));
  assert.ok(pieces.every((p) => p.length >= 2), `the name is several pieces here: ${pieces}`);
  const want = pieces.map((p) => p.slice(1).reduce((s, t) => s + loss(t), 0) / (p.length - 1));
  const got = E.names(m, [{ text, name }]);
  assert.equal(got.probes, 1);
  assert.ok(Math.abs(got.first_loss_nats - want[0]) < 1e-9, `first: ${got.first_loss_nats} vs ${want[0]}`);
  assert.ok(Math.abs(got.second_loss_nats - want[1]) < 1e-9, `second: ${got.second_loss_nats} vs ${want[1]}`);
  m.dispose();
});
