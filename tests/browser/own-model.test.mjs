// Browser test of every model widget of the chapter on the reader's own model, for each model of reader-model.mjs
// (a safetensors file with its config.json and tokenizer.json; a llama GGUF with Q8_0 matrices and a
// sentencepiece-style vocabulary; a gpt2 GGUF with a byte-level BPE tokenizer; each with a head count unlike
// Sprout's) dropped into the page's file picker as a reader drops it. Each model widget computes again on it with no
// error and shows the model's own heads (the shuffle test its name, its kind of positions and the text's words as
// it reads them); the heads grid, which has no card for it, measures every head's habits live
// with its progress bar: the numbers it shows equal the Node API's headScores for the same text and file, also for
// a text longer than the model's context; the heads grid shows Sprout and the model side by side on the same text.
// Then back to Sprout. No console error, no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadLookback } from 'lookback';
import { openChapter } from './harness.mjs';
import { allHeads, bothOn, grids, showBoth, until } from './widget-helpers.mjs';
import { READER_MODELS, useReaderModel, writeReaderModel } from './reader-model.mjs';

const lb = await loadLookback();
const T = { timeout: 300000 };
const SPROUT = JSON.parse(readFileSync(new URL('../../web/models/sprout/config.json', import.meta.url), 'utf8'));
const MODEL_WIDGETS = ['lookback-explorer', 'lookback-heads-grid', 'lookback-induction', 'lookback-counterfactual',
  'lookback-shuffle', 'lookback-next-token'];
const KEYS = { previous_token: 'previousToken', start_mark: 'startMark', induction: 'induction' };

let b;
before(async () => {
  b = await openChapter();
  // each widget records the model of the last result it showed
  for (const tag of MODEL_WIDGETS) {
    await b.page.locator(tag).first().evaluate((el) => { el.shownFor = null; el.addEventListener('lookback-change', () => { el.shownFor = el.modelKey; }); });
  }
});
after(() => b?.close());

// The habits a heads grid shows (its JSON export) equal the API's headScores on the ids it computed on.
async function sameHabits(grid, own, config, what) {
  const shown = await grid.evaluate((w) => ({ ids: w.result.ids, json: w.exportData().json }));
  const want = own.headScores([shown.ids]);
  assert.deepEqual(shown.json.heads.map((r) => r.head), allHeads(config.n_layers, config.n_heads), `${what}: the model's own heads`);
  for (const row of shown.json.heads) {
    const [l, h] = row.head.split('.').map((x) => Number(x) - 1);
    for (const [k, api] of Object.entries(KEYS)) {
      const w = want[api].byLayer[l][h];
      assert.ok(Math.abs(row[k] - w) <= 1e-12, `${what}: ${row.head} ${k}: ${row[k]} shown, ${w} from the API`);
    }
  }
}

