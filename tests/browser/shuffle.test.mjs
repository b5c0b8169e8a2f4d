// Browser tests of <lookback-shuffle> in the chapter (section 11): it renders, the numbers it shows equal the
// JS API's for the same tokens and order computed here in Node (one attention layer on the embeddings: the last
// output unchanged; the whole model with positions off and on: the change it reports is the measured one),
// keyboard and drag reorder the tokens, the exports are valid, no console error and no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { openChapter } from './harness.mjs';
import { checkPNG, exportsOf, near, ready, until } from './widget-helpers.mjs';

const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');

let b;
before(async () => {
  b = await openChapter();
});
after(async () => {
  sprout.dispose();
  await b?.close();
});

const T = { timeout: 90000 };

// What the widget measures, computed here with the JS API for the tokens and order it exported.
function measure(json) {
  const ids = json.tokens.map((t) => t.id);
  const shuffled = json.order.map((i) => ids[i]);
  const n = ids.length, last = n - 1;
  const off0 = sprout.forward(ids, { positions: false, residuals: true });
  const off1 = sprout.forward(shuffled, { positions: false, residuals: true });
  const on0 = sprout.forward(ids, { positions: true });
  const on1 = sprout.forward(shuffled, { positions: true });
  const { C, H, V } = off0.shape;
  const layer = (f) => {
    const e = f.residuals.subarray(0, n * C);
    return lb.attention(e, e, e, { T: n, heads: H, d: C / H, causal: true, weights: false }).output.subarray(last * C, n * C);
  };
  const a = layer(off0), c = layer(off1);
  let diff = 0, size = 0;
  for (let i = 0; i < C; i++) {
    diff = Math.max(diff, Math.abs(a[i] - c[i]));
    size = Math.max(size, Math.abs(a[i]));
  }
  const tv = (f0, f1) => {
    const p = lb.softmax(f0.logits.subarray(last * V, n * V), { rows: 1, cols: V }).weights;
    const q = lb.softmax(f1.logits.subarray(last * V, n * V), { rows: 1, cols: V }).weights;
    return p.reduce((s, x, i) => s + Math.abs(x - q[i]), 0) / 2;
  };
  return { layer: diff / size, off: tv(off0, off1), on: tv(on0, on1), ids, shuffled };
}

test('shuffle: one layer leaves the last output unchanged; the model\'s change is the measured one', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-shuffle');
  const { json, png, csv } = await exportsOf(page, 'lookback-shuffle', 0, 'shuffle');
  checkPNG(png, 'shuffle');
  assert.ok(csv.split('\r\n').length >= json.tokens.length + 1, 'a CSV row per token');
  assert.equal(json.tokens[0].text, '◆', 'the start mark stays first');
  assert.equal(json.order[0], 0);
  assert.equal(json.order.at(-1), json.tokens.length - 1, 'the last token stays last');
  assert.ok(json.order.some((x, i) => x !== i), 'the text is shuffled');
  const m = measure(json);
  const last = json.tokens.length - 1;
  // one attention layer: unchanged at the last token (float rounding only), and the widget says so
  assert.ok(m.layer < 1e-5, `one layer: the last output moved by ${m.layer}`);
  near(json.runs.layer.change[last], m.layer, 1e-6, 'the layer difference shown');
  assert.equal(json.runs.layer.changed[last], false);
  assert.ok(json.runs.layer.changed.slice(1, last).some(Boolean), 'some earlier token sees a different prefix');
  assert.equal(await w.locator('tr[data-run="layer"] td').first().textContent(), 'same');
  // the whole model: whatever the change is, the widget reports the measured one
  near(json.runs.off.change[last], m.off, 1e-5, 'total variation with positions off');
  near(json.runs.on.change[last], m.on, 1e-5, 'total variation with positions on');
  assert.equal(json.runs.off.changed[last], m.off > json.tolerances.totalVariation);
  assert.equal(await w.locator('tr[data-run="off"] td').first().textContent(), m.off > json.tolerances.totalVariation ? 'changed' : 'same');
  const sentence = await w.locator('.result').textContent();
  assert.match(sentence, /One attention layer: the output at "\." is the same as before the shuffle/);
  // the change in plain words: the share of the next-token probability that moved to other tokens
  const share = (x) => (x < 0.001 ? 'less than 0.1%' : `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`);
  assert.ok(sentence.includes(m.off > json.tolerances.totalVariation ? `${share(m.off)} of the next-token probability moved to other tokens` : 'did not move'),
    `the sentence reports the measured change ${m.off}: ${sentence}`);
  assert.ok(sentence.includes(`With positions on: ${share(m.on)} moved.`), sentence);
  // the top next token shown is the API's
  const top = sprout.next(m.shuffled, { topK: 1, positions: false })[0];
  assert.equal(json.runs.off.top[1].id, top.id);
  near(json.runs.off.top[1].p, top.p, 1e-6, 'top next token probability, shuffled, positions off');
  console.log(`shuffle test: layer ${m.layer.toExponential(2)}, positions off TV ${m.off.toFixed(4)}, on TV ${m.on.toFixed(4)}`);
});

