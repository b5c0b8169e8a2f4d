// Browser tests of <lookback-code-walk> in the chapter (section 13): the source it shows equals the file in
// wasm/ byte for byte (and the copy the build served), highlighted; the values beside the lines and in its table
// equal the JS API's attentionRow for the same inputs computed here in Node; the keyboard steps through the lines
// and picks rows; exports are valid; no console error and no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadLookback } from 'lookback';
import { openChapter } from './harness.mjs';
import { checkPNG, exportsOf, near, ready, texts, until, waitTexts } from './widget-helpers.mjs';

const lb = await loadLookback();
const ROOT = new URL('../../', import.meta.url);
const file = (path) => readFileSync(new URL(path, ROOT), 'utf8');

let b;
before(async () => {
  b = await openChapter();
});
after(async () => { await b?.close(); });

const T = { timeout: 60000 };

// The worked example's four words through the API: q, k, v, then the row the widget shows.
const X = [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]];
const W = { wq: [[0, 1], [1, 0], [0, 1]], wk: [[1, 0], [1, 1], [0, 1]], wv: [[1, 0], [0, 1], [1, 1]] };
function row(query, causal) {
  const x = X.flat();
  const [q, k, v] = ['wq', 'wk', 'wv'].map((w) => lb.gemm(x, W[w].flat(), { M: 4, N: 2, K: 3 }));
  return lb.attentionRow(q, k, v, { T: 4, d: 2, causal, query });
}
const f = (x, d) => (Number.isFinite(x) ? x.toFixed(d).replace(/^-(0\.?0*)$/, '$1') : x > 0 ? '∞' : '-∞');

test('code walk: the shown source is the file in wasm/, byte for byte, and is highlighted', T, async () => {
  const { page, url } = b;
  const w = await ready(page, 'lookback-code-walk');
  const { json, png, csv } = await exportsOf(page, 'lookback-code-walk', 0, 'code-walk');
  checkPNG(png, 'code walk');
  assert.ok(csv.split('\r\n').length >= 7);
  const src = json.source;
  assert.equal(src.file, 'wasm/src/kernels/reference.cpp');
  const lines = file(src.file).split('\n');
  const shown = (await w.locator('.code:not(.fast-code) code.src').allTextContents()).join('\n');
  assert.equal(shown, lines.slice(src.from - 1, src.to).join('\n'), 'the lines on the page are the lines of the file');
  assert.equal(src.text, shown);
  assert.ok(lines.slice(src.from - 1, src.to).some((l) => l.startsWith('bool attention_row_ref(')), 'it is attention_row_ref');
  assert.equal(lines[src.to - 1], '}', 'through the end of the function');
  const numbers = await texts(w.locator('.code:not(.fast-code) .ln .no'));
  assert.deepEqual(numbers, lines.slice(src.from - 1, src.to).map((_, i) => String(src.from + i)), 'the file\'s own line numbers');
  // the vectorised kernel's softmax, also from the file, drawn when opened
  assert.equal(await w.locator('.fast-code .ln').count(), 0, 'not drawn while closed');
  await w.locator('details.fast summary').click();
  const fastFile = file('wasm/src/kernels/attention.cpp').split('\n');
  const fastFrom = Number((await w.locator('.fast-range').textContent()).split('–')[0]);
  const fast = await w.locator('.fast-code code.src').allTextContents();
  assert.ok(fast.length > 10);
  assert.deepEqual(fast, fastFile.slice(fastFrom - 1, fastFrom - 1 + fast.length));
  assert.ok(fast.some((l) => l.includes('void softmax_columns(')));
  // the copies the build served are the files, byte for byte
  for (const path of ['wasm/src/kernels/reference.cpp', 'wasm/src/kernels/attention.cpp']) {
    const served = await page.evaluate(async (u) => (await fetch(u)).text(), new URL(`build/source/${path}`, url).href);
    assert.equal(served, file(path), `${path} as served`);
  }
  assert.ok(await w.locator('.code .hljs-keyword').count() >= 5, 'keywords highlighted');
  assert.ok(await w.locator('.code .hljs-comment').count() >= 1, 'comments highlighted');
});

