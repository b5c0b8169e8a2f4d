// Browser tests of the chapter's Python listings (web/listings/*.py): each is shown from its file, byte for byte,
// highlighted, and what the page prints under it (computed there by the core) is what Python prints; the §3
// listing holds the plane's starting numbers and the §5 listing prints the widget's table; open on a wide screen,
// closed on a phone (what each prints still showing), where an opened one scrolls inside its box; no console error
// and no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { listingFiles, listingSource, runListingInPython, samePrinted } from '../js/listing-check.mjs';
import { listingInputs } from '../../web/js/chapter/listing-inputs.js';
import { exportsOf, ready, until } from './widget-helpers.mjs';
import { openChapter } from './harness.mjs';

let b;
before(async () => {
  b = await openChapter();
});
after(async () => { await b?.close(); });

const T = { timeout: 120000 };

async function shown(page, file) {
  const el = page.locator(`details[data-listing="listings/${file}"]`);
  await el.scrollIntoViewIfNeeded();
  await until(() => el.getAttribute('data-state'), (v) => v === 'ready' || v === 'error', `${file} to compute`, 60000);
  return el;
}

test('every listing shows its file byte for byte, highlighted, and prints what Python prints', T, async () => {
  const { page, url } = b;
  for (const file of listingFiles()) {
    const el = await shown(page, file);
    assert.equal(await el.getAttribute('data-state'), 'ready', `${file}: ${await el.evaluate((d) => d.listingRun.textContent)}`);
    assert.equal(await el.evaluate((d) => d.open), true, `${file}: open on a wide screen`);
    const source = listingSource(file);
    assert.equal(await el.locator('.listing-code code').textContent(), source, `${file}: the page shows the file`);
    assert.ok(await el.locator('.listing-code .hljs-keyword').count() >= 2, `${file}: highlighted as Python`);
    assert.ok(await el.locator('.listing-code .hljs-comment').count() >= 1, `${file}: comments highlighted`);
    const page_ = await el.evaluate((d) => ({ text: d.listingRun.querySelector('.listing-out').textContent, values: d.listingOutput.values }));
    samePrinted(file, runListingInPython(file), page_);
    const served = await page.evaluate(async (u) => {
      const r = await fetch(u);
      return { type: r.headers.get('content-type'), text: await r.text() };
    }, new URL(`listings/${file}`, url).href);
    assert.equal(served.type, 'text/plain; charset=utf-8');
    assert.equal(served.text, source);
  }
  assert.deepEqual(b.record.external, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
});

test('the §3 listing holds the plane\'s starting numbers; the §5 listing prints the widget\'s table', T, async () => {
  const { page } = b;
  const qkv = listingInputs(listingSource('qkv.py'));
  await ready(page, 'lookback-qkv-plane');
  const plane = (await exportsOf(page, 'lookback-qkv-plane')).json;
  assert.deepEqual(plane.query, qkv.q);
  assert.deepEqual(plane.keys.map((k) => k.position), qkv.K);
  assert.deepEqual(plane.keys.map((k) => k.value), qkv.V);
  assert.equal(plane.temperature, qkv.tau);

  const scaling = await shown(page, 'scaling.py');
  const values = await scaling.evaluate((d) => d.listingOutput.values);
  const w = await ready(page, 'lookback-scaling');
  await until(() => w.locator('table.fixed').getAttribute('data-state'), (v) => v === 'done', 'the widget\'s table');
  const table = (await exportsOf(page, 'lookback-scaling')).json.table;
  assert.deepEqual(table.map((r) => r.d), listingInputs(listingSource('scaling.py')).widths);
  table.forEach((r, i) => {
    assert.equal(values[3 * i], r.d);
    assert.ok(Math.abs(values[3 * i + 1] - r.raw) < 1e-6, `d = ${r.d}, raw: listing ${values[3 * i + 1]}, widget ${r.raw}`);
    assert.ok(Math.abs(values[3 * i + 2] - r.scaled) < 1e-6, `d = ${r.d}, scaled: listing ${values[3 * i + 2]}, widget ${r.scaled}`);
  });
});

test('on a phone the listings start closed, and an opened one scrolls inside its box', T, async () => {
  const { page, url } = b;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url);
  const all = page.locator('details[data-listing]');
  assert.equal(await all.count(), listingFiles().length);
  assert.deepEqual(await all.evaluateAll((ds) => ds.map((d) => d.open)), listingFiles().map(() => false));
  // closed, each still shows what it prints, just under its summary (the code alone is folded away)
  for (const file of listingFiles()) {
    const el = await shown(page, file);
    const seen = await el.evaluate((d) => {
      const out = d.nextElementSibling?.querySelector('.listing-out');
      const box = (x) => x.getBoundingClientRect();
      return { out: out && out.checkVisibility() ? out.textContent : null, code: d.querySelector('.listing-code').checkVisibility(),
        // what lies between the summary and the output, but the line that introduces it
        below: out ? box(out).top - box(d.querySelector('summary')).bottom - box(d.nextElementSibling.querySelector('.listing-note')).height : null,
        printed: d.listingOutput.text };
    });
    assert.equal(seen.code, false, `${file}: the code is folded`);
    assert.equal(seen.out, seen.printed, `${file}: what it prints shows under the closed listing`);
    assert.ok(seen.below >= 0 && seen.below < 50, `${file}: the output follows the summary (${seen.below} px under it)`);
  }
  const el = page.locator('details[data-listing="listings/multihead.py"]');
  await el.locator('summary').click();
  await shown(page, 'multihead.py');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  assert.ok(await el.locator('.listing-code').evaluate((p) => p.scrollWidth > p.clientWidth), 'the code scrolls in its box');
  await page.setViewportSize({ width: 1280, height: 900 });
});
