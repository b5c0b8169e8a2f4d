// node:test tests of the window model through the JS API (web/js/api/window-model.js): loadModel('window')
// gives the chapter's baseline, whose next-token prediction depends only on the last `window` tokens and equals a
// softmax over the vocabulary; it shares Sprout's tokenizer; bad input and a disposed model give clear Errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';

const lb = await loadLookback();
const win = await lb.loadModel('window');
const STORY = 'Mia took her doll to the park. She pushed it on the swings. At night, Mia put the';

test('the window model loads by name with its config and tokenizer', () => {
  assert.equal(win.info.config.arch, 'window');
  assert.equal(win.context, win.info.config.window);
  assert.equal(win.info.tokenizer, 'byte-bpe');
  const { window: W, embed_dim: E, hidden_dim: N, vocab_size: V } = win.info.config;
  assert.equal(win.info.parameters, V * E + N * W * E + N + V * N + V);
  const ids = win.encode(STORY);
  assert.equal(ids[0], win.info.config.bos_id);
  assert.equal(win.decode(ids), STORY);
  assert.deepEqual(win.tokens(ids).map((t) => t.id), ids);
  assert.equal(win.tokens(STORY)[0].text, '\u25c6');
});

test('it shares Sprout\'s tokenizer', async () => {
  const sprout = await lb.loadModel('sprout');
  assert.deepEqual(win.tokens(STORY), sprout.tokens(STORY));
  sprout.dispose();
});

test('the prediction is a distribution that depends only on the last `window` tokens', () => {
  const top = win.next(STORY, { topK: 50 });
  assert.equal(top.length, 50);
  for (let i = 1; i < top.length; i++) assert.ok(top[i - 1].p >= top[i].p);
  assert.ok(top.reduce((a, t) => a + t.p, 0) <= 1 + 1e-6);
  assert.equal(top[0].token, win.tokens([top[0].id])[0].text);
  const ids = win.encode(STORY);
  const W = win.context;
  // change every token before the window: the prediction stays; change one inside it: it moves
  const before = ids.map((id, i) => (i < ids.length - W ? ids[(i + 7) % (ids.length - W)] : id));
  assert.notDeepEqual(before, ids);
  assert.deepEqual(win.next(before, { topK: 5 }), win.next(ids, { topK: 5 }));
  const inside = ids.slice();
  inside[ids.length - 2] = ids[1];
  assert.notDeepEqual(win.next(inside, { topK: 5 }), win.next(ids, { topK: 5 }));
  // a text shorter than the window is padded with the start mark, as in training
  assert.equal(win.next(win.encode('Mia'), { topK: 3 }).length, 3);
  // temperature flattens
  assert.ok(win.next(ids, { topK: 1, temperature: 3 })[0].p < top[0].p);
});

test('bad input and a disposed model give Errors that say what', async () => {
  assert.throws(() => win.next([], { topK: 5 }), /at least one token/);
  assert.throws(() => win.next([0, 99999]), /ids\[1\] is 99999/);
  assert.throws(() => win.next(STORY, { topK: 0 }), /topK/);
  assert.throws(() => win.next(STORY, { window: true }), /unknown option "window"/);
  const other = await lb.loadModel('window');
  other.dispose();
  assert.throws(() => other.next(STORY), /disposed/);
  assert.equal(win.next(STORY, { topK: 1 }).length, 1, 'the module stays usable');
});
