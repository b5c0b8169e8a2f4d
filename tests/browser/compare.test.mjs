// Browser test of <lookback-compare> around the chapter's heads grid: with the reader's own model loaded (a
// random-weight model of 2 layers × 3 heads written here and dropped into the page's file picker), the toggle shows
// Sprout and the reader's model side by side on the same text, each grid with its own heads (layer.head from 1), the
// model's name above it, and its habits (the card's for Sprout, measured live for the reader's); a text or order
// chosen on either side recomputes both; a head opens in the explorer with its side's model; at phone width the
// sides stack with no sideways scroll. Before a model of the reader's is loaded there is nothing to compare.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadLookback } from 'lookback';
import { openChapter } from './harness.mjs';
import { allHeads, bothOn, grids, ready, showBoth, sides, until } from './widget-helpers.mjs';
import { CONFIG, useReaderModel, writeReaderModel } from './reader-model.mjs';

const lb = await loadLookback();
const T = { timeout: 240000 };
const SPROUT = JSON.parse(readFileSync(new URL('../../web/models/sprout/config.json', import.meta.url), 'utf8'));

let b, files;
before(async () => {
  b = await openChapter();
  files = writeReaderModel(lb, { seed: 5 });
});
after(async () => {
  await b?.close();
  files?.remove();
});

test('Sprout and the reader\'s model side by side on the same text, each with its own heads and habits; edits on either side recompute both', T, async () => {
  const { page } = b;
  const cmp = page.locator('lookback-compare#w-heads-compare');
  await ready(page, 'lookback-compare');
  const toggle = cmp.locator('button.toggle');
  assert.equal(await toggle.isDisabled(), true, 'nothing to compare while the page uses Sprout');
  assert.equal(await cmp.locator('lookback-heads-grid').count(), 1);

  await useReaderModel(page, files);

  await cmp.scrollIntoViewIfNeeded();
  await until(() => toggle.isDisabled(), (v) => v === false, 'the toggle enabled once the reader has a model', 30000);
  const changes = [];
  await cmp.evaluate((el) => { el.addEventListener('lookback-change', (e) => { if (e.target === el) (window.compareChanges ??= []).push(e.detail); }); });
  await toggle.press('Enter');   // keyboard: the toggle is a button
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  await until(() => cmp.locator('lookback-heads-grid').count(), (n) => n === 2, 'two grids');
  const names = await cmp.evaluate((el) => [...el.shadowRoot.querySelectorAll('.side .name')].map((n) => n.textContent));
  assert.deepEqual(names, ['Sprout', 'model.safetensors'], 'each side named by its model');
  changes.push(...await page.evaluate(() => window.compareChanges));
  assert.deepEqual(changes.at(-1), { compare: true, models: ['Sprout', 'model.safetensors'] });

  const text0 = await grids(cmp).right.evaluate((w) => w.text);
  let [left, right] = await bothOn(cmp, text0, 'turned on');
  assert.equal(left.model, 'sprout');
  assert.equal(right.model, 'current');
  assert.deepEqual(left.heads, allHeads(SPROUT.n_layers, SPROUT.n_heads), 'Sprout\'s own heads, layer.head from 1');
  assert.deepEqual(right.heads, allHeads(CONFIG.n_layers, CONFIG.n_heads), 'the reader\'s model\'s own heads');
  assert.equal(left.card, true, 'Sprout\'s habits from its card');
  assert.equal(right.card, false, 'the reader\'s model has no card');
  await until(() => grids(cmp).right.getAttribute('data-live'), (v) => v === 'done', 'the reader\'s habits measured live', 60000);
  assert.equal(await grids(cmp).left.locator('.live').isHidden(), true, 'no live measure for the side with a card');

  // a text chosen on the Sprout side: both sides recompute on it
  const options = await grids(cmp).left.locator('select.text option:not([hidden])').evaluateAll((os) => os.map((o) => o.value));
  const pick = options.find((v, i) => i > 0);
  await grids(cmp).left.locator('select.text').selectOption(pick);
  const text1 = await grids(cmp).left.evaluate((w) => w.text);
  assert.notEqual(text1, text0);
  [left, right] = await bothOn(cmp, text1, 'text chosen on the Sprout side');
  assert.equal(right.shown, text1);
  // the text set on the reader's side (as the page sets a widget's text attribute): the Sprout side follows
  const text2 = 'Tom had a red ball. Tom gave the red ball to Sam, and Sam gave the ball back to Tom.';
  await grids(cmp).right.evaluate((w, t) => w.setAttribute('text', t), text2);
  [left, right] = await bothOn(cmp, text2, 'text set on the reader\'s side');
  assert.deepEqual([left.heads.length, right.heads.length], [SPROUT.n_layers * SPROUT.n_heads, CONFIG.n_layers * CONFIG.n_heads]);
  // the order chosen on one side is the other's too
  await grids(cmp).right.locator('select.sort').selectOption('induction');
  await until(() => sides(cmp), (v) => v.every((s) => s.sort === 'induction'), 'both sides sorted by induction');

  // the exports hold both sides, each with its model
  const data = await cmp.evaluate((el) => el.exportData());
  assert.deepEqual(data.json.models, ['Sprout', 'model.safetensors']);
  assert.deepEqual(data.json.sides.map((s) => s.heads.length), [SPROUT.n_layers * SPROUT.n_heads, CONFIG.n_layers * CONFIG.n_heads]);
  assert.equal(data.csv.length, 1 + SPROUT.n_layers * SPROUT.n_heads + CONFIG.n_layers * CONFIG.n_heads);

  // a head opens in the explorer under the grid with its side's model
  const explorer = page.locator('#w-heads-explorer');
  const last = `${SPROUT.n_layers}.${SPROUT.n_heads}`;
  await grids(cmp).left.scrollIntoViewIfNeeded();
  await grids(cmp).left.locator(`button[data-head="${last}"]`).click();
  await until(() => explorer.evaluate((x) => [x.getAttribute('model'), x.getAttribute('layer'), x.getAttribute('head')]),
    (v) => JSON.stringify(v) === JSON.stringify(['sprout', String(SPROUT.n_layers), String(SPROUT.n_heads)]), 'a Sprout head opened on Sprout');
  await grids(cmp).right.scrollIntoViewIfNeeded();
  await grids(cmp).right.locator('button[data-head="2.3"]').click();
  await until(() => explorer.evaluate((x) => [x.getAttribute('model'), x.getAttribute('layer'), x.getAttribute('head')]),
    (v) => JSON.stringify(v) === JSON.stringify(['current', '2', '3']), 'a head of the reader\'s model opened on it');
  await until(() => explorer.evaluate((x) => ({ key: x.modelKey, error: x.hasAttribute('data-error'), state: x.dataset.state })),
    (v) => /^current [1-9]/.test(v.key) && !v.error && v.state === 'ready', 'the explorer computed on the reader\'s model', 60000);
});

