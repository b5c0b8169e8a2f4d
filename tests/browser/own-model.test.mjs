// Browser test of every model widget of the chapter on the reader's own model: a random-weight model with its own
// head count (2 layers × 3 heads, unlike Sprout) written by reader-model.mjs and dropped into the page's file picker. Each model
// widget computes again on it with no error, and the heads grid, which has no card for it, measures every head's
// habits live with its progress bar: the numbers it shows equal the Node API's headScores for the same text and
// model. No console error, no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { openChapter } from './harness.mjs';
import { until } from './widget-helpers.mjs';
import { CONFIG, useReaderModel, writeReaderModel } from './reader-model.mjs';

const lb = await loadLookback();
const T = { timeout: 240000 };
const MODEL_WIDGETS = ['lookback-explorer', 'lookback-heads-grid', 'lookback-induction', 'lookback-counterfactual',
  'lookback-shuffle', 'lookback-next-token'];

let b, files, own;
before(async () => {
  b = await openChapter();
  files = writeReaderModel(lb, { seed: 21 });
  own = await lb.loadModel(files.weights);
});
after(async () => {
  own?.dispose();
  await b?.close();
  files?.remove();
});

test('every model widget computes again on the reader\'s model; the heads grid measures its habits live, equal to the API\'s', T, async () => {
  const { page } = b;
  // each widget records the model of the last result it showed
  for (const tag of MODEL_WIDGETS) {
    await page.locator(tag).first().evaluate((el) => { el.shownFor = null; el.addEventListener('lookback-change', () => { el.shownFor = el.modelKey; }); });
  }
  const picker = await useReaderModel(page, files.paths);

  for (const tag of MODEL_WIDGETS) {
    const el = page.locator(tag).first();
    await el.scrollIntoViewIfNeeded();
    // the last result it showed was computed with the page's model after the change (a change aborts older work)
    await until(() => el.evaluate((w) => ({ shownFor: w.shownFor, error: w.hasAttribute('data-error') })),
      (v) => !v.error && /^current [1-9]/.test(v.shownFor ?? ''), `${tag} computed on the reader's model`, 60000);
  }

  const grid = page.locator('lookback-heads-grid');
  await grid.scrollIntoViewIfNeeded();
  await until(() => grid.getAttribute('data-live'), (v) => v === 'done', 'the live habits measured', 60000);
  const bar = await grid.locator('.live progress').evaluate((p) => ({ value: p.value, max: p.max, hidden: p.parentElement.hidden }));
  assert.equal(bar.hidden, false);
  assert.equal(bar.value, bar.max, 'the progress bar full');
  const shown = await grid.evaluate((w) => ({ text: w.result.text, json: w.exportData().json, cells: w.shadowRoot.querySelectorAll('.grid [data-head]').length }));
  assert.equal(shown.cells, CONFIG.n_layers * CONFIG.n_heads, 'one map per head of the reader\'s model');
  const want = own.headScores([shown.text]);
  const KEYS = { previous_token: 'previousToken', start_mark: 'startMark', induction: 'induction' };
  assert.equal(shown.json.heads.length, CONFIG.n_layers * CONFIG.n_heads);
  for (const row of shown.json.heads) {
    const [l, h] = row.head.split('.').map((x) => Number(x) - 1);
    for (const [k, api] of Object.entries(KEYS)) {
      const w = want[api].byLayer[l][h];
      assert.ok(Math.abs(row[k] - w) <= 1e-12, `${row.head} ${k}: ${row[k]} shown, ${w} from the API`);
    }
  }
  // a text longer than the model's context: the maps and the habits of its end, the tokens shown
  const long = Array.from({ length: 12 }, (_, i) => `Line ${i}: Mia took her doll to the park, and Tom flew his red kite.`).join(' ');
  assert.ok(own.encode(long).length > CONFIG.max_seq_len);
  await grid.evaluate((w, t) => w.setAttribute('text', t), long);
  await until(() => grid.evaluate((w) => w.result?.text === w.text && w.dataset.live), (v) => v === 'done', 'the long text measured', 90000);
  const end = await grid.evaluate((w) => ({ ids: w.result.ids, T: w.result.shape.T, json: w.exportData().json }));
  assert.ok(end.ids.length <= CONFIG.max_seq_len && end.ids.length === end.T, 'the maps show the end that fits the context');
  const wantEnd = own.headScores([end.ids]);
  for (const row of end.json.heads) {
    const [l, h] = row.head.split('.').map((x) => Number(x) - 1);
    for (const [k, api] of Object.entries(KEYS)) assert.ok(Math.abs(row[k] - wantEnd[api].byLayer[l][h]) <= 1e-12, `long text: ${row.head} ${k}`);
  }
  // back to Sprout: the card's habits again, no live bar
  await picker.scrollIntoViewIfNeeded();
  await picker.locator('button.sprout').click();
  await until(() => picker.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout');
  await grid.scrollIntoViewIfNeeded();
  await until(() => grid.locator('.live').evaluate((p) => p.hidden), (v) => v === true, 'the live bar hidden for a model with a card', 30000);
});

test('no console error and no request outside localhost', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
