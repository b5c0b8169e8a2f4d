// Helpers shared by the widget browser tests: waiting for a widget to compute, polling text in shadow DOM
// (playwright's CSS locators pierce open shadow roots), reading exports and saving screenshots, the two sides of a
// <lookback-compare>.
// Not a test file (the runner only picks *.test.mjs).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { ARTIFACTS, pngInfo } from './harness.mjs';
import { widgetList } from '../../.scripts/widget-list.mjs';

// every widget, from the one list (web/js/widgets/all.js)
export const TAGS = widgetList().map((w) => w.tag);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Scrolls the widget into view (widgets compute only on screen) and waits for its first computed render.
export async function ready(page, tag, nth = 0) {
  const el = page.locator(tag).nth(nth);
  await el.scrollIntoViewIfNeeded();
  await until(() => el.getAttribute('data-state'), (v) => v === 'ready', `${tag} #${nth} to compute`, 20000);
  return el;
}

// Polls fn (async, returns a value) until check(value) holds; fails with the last value.
export async function until(fn, check, what = 'condition', timeout = 8000) {
  const t0 = Date.now();
  let v;
  while (Date.now() - t0 < timeout) {
    v = await fn();
    if (check(v)) return v;
    await sleep(40);
  }
  assert.fail(`timed out waiting for ${what}; last value: ${JSON.stringify(v)}`);
}

// A probability as the tables of next tokens show it: three decimals, a small one to its first digit (never a row
// of 0.000), under 0.0001 "< 0.0001".
export const probText = (p) => (p >= 0.0005 || p <= 0 ? p.toFixed(3) : p >= 0.0001 ? p.toFixed(4) : '< 0.0001');

export const texts = (locator) => locator.allTextContents().then((a) => a.map((s) => s.trim()));

export async function waitTexts(locator, expected, what) {
  return until(() => texts(locator), (v) => JSON.stringify(v) === JSON.stringify(expected), `${what} = ${JSON.stringify(expected)}`);
}

// The widget's exports, produced in the page: PNG header facts, parsed JSON, CSV text.
// With `save`, the PNG is also written to the artifacts folder under that name.
export async function exportsOf(page, tag, nth = 0, save = null) {
  const r = await page.locator(tag).nth(nth).evaluate(async (el, whole) => {
    const blob = await el.exportPNG();
    const all = new Uint8Array(await blob.arrayBuffer());
    const bytes = Array.from(whole ? all : all.subarray(0, 32));
    return { type: blob.type, size: blob.size, bytes, json: el.exportJSON(), csv: el.exportCSV() };
  }, !!save);
  if (save) writeFileSync(`${ARTIFACTS}${save}.png`, Buffer.from(r.bytes));
  return { png: { type: r.type, size: r.size, ...pngInfo(r.bytes.slice(0, 32)) }, json: JSON.parse(r.json), csv: r.csv };
}

export function checkPNG(png, what) {
  assert.equal(png.type, 'image/png', `${what}: PNG blob type`);
  assert.ok(png.signature, `${what}: PNG signature`);
  assert.equal(png.chunk, 'IHDR', `${what}: first chunk is IHDR`);
  assert.ok(png.width >= 300 && png.width <= 4000, `${what}: PNG width ${png.width}`);
  assert.ok(png.height >= 60 && png.height <= 8000, `${what}: PNG height ${png.height}`);
}

export async function shoot(locator, name) {
  await locator.scrollIntoViewIfNeeded();
  await locator.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

export const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} is not within ${tol} of ${b}`);

// <lookback-compare>: each side's grid as it stands: its model, text, sort, the heads it draws, and whether its habits are the card's
export const sides = (cmp) => cmp.evaluate((el) => [...el.querySelectorAll('lookback-heads-grid')].map((g) => ({
  model: g.getAttribute('model') || 'current', slot: g.slot, text: g.result?.text ?? null, shown: g.text, sort: g.sort,
  modelKey: g.modelKey, resultModel: g.result?.model ?? null,
  heads: [...g.shadowRoot.querySelectorAll('.grid [data-head]')].map((c) => c.dataset.head),
  card: !!g.card, live: g.dataset.live ?? null, error: g.hasAttribute('data-error') })));
// its two sides: left the added one (slot "with"), right the widget it wraps
export const grids = (cmp, tag = 'lookback-heads-grid') => ({ left: cmp.locator(`${tag}[slot="with"]`), right: cmp.locator(`${tag}:not([slot])`) });
// both sides computed on `text` with their own model (each scrolled to: a widget computes only on screen)
export async function bothOn(cmp, text, what, tag = 'lookback-heads-grid') {
  const { left, right } = grids(cmp, tag);
  for (const g of [left, right]) {
    await g.scrollIntoViewIfNeeded();
    await until(() => g.evaluate((w) => ({ text: w.result?.text, fresh: w.result?.model === w.modelKey, error: w.hasAttribute('data-error') })),
      (v) => v.text === text && v.fresh && !v.error, `${what}: a side computed on the text`, 60000);
  }
  return tag === 'lookback-heads-grid' ? sides(cmp) : null;
}

// Turns the comparison on (its toggle clicked once it is offered) and waits for the two sides; returns the toggle.
export async function showBoth(cmp, tag = 'lookback-heads-grid') {
  await cmp.scrollIntoViewIfNeeded();
  const toggle = cmp.locator('button.toggle');
  await until(() => toggle.isDisabled(), (v) => v === false, 'the comparison offered', 30000);
  await toggle.click();
  await until(() => cmp.locator(tag).count(), (n) => n === 2, `two ${tag}`);
  return toggle;
}

// every head of a model of L layers × H heads as a person reads it (layer.head from 1), in order
export const allHeads = (L, H) => Array.from({ length: L * H }, (_, i) => `${Math.floor(i / H) + 1}.${(i % H) + 1}`);