test('the explorer beside another: each side with its own layers and heads; a text typed on one side is shown on both', T, async () => {
  const { page } = b;
  const cmp = page.locator('lookback-compare#w-explorer-compare');
  const toggle = await showBoth(cmp, 'lookback-explorer');
  const { left, right } = grids(cmp, 'lookback-explorer');
  const text = 'Ben saw a big dog. The dog ran to Ben, and Ben gave the dog a ball.';
  await right.scrollIntoViewIfNeeded();
  await right.locator('textarea').fill(text);
  await bothOn(cmp, text, 'a text typed on the reader\'s side', 'lookback-explorer');
  const layers = (x) => x.locator('select.layer option').evaluateAll((os) => os.map((o) => o.textContent));
  const heads = (x) => x.locator('select.head option').evaluateAll((os) => os.map((o) => o.textContent).filter((t) => /^\d+$/.test(t)));
  const count = (n) => Array.from({ length: n }, (_, i) => String(i + 1));
  assert.deepEqual(await layers(left), count(SPROUT.n_layers), 'Sprout\'s layers, from 1');
  assert.deepEqual(await heads(left), count(SPROUT.n_heads));
  assert.deepEqual(await layers(right), count(CONFIG.n_layers), 'the reader\'s model\'s layers');
  assert.deepEqual(await heads(right), count(CONFIG.n_heads));
  assert.equal(await left.locator('textarea').inputValue(), text, 'the Sprout side shows the typed text in its box');
  // and back the other way
  const text2 = 'Lily had a hat. She gave the hat to Tom.';
  await left.scrollIntoViewIfNeeded();
  await left.locator('textarea').fill(text2);
  await bothOn(cmp, text2, 'a text typed on the Sprout side', 'lookback-explorer');
  await toggle.click();
  await until(() => cmp.locator('lookback-explorer').count(), (n) => n === 1, 'one explorer again');
});

