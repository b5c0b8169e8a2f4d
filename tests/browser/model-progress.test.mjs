// Browser test of the chapter's model-loading bar (web/js/chapter/model-progress.js): while Sprout's weights
// arrive (slowed down here by a route), a bar names the model and counts the bytes; it goes once the model is
// loaded, and says so when the weights cannot be fetched. The sizes come from the served file, not typed in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { open } from './harness.mjs';

// the bundle loadModel('sprout') reads; a compressed file counts its bytes as they arrive
const BUNDLE = ['model.safetensors', 'config.json', 'tokenizer.json']
  .map((f) => new URL(`../../web/models/sprout/${f}`, import.meta.url));
const T = { timeout: 180_000 };
let b;
before(async () => { b = await open(); });
after(async () => { await b?.close(); });

// the text of Sprout's row in the bar, or null while it has none (other models may load beside it)
const barText = (page) => page.evaluate(() => {
  const bar = document.querySelector('.model-progress');
  const row = bar?.querySelector('[data-model="sprout"]');
  return bar && !bar.hidden && row ? row.textContent : null;
});

async function until(page, fn, what, ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}

test('a bar shows Sprout loading with its size, then goes when the model is loaded', T, async () => {
  const page = b.page;
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/models/sprout/model.safetensors', async (route) => { await held; await route.continue(); });
  await page.goto(b.url);
  // every text the bar shows, recorded in the page as it changes
  await page.evaluate(() => {
    const bar = document.querySelector('.model-progress');
    globalThis.barTexts = [];
    new MutationObserver(() => {
      const row = bar.querySelector('[data-model="sprout"]');
      if (row) globalThis.barTexts.push(row.textContent);
    })
      .observe(bar, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.locator('#w-explorer').scrollIntoViewIfNeeded();
  const text = await until(page, () => barText(page), 'the loading bar');
  assert.match(text, /^Loading Sprout(…|: \d+\.\d( of \d+\.\d)? MB)$/);
  assert.equal(await page.locator('.model-progress').getAttribute('role'), 'status');
  release();
  await until(page, async () => (await barText(page)) === null, 'the bar to go');
  // while the bytes flowed, the bar counted them against the bundle's size
  const mb = BUNDLE.reduce((sum, f) => sum + statSync(f).size, 0) / 1e6;
  const texts = await page.evaluate(() => globalThis.barTexts);
  const totals = texts.map((t) => Number(/ of (\d+\.\d) MB$/.exec(t)?.[1])).filter((x) => x > 0);
  assert.ok(totals.length > 0 && totals.every((x) => Math.abs(x - mb) <= 0.11), `bar texts: ${texts.join(' | ')}`);
  await page.unroute('**/models/sprout/model.safetensors');
});

test('no console errors and no request left localhost while loading', () => {
  assert.deepEqual(b.record.external, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
});

test('weights that cannot be fetched: the bar says Sprout could not be loaded, and can be dismissed', T, async () => {
  const page = await b.context.newPage();
  await page.route('**/models/sprout/model.safetensors', (route) => route.abort('failed'));
  await page.goto(b.url);
  await page.locator('#w-explorer').scrollIntoViewIfNeeded();
  const text = await until(page, async () => {
    const t = await barText(page);
    return t?.includes('could not be loaded') ? t : null;
  }, 'the failure message');
  assert.match(text, /^Sprout could not be loaded: .+Reload the page to try again\./);
  // Dismiss removes the row at once (a widget shown later may try the load again, with a row of its own)
  const after = await page.evaluate(() => {
    const row = document.querySelector('.model-progress [data-model="sprout"]');
    row.querySelector('button').click();
    return document.querySelector('.model-progress [data-model="sprout"]')?.textContent ?? null;
  });
  assert.equal(after, null);
  await page.close();
});