test('code walk: the values beside the lines and in the table are the API\'s attentionRow', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-code-walk');
  const r = row(2, true);
  assert.equal(r.score[3], -Infinity, '"down" is hidden from "sat"');
  await waitTexts(w.locator('.row-table tbody td.score'), Array.from(r.score, (x) => f(x, 2)), 'scores of "sat"');
  assert.deepEqual(await texts(w.locator('.row-table tbody td.e')), Array.from(r.e, (x) => f(x, 3)));
  assert.deepEqual(await texts(w.locator('.row-table tbody td.weight')), Array.from(r.weight, (x) => f(x, 3)));
  assert.equal(await w.locator('.row-table td.max').textContent(), f(r.max, 2));
  assert.equal(await w.locator('.row-table td.sum').textContent(), f(r.sum, 3));
  const { json } = await exportsOf(page, 'lookback-code-walk');
  assert.deepEqual(json.row.weight, Array.from(r.weight));
  assert.deepEqual(json.row.out, Array.from(r.out));
  assert.equal(json.row.score[3], null, 'the hidden score exports as null (-inf)');
  json.fastKernel.weights.forEach((x, i) => near(x, r.weight[i], 1e-6, `fast kernel weight ${i}`));
  // keyboard: End shows every value; the last assignments carry the weights and output
  await w.locator('.code:not(.fast-code)').focus();
  await page.keyboard.press('End');
  const note = (re) => w.locator('.code:not(.fast-code) .ln').filter({ hasText: re }).locator('.val').textContent();
  assert.equal(await note(/r\.weight\[s\] = /), `weight = [${Array.from(r.weight, (x) => f(x, 3)).join(', ')}]`);
  assert.equal(await note(/r\.out\[d\] \+= /), `out = (${Array.from(r.out, (x) => f(x, 3)).join(', ')})`);
  assert.equal(await note(/r\.max = std::max/), `max = ${f(r.max, 2)}`);
  assert.equal(await note(/r\.sum \+= /), `e = [${Array.from(r.e, (x) => f(x, 3)).join(', ')}]\nsum = ${f(r.sum, 3)}`);
  // Home: back to the first line; values of later lines are not shown yet
  await page.keyboard.press('Home');
  const first = Number(await w.getAttribute('data-line'));
  assert.equal(await note(/r\.weight\[s\] = /), '');
  await page.keyboard.press('ArrowDown');
  assert.ok(Number(await w.getAttribute('data-line')) > first, 'ArrowDown steps to the next line');
  assert.equal(await w.locator('.ln[aria-current="step"]').count(), 1);
  // the next button steps one line too
  const at = Number(await w.getAttribute('data-line'));
  await w.locator('button.next').click();
  assert.ok(Number(await w.getAttribute('data-line')) > at);
  // another row by keyboard: from "sat" one right is "down", which sees all four words
  await w.locator('[role=radio][data-row="2"]').focus();
  await page.keyboard.press('ArrowRight');
  const r3 = row(3, true);
  await waitTexts(w.locator('.row-table tbody td.weight'), Array.from(r3.weight, (x) => f(x, 3)), 'weights of "down"');
  // without the mask, "the" sees "down" too
  await w.locator('[role=radio][data-row="0"]').click();
  await w.locator('input.causal').uncheck();
  const r0 = row(0, false);
  // the export names the row and the mask its values were computed with (the two inputs arrive close together)
  const named = await until(() => w.evaluate((x) => JSON.parse(x.exportJSON())), (j) => j.query === 0 && j.causal === false, 'the export of the unmasked row of "the"');
  assert.deepEqual(named.row.weight, Array.from(r0.weight), 'the exported weights are those of the row and mask exported');
  await waitTexts(w.locator('.row-table tbody td.score'), Array.from(r0.score, (x) => f(x, 2)), 'unmasked scores of "the"');
  await w.locator('input.causal').check();
  await waitTexts(w.locator('.row-table tbody td.score'), Array.from(row(0, true).score, (x) => f(x, 2)), 'masked again');
});

test('code walk: no console error and no request outside the page', T, async () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
