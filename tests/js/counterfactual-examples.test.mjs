// node:test checks of the counterfactual widget's stories against the shipped Sprout, through the JS API: in
// each, the top next token is the remembered object, a swap of that word moves the top token to the new word,
// and a change of a word that should not matter leaves the top token alone. A retrain that loses any of these
// fails here rather than leaving the chapter with a test that quietly decides nothing. Also editStory's edits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { EXAMPLES, editStory } from '../../web/js/widgets/counterfactual-examples.js';

const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');
const top1 = (text) => sprout.next(text, { topK: 1 })[0];
const wordId = (word) => sprout.tokens(` ${word}`, { bos: false }).find((t) => t.text.trim() !== '').id;

test('editStory: swap, remove and neutral edits on whole words only', () => {
  const s = 'Ben had a boat. He took the boat to the boatyard.';
  assert.equal(editStory(s, 'swap', 'boat', 'lamp'), 'Ben had a lamp. He took the lamp to the boatyard.');
  assert.equal(editStory(s, 'remove', 'boat'), 'Ben had a. He took the to the boatyard.');
  assert.equal(editStory(s, 'neutral', 'Ben', 'Sam'), 'Sam had a boat. He took the boat to the boatyard.');
  assert.equal(editStory(s, 'swap', '', 'x'), s);
});

for (const ex of EXAMPLES) {
  test(`"${ex.id}" story: Sprout's top next token is the remembered ${ex.answer}, and follows the swap`, () => {
    const answer = wordId(ex.answer);
    const before = top1(ex.story);
    assert.equal(before.id, answer, `top next token is ${JSON.stringify(before.token)} (p ${before.p}), not " ${ex.answer}"`);
    const swapped = top1(editStory(ex.story, 'swap', ex.answer, ex.swap));
    assert.equal(swapped.id, wordId(ex.swap), `after ${ex.answer} -> ${ex.swap} the top is ${JSON.stringify(swapped.token)}`);
    const removed = top1(editStory(ex.story, 'remove', ex.answer));
    assert.notEqual(removed.id, answer, `without ${ex.answer} the top is still ${JSON.stringify(removed.token)}`);
    const neutral = top1(editStory(ex.story, 'neutral', ex.neutral[0], ex.neutral[1]));
    assert.equal(neutral.id, answer, `after ${ex.neutral.join(' -> ')} the top is ${JSON.stringify(neutral.token)}`);
  });
}