test('what comes next, beside another model: each side its own model\'s next tokens on the same text and temperature; one model picker', T, async () => {
  const { page } = b;
  const cmp = page.locator('lookback-compare#w-next-token-compare');
  const toggle = await showBoth(cmp, 'lookback-next-token');
  const { left, right } = grids(cmp, 'lookback-next-token');
  // a side's rows as it shows them: the model, text and temperature they are of, and the tokens
  const rows = (w) => w.evaluate((x) => ({ ...x.topFor, state: x.dataset.state, error: x.hasAttribute('data-error'),
    tokens: [...x.shadowRoot.querySelectorAll('tbody tr .tok')].map((t) => t.textContent),
    name: x.shadowRoot.querySelector('.model-name').textContent }));
  const both = async (text, temperature, what) => {
    const out = [];
    for (const w of [left, right]) {
      await w.scrollIntoViewIfNeeded();
      out.push(await until(() => rows(w), (v) => v.text === text && v.temperature === temperature && v.tokens.length > 0 && !v.error,
        `${what}: a side computed`, 60000));
    }
    return out;
  };
  const text = 'Ben had a red ball. He threw the';
  await right.scrollIntoViewIfNeeded();
  await right.locator('textarea').fill(text);
  let [l, r] = await both(text, 0.8, 'a text typed on the reader\'s side');
  assert.deepEqual([l.model, r.model], ['Sprout', 'model.safetensors'], 'each side\'s rows from its own model');
  assert.deepEqual([l.name, r.name], ['Sprout', 'model.safetensors']);
  assert.equal(await left.locator('textarea').inputValue(), text, 'the Sprout side shows the typed text in its box');
  assert.notDeepEqual(l.tokens, r.tokens, 'two models, two sets of next tokens');
  assert.equal(await left.evaluate((x) => x.picker.hidden), true, 'no "Use your own model" box on the added side');
  assert.equal(await right.evaluate((x) => x.picker.hidden), false, 'the box stays on the widget inside');
  // the temperature moved on the Sprout side: both sides follow, and the reader's seed is kept
  await right.locator('input.seed').fill('42');
  await left.locator('input.temp').evaluate((x) => { x.value = '0.5'; x.dispatchEvent(new Event('input', { bubbles: true })); });
  [l, r] = await both(text, 0.5, 'the temperature moved on the Sprout side');
  assert.equal(await right.locator('input.seed').inputValue(), '42', 'a synced text or temperature leaves the other settings');
  // and a text typed on the Sprout side
  const text2 = 'Mia found a little box. She opened the';
  await left.locator('textarea').fill(text2);
  await both(text2, 0.5, 'a text typed on the Sprout side');
  await toggle.click();
  await until(() => cmp.locator('lookback-next-token').count(), (n) => n === 1, 'one next-token widget again');
});

test('side by side on a wide screen; stacked at phone width with no sideways scroll', T, async () => {
  const { page } = b;
  const cmp = page.locator('lookback-compare#w-heads-compare');
  const boxes = async () => {
    const { left, right } = grids(cmp);
    return { left: await left.boundingBox(), right: await right.boundingBox(),
      overflow: await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth) };
  };
  await page.setViewportSize({ width: 1280, height: 900 });
  await cmp.scrollIntoViewIfNeeded();
  let v = await until(boxes, (x) => x.left && x.right && Math.abs(x.left.y - x.right.y) < 2, 'the sides level at 1280 px');
  assert.ok(v.left.x + v.left.width <= v.right.x, 'Sprout on the left, the reader\'s model on the right');
  assert.ok(v.overflow <= 0);
  await page.setViewportSize({ width: 375, height: 740 });
  v = await until(boxes, (x) => x.left && x.right && x.right.y >= x.left.y + x.left.height - 1, 'the sides stacked at 375 px');
  assert.ok(v.overflow <= 0, `375 px: the page scrolls sideways by ${v.overflow} px`);
  assert.ok(v.left.x >= 0 && v.left.x + v.left.width <= 375 && v.right.x + v.right.width <= 375, 'both sides within the screen');
  const text = await grids(cmp).left.evaluate((w) => w.text);
  const [left, right] = await bothOn(cmp, text, 'at phone width');
  assert.equal(left.text, right.text);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('back to Sprout: nothing left to compare, one grid again', T, async () => {
  const { page } = b;
  const picker = page.locator('lookback-next-token').first();
  await picker.scrollIntoViewIfNeeded();
  await picker.locator('button.sprout').click();
  await until(() => picker.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout');
  const cmp = page.locator('lookback-compare#w-heads-compare');
  await cmp.scrollIntoViewIfNeeded();
  await until(() => cmp.locator('lookback-heads-grid').count(), (n) => n === 1, 'one grid', 30000);
  assert.equal(await cmp.locator('button.toggle').isDisabled(), true);
  assert.equal(await cmp.evaluate((el) => el.hasAttribute('data-on')), false);
});

test('no console error and no request outside localhost', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