test('shuffle: keyboard and drag move words; "put back in order" changes nothing', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-shuffle');
  const orderNow = async () => (await exportsOf(page, 'lookback-shuffle')).json.wordOrder;
  const before = await orderNow();
  // keyboard: the first shuffled token moves one place right
  await w.locator('.shuffled button.tok[data-pos="1"]').focus();
  await page.keyboard.press('Shift+ArrowRight');
  const want = before.slice();
  [want[0], want[1]] = [want[1], want[0]];
  await until(orderNow, (o) => JSON.stringify(o) === JSON.stringify(want), 'the token moved right');
  assert.equal(await w.locator('.shuffled button.tok[data-pos="2"]').evaluate((el) => el === el.getRootNode().activeElement), true, 'focus follows the token');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await w.locator('.shuffled button.tok[data-pos="1"]').evaluate((el) => el === el.getRootNode().activeElement), true, 'arrows move the focus');
  await until(async () => (await exportsOf(page, 'lookback-shuffle')).json, (j) => JSON.stringify(j.wordOrder) === JSON.stringify(want)
    && j.runs.layer.changed.at(-1) === false, 'recomputed for the new order');
  // drag: the token at position 1 dropped on position 3
  const chip = (p) => w.locator(`.shuffled button.tok[data-pos="${p}"]`);
  const from = await chip(1).boundingBox(), to = await chip(3).boundingBox();
  const draggedWord = want[0];
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  await page.mouse.up();
  const afterDrag = await until(orderNow, (o) => JSON.stringify(o) !== JSON.stringify(want), 'the drag reordered the tokens');
  assert.deepEqual(afterDrag.slice().sort((x, y) => x - y), want.slice().sort((x, y) => x - y), 'still a permutation');
  assert.ok(afterDrag.indexOf(draggedWord) > 0, 'the dragged word moved right, towards where it was dropped');
  // the changes exported are those measured for the order exported, even while a newer order is computing
  const named = await w.evaluate((x) => JSON.parse(x.exportJSON()));
  near(named.runs.off.change.at(-1), measure(named).off, 1e-5, 'the change exported is that of the order exported');
  // shuffle again: a new order, still the same tokens
  await w.locator('button.again').click();
  await until(orderNow, (o) => JSON.stringify(o) !== JSON.stringify(afterDrag), 'a new shuffle');
  // back in order: every output is the same in all three runs
  await w.locator('button.reset').click();
  const j = await until(async () => (await exportsOf(page, 'lookback-shuffle')).json, (x) => x.order.every((v, i) => v === i)
    && !x.runs.off.changed.some(Boolean), 'in order, nothing changes');
  for (const run of ['layer', 'off', 'on']) assert.ok(j.runs[run].change.every((x) => x < 1e-6), `${run}: no change in order`);
  assert.match(await w.locator('.result').textContent(), /original order: nothing moved/);
});

test('shuffle: the same text committed again keeps the reader\'s order, and a word moved right after it moves', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-shuffle');
  const orderNow = async () => (await exportsOf(page, 'lookback-shuffle')).json.wordOrder;
  const swapped = (o, i) => { const x = o.slice(); [x[i], x[i + 1]] = [x[i + 1], x[i]]; return x; };
  // the reader's own order: the first word moved one place right
  const mine = swapped(await orderNow(), 0);
  await w.locator('.shuffled button.tok[data-pos="1"]').focus();
  await page.keyboard.press('Shift+ArrowRight');
  await until(orderNow, (o) => JSON.stringify(o) === JSON.stringify(mine), 'the reader\'s order');
  // the field sends a change with the text it already holds (a script's change event, or the browser's own when
  // the field loses focus after one), and the reader moves the second word at once
  await w.locator('input.text').evaluate((i) => i.dispatchEvent(new Event('change')));
  await w.locator('.shuffled button.tok[data-pos="2"]').focus();
  await page.keyboard.press('Shift+ArrowRight');
  const want = swapped(mine, 1);
  await until(orderNow, (o) => JSON.stringify(o) === JSON.stringify(want), `the words in the order ${JSON.stringify(want)}`, 20000);
});

test('shuffle: no console error and no request outside the page', T, async () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