for (const [name, { config }] of Object.entries(READER_MODELS)) {
  test(`${name}: every model widget computes again on it with its own heads; the heads grid measures its habits live, equal to the API's, also beside Sprout`, T, async () => {
    const { page } = b;
    const files = writeReaderModel(lb, { seed: 21, model: name });
    const own = await lb.loadModel(files.weights);
    try {
      const picker = await useReaderModel(page, files);
      const heads = `${config.n_layers} layers × ${config.n_heads} heads`;
      await until(() => picker.locator('.model-size').textContent(), (v) => v.includes(heads), `the model line says ${heads}`, 30000);

      for (const tag of MODEL_WIDGETS) {
        const el = page.locator(tag).first();
        await el.scrollIntoViewIfNeeded();
        // the last result it showed was computed with the page's model now (a change aborts older work)
        await until(() => el.evaluate((w) => ({ shownFor: w.shownFor, now: w.modelKey, error: w.hasAttribute('data-error') })),
          (v) => !v.error && v.shownFor === v.now && /^current [1-9]/.test(v.now), `${tag} computed on ${files.label}`, 90000);
      }
      // the shuffle test names the model and its kind of positions, and reads the text's words as the model does
      const sh = await page.locator('lookback-shuffle').first().evaluate((w) => ({ json: JSON.parse(w.exportJSON()),
        sentence: w.shadowRoot.querySelector('.result').textContent,
        notes: [...w.shadowRoot.querySelectorAll('table.summary th .note')].map((n) => n.textContent) }));
      assert.equal(own.decode(sh.json.tokens.map((t) => t.id)).trim(), sh.json.text, 'the shuffle\'s words in order are the text');
      assert.deepEqual([sh.json.runs.off.label, sh.json.runs.on.label], [`${files.label}, positions off`, `${files.label}, positions on`]);
      assert.ok(sh.sentence.includes(`All of ${files.label} with positions off`), sh.sentence);
      const kind = config.positions === 'learned' ? 'learned positions' : 'rotary positions';
      assert.ok(sh.notes.slice(1).every((n) => n.includes(kind)), `the whole model's rows say ${kind}: ${sh.notes}`);

      const explorer = page.locator('lookback-explorer').first();
      const options = (what) => explorer.locator(`select.${what} option`).evaluateAll((os) => os.map((o) => o.textContent).filter((t) => /^\d+$/.test(t)));
      const count = (n) => Array.from({ length: n }, (_, i) => String(i + 1));
      assert.deepEqual(await options('layer'), count(config.n_layers), 'the explorer offers the model\'s layers');
      assert.deepEqual(await options('head'), count(config.n_heads), 'the explorer offers the model\'s heads');

      const grid = page.locator('lookback-heads-grid');
      await grid.scrollIntoViewIfNeeded();
      await until(() => grid.getAttribute('data-live'), (v) => v === 'done', 'the live habits measured', 90000);
      const bar = await grid.locator('.live progress').evaluate((p) => ({ value: p.value, max: p.max, hidden: p.parentElement.hidden }));
      assert.equal(bar.hidden, false);
      assert.equal(bar.value, bar.max, 'the progress bar full');
      const shown = await grid.evaluate((w) => ({ text: w.result.text, ids: w.result.ids, cells: w.shadowRoot.querySelectorAll('.grid [data-head]').length }));
      assert.equal(shown.cells, config.n_layers * config.n_heads, 'one map per head of the reader\'s model');
      assert.deepEqual(shown.ids, own.encode(shown.text), 'the page reads the text as the API does');
      await sameHabits(grid, own, config, files.label);

      // a text longer than the model's context: the maps and the habits of its end, the tokens shown
      const long = Array.from({ length: 12 }, (_, i) => `Line ${i}: Mia took her doll to the park, and Tom flew his red kite.`).join(' ');
      assert.ok(own.encode(long).length > config.max_seq_len);
      await grid.evaluate((w, t) => w.setAttribute('text', t), long);
      await until(() => grid.evaluate((w) => w.result?.text === w.text && w.dataset.live), (v) => v === 'done', 'the long text measured', 120000);
      const end = await grid.evaluate((w) => ({ ids: w.result.ids, T: w.result.shape.T }));
      assert.ok(end.ids.length <= config.max_seq_len && end.ids.length === end.T, 'the maps show the end that fits the context');
      await sameHabits(grid, own, config, `${files.label}, long text`);

      // Sprout beside it on the same text: each side its own heads, the reader's measured live as the API does
      const cmp = page.locator('lookback-compare#w-heads-compare');
      const toggle = await showBoth(cmp);
      const names = await cmp.evaluate((el) => [...el.shadowRoot.querySelectorAll('.side .name')].map((n) => n.textContent));
      assert.deepEqual(names, ['Sprout', files.label], 'each side named by its model');
      const text = 'Tom had a red ball. Tom gave the red ball to Sam, and Sam gave the ball back to Tom.';
      await grids(cmp).left.evaluate((w, t) => w.setAttribute('text', t), text);
      const [left, right] = await bothOn(cmp, text, `Sprout beside ${files.label}`);
      assert.deepEqual(left.heads, allHeads(SPROUT.n_layers, SPROUT.n_heads), 'Sprout\'s own heads');
      assert.deepEqual(right.heads, allHeads(config.n_layers, config.n_heads), 'the reader\'s model\'s own heads');
      assert.deepEqual([left.card, right.card], [true, false]);
      await until(() => grids(cmp).right.getAttribute('data-live'), (v) => v === 'done', 'the reader\'s side measured live', 90000);
      await sameHabits(grids(cmp).right, own, config, `${files.label} beside Sprout`);
      await toggle.click();
      await until(() => cmp.locator('lookback-heads-grid').count(), (n) => n === 1, 'one grid again');

      // back to Sprout: the card's habits again, no live bar
      await picker.scrollIntoViewIfNeeded();
      await picker.locator('button.sprout').click();
      await until(() => picker.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout');
      await grid.scrollIntoViewIfNeeded();
      await until(() => grid.locator('.live').evaluate((p) => p.hidden), (v) => v === true, 'the live bar hidden for a model with a card', 30000);
    } finally {
      own.dispose();
      files.remove();
    }
  });
}

test('no console error and no request outside localhost', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
