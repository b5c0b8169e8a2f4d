// Helpers shared by the widget browser tests: waiting for a widget to compute, polling text in shadow DOM
// (playwright's CSS locators pierce open shadow roots), reading exports and saving screenshots.
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
