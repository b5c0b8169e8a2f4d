// The page's error lines say what a reader can do, not which API option to pass: the core's message for a text
// longer than the context ("pass { window: true } ...") becomes page words (web/js/widgets/page-words.js), checked
// here against the message the API really gives, so that a change of its wording fails here. Not the CLI's flags
// (cli.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadLookback } from 'lookback';
import { inPageWords } from '../../web/js/widgets/page-words.js';

test('a text longer than the context: the page says to shorten it and how long it may be, never "{ window: true }"', async () => {
  const lb = await loadLookback();
  for (const name of ['sprout']) {
    const m = await lb.loadModel(name);
    let message;
    try {
      m.next('word '.repeat(m.context + 10));
    } catch (e) {
      message = e.message;
    }
    m.dispose();
    assert.match(message, /\{ window: true \}/, 'the API advises its option');
    const words = inPageWords(message);
    assert.doesNotMatch(words, /window: true|\{|\}/);
    assert.match(words, new RegExp(`shorten the text: this view reads at most ${m.context} tokens at once$`));
  }
});

test('model bytes without the file their format needs: the page says which file to choose, never "{ tokenizer }"', async () => {
  const lb = await loadLookback();
  const bytes = readFileSync(new URL('../../shared/models/sprout/model.safetensors', import.meta.url));
  const message = await lb.loadModel(bytes).then(() => '', (e) => e.message);
  assert.match(message, /pass \{ tokenizer \} too/, 'the API advises its option');
  const words = inPageWords(message);
  assert.doesNotMatch(words, /pass|\{|\}/);
  assert.match(words, /Choose its tokenizer file too \(and its config\.json when the format has one\)$/);
});
