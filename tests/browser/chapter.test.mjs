// Browser tests of the chapter's widgets in index.html: each renders and shows the numbers the chapter teaches,
// computed by the core; keyboard, mouse and touch change them correctly; quiz, cards and reading progress survive
// a reload; exports are valid; widgets wait off screen; axe finds nothing serious; the page fits a phone.
// Screenshots go to tests/browser/artifacts/. Not the embedding tests (embed.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { axeViolations, openChapter } from './harness.mjs';
import { TAGS, checkPNG, exportsOf, near, ready, shoot, texts, until, waitTexts } from './widget-helpers.mjs';

let b;
before(async () => {
  b = await openChapter();
  await b.page.evaluate(() => localStorage.clear());
  await b.page.reload();
});
after(async () => { await b?.close(); });

const T = { timeout: 60000 };

test('widgets off screen wait; every widget renders once scrolled to', T, async () => {
  const { page } = b;
  await ready(page, 'lookback-window');   // the first widget, under the goals: computed once scrolled to
  // far below the first screen: observed, paused, not computed yet
  const cards = page.locator('lookback-review-cards');
  assert.equal(await cards.getAttribute('data-paused'), '');
  assert.equal(await cards.getAttribute('data-state'), null);
  for (const tag of TAGS) await ready(page, tag);
  await page.evaluate(() => scrollTo(0, 0));
  await until(() => cards.getAttribute('data-paused'), (v) => v === '', 'the cards to pause again off screen');
});

test('worked example: scores, softmax rows and output of "the cat sat down"', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-worked-example');
  await w.locator('[role=tab][data-step="3"]').click();
  await waitTexts(w.locator('table[data-matrix="S"] tr[data-row="sat"] td'), ['0.71', '1.41', '2.12', '0.71'], 'scores of "sat"');
  // keyboard: the step tabs follow the arrow keys
  await w.locator('[role=tab][data-step="3"]').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await w.getAttribute('data-step'), 'a');
  assert.equal(await w.locator('[role=tab][data-step="4"]').getAttribute('aria-selected'), 'true');
  const A = w.locator('table[data-matrix="A"]');
  const row = (word) => texts(A.locator(`tr[data-row="${word}"] td`));
  assert.equal((await row('sat'))[2], '0.51', '"sat" gives itself about 51%');
  assert.deepEqual(await row('the'), await row('down'), 'the first and last rows are identical');
  assert.equal((await row('cat'))[3], '0.14', '"down" gets about 0.14 in the second row');
  const { json, png } = await exportsOf(page, 'lookback-worked-example');
  checkPNG(png, 'worked example');
  near(json.weights[2][2], 0.505, 0.002, 'exported weight of sat on sat');
  assert.deepEqual(json.weights[0], json.weights[3]);
  near(json.weights[1][3], 0.141, 0.002, 'exported weight of cat on down');
  near(json.scores[2][2], 3 / Math.SQRT2, 1e-5, 'exported score of sat on sat');
  near(json.output[2][0], json.weights[2].reduce((a, x, j) => a + x * json.V[j][0], 0), 1e-5, 'output = A V');
  // the hand check of the chosen row
  await w.locator('[role=radio][data-row="1"]').click();
  assert.match(await w.locator('.hand').textContent(), /cat 0\.29 \(29%\).*down 0\.14/);
});

test('qkv-plane: starting scores and weights, presets, temperature', T, async () => {
  const { page } = b;
  const p = await ready(page, 'lookback-qkv-plane');
  const scores = p.locator('tr[data-key] .score'), weights = p.locator('tr[data-key] .weight');
  await waitTexts(scores, ['2.87', '-0.77', '-2.52', '-0.56'], 'starting scores');
  // 0.941, 0.025, 0.004, 0.031 as the chapter states them; the exact softmax of the last is 0.0305 (shown 0.030)
  const start = (await texts(weights)).map(Number);
  [0.941, 0.025, 0.004, 0.031].forEach((x, i) => near(start[i], x, 0.0011, `starting weight ${i}`));
  await p.locator('button[data-preset="zero"]').click();
  await waitTexts(weights, ['0.250', '0.250', '0.250', '0.250'], 'zero query weights');
  await p.locator('button[data-preset="nobody"]').click();
  const s = (await until(() => texts(scores), (v) => v.every((x) => Number(x) < 0), 'all scores negative')).map(Number);
  assert.equal(await p.locator('.wsum').textContent(), '1.000', 'the weights still sum to 1');
  const wn = (await texts(weights)).map(Number);
  assert.equal(wn.indexOf(Math.max(...wn)), s.indexOf(Math.max(...s)), 'the least bad key gets the most weight');
  await p.locator('button[data-preset="start"]').click();
  await waitTexts(scores, ['2.87', '-0.77', '-2.52', '-0.56'], 'scores back at the start');
  await p.locator('button[data-preset="long"]').click();
  await until(() => texts(weights), (v) => Number(v[0]) > 0.99, 'a sharp softmax from the long query');
  await p.locator('button[data-preset="start"]').click();
  await waitTexts(weights, ['0.941', '0.025', '0.004', '0.030'], 'start weights');
  // temperature 0.5: weights = softmax(scores / 0.5), checked against an independent softmax of the shown scores
  const slider = p.locator('input[type=range]');
  await slider.focus();
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
  assert.equal(await p.locator('.tval').textContent(), '0.50');
  // wait for the τ = 0.5 result itself (each key press passes through an intermediate temperature)
  const e = [2.87, -0.77, -2.52, -0.56].map((x) => Math.exp(x / 0.5));
  const want0 = e[0] / e.reduce((a, y) => a + y, 0);
  const sharp = (await until(() => texts(weights), (v) => Math.abs(Number(v[0]) - want0) < 0.002, 'weights at τ = 0.5')).map(Number);
  e.forEach((x, i) => near(sharp[i], x / e.reduce((a, y) => a + y, 0), 0.002, `weight ${i} at τ = 0.5`));
  await p.locator('button[data-preset="start"]').click();
  await waitTexts(weights, ['0.941', '0.025', '0.004', '0.030'], 'start weights');
});

test('qkv-plane: arrow keys move the query by 0.1 and the scores follow', T, async () => {
  const { page } = b;
  const p = await ready(page, 'lookback-qkv-plane');
  const scores = p.locator('tr[data-key] .score');
  await p.locator('canvas').focus();
  await page.keyboard.press('q');
  await page.keyboard.press('ArrowRight');
  // query (1.5, 0.7): girl 1.6 * 0.1 more = 3.03
  await waitTexts(scores, ['3.03', '-0.89', '-2.67', '-0.52'], 'scores after one step right');
  await page.keyboard.press('ArrowUp');
  await waitTexts(scores, ['3.12', '-0.76', '-2.73', '-0.68'], 'scores after one step up');
  await page.keyboard.press('1');   // select key "girl" and move it left
  await page.keyboard.press('ArrowLeft');
  await waitTexts(p.locator('tr[data-key="girl"] .score'), ['2.97'], 'girl moved to (1.5, 0.9)');
  assert.match(await p.locator('canvas').getAttribute('aria-label'), /key "girl" at \(1\.5, 0\.9\)/);
  // five quick steps: what a screen reader hears names where the key ended, with that position's scores
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
  await waitTexts(p.locator('tr[data-key="girl"] .score'), ['2.57'], 'girl moved to (1.5, 0.4)');
  await until(() => p.locator('[data-announce]').textContent(), (t) => /at \(1\.5, 0\.4\)\. Scores 2\.57,/.test(t), 'the announcement of the last step');
  await p.locator('button[data-preset="start"]').click();
  await waitTexts(scores, ['2.87', '-0.77', '-2.52', '-0.56'], 'scores back at the start');
});

test('qkv-plane: dragging the query with the mouse and with touch', T, async () => {
  const { page } = b;
  const p = await ready(page, 'lookback-qkv-plane');
  const canvas = p.locator('canvas');
  const box = await canvas.boundingBox();
  const at = (x, y) => [box.x + box.width / 2 + (x / 3.5) * (box.width / 2), box.y + box.height / 2 - (y / 3.5) * (box.height / 2)];
  await page.mouse.move(...at(1.4, 0.7));
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(...at(1.4 - (2.4 * i) / 8, 0.7 + (0.3 * i) / 8));
  await page.mouse.up();
  // the export names the query its scores were computed for, even while a newer position is still computing
  const early = await p.evaluate((el) => JSON.parse(el.exportJSON()));
  for (const k of early.keys) near(k.score, early.query[0] * k.position[0] + early.query[1] * k.position[1], 1e-4, `just after the drag: score of ${k.label}`);
  const check = async (what, x, y) => {
    const { json } = await until(() => exportsOf(page, 'lookback-qkv-plane'),
      (r) => Math.abs(r.json.query[0] - x) < 0.06 && Math.abs(r.json.query[1] - y) < 0.06 && r.json.keys[0].score !== undefined
        && Math.abs(r.json.keys[1].score - (r.json.query[0] * -1.2 + r.json.query[1] * 1.3)) < 1e-4, `${what} query near (${x}, ${y})`);
    for (const k of json.keys) near(k.score, json.query[0] * k.position[0] + json.query[1] * k.position[1], 1e-4, `${what}: score of ${k.label}`);
    near(json.keys.reduce((a, k) => a + k.weight, 0), 1, 1e-5, `${what}: weights sum`);
    return json;
  };
  const json = await check('mouse drag', -1.0, 1.0);
  assert.equal(json.keys.reduce((best, k) => (k.weight > best.weight ? k : best)).label, 'ball', 'the query now points at "ball"');
  // touch: the same drag with touch events (pointerType "touch")
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, xy) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: xy ? [{ x: xy[0], y: xy[1] }] : [] });
  await touch('touchStart', at(-1.0, 1.0));
  for (let i = 1; i <= 6; i++) await touch('touchMove', at(-1.0 + (1.5 * i) / 6, 1.0 - (2.5 * i) / 6));
  await touch('touchEnd');
  await check('touch drag', 0.5, -1.5);
  await cdp.detach();
  await p.locator('button[data-preset="start"]').click();
});

test('scaling: average largest weight grows with d unscaled and stays near 0.25 scaled', T, async () => {
  const { page } = b;
  const s = await ready(page, 'lookback-scaling');
  await s.locator('table.fixed[data-state="done"]').waitFor({ timeout: 20000 });
  const cell = async (d, c) => Number(await s.locator(`tr[data-d="${d}"] .${c}`).textContent());
  near(await cell(4, 'raw'), 0.45, 0.03, 'd = 4 raw');
  near(await cell(32, 'raw'), 0.78, 0.03, 'd = 32 raw');
  near(await cell(256, 'raw'), 0.92, 0.03, 'd = 256 raw');
  for (const d of [4, 32, 256]) near(await cell(d, 'scaled'), 0.25, 0.03, `d = ${d} scaled`);
  // the slider: from d = 32, six steps right is d = 256
  await s.locator('input[type=range]').focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await s.getAttribute('data-d'), '256');
  // wait for the d = 256 result itself (an intermediate d on the way there can also be near 0.92)
  const table256 = await cell(256, 'raw');
  const raw = await until(async () => Number(await s.locator('b.raw').textContent()), (v) => v === table256, 'live raw at d = 256');
  near(raw, 0.92, 0.03, 'live raw at d = 256');
  assert.equal(raw, table256, 'the live figure matches the table');
  await s.locator('button[data-scaled="true"]').click();
  await until(() => s.locator('canvas').getAttribute('aria-label'), (v) => /scaled scores at d = 256/.test(v), 'scaled histogram');
  const { json, png } = await exportsOf(page, 'lookback-scaling');
  checkPNG(png, 'scaling');
  assert.equal(json.d, 256);
  assert.equal(json.histogram.counts.reduce((a, x) => a + x, 0), 16000, '1,000 queries x 16 keys in the histogram');
  near(json.averageLargestWeight.scaled, 0.25, 0.03, 'exported scaled average');
  await s.locator('input[type=range]').focus();
  await page.keyboard.press('Home');
  assert.equal(await s.getAttribute('data-d'), '2');
});

test('mask-builder: causal rows renormalise; the leak test; a fully masked row warns', T, async () => {
  const { page } = b;
  const m = await ready(page, 'lookback-mask-builder');
  const row = (i) => m.locator(`table.grid tr[data-row="${i}"] button[aria-pressed="true"]`);
  await waitTexts(row(0), ['1.00'], 'row 1');
  assert.deepEqual(await texts(row(1)), ['0.50', '0.50']);
  assert.deepEqual(await texts(row(2)), ['0.33', '0.33', '0.33']);
  assert.deepEqual(await texts(row(3)), ['0.25', '0.25', '0.25', '0.25']);
  assert.equal(await m.getAttribute('data-causal'), 'true');
  assert.match(await m.locator('.verdict').textContent(), /This is the causal mask/);
  // leak test: edit the last word
  await m.locator('.tokens input[data-i="3"]').fill('rug');
  const changed = (col) => texts(m.locator(`table.leak tbody td:nth-of-type(${col})`));
  await waitTexts(m.locator('table.leak tbody td:nth-of-type(1)'), ['same', 'same', 'same', 'changed'], 'with the mask, only the edited position changes');
  assert.deepEqual(await changed(2), ['changed', 'changed', 'changed', 'changed'], 'without a mask, earlier outputs change');
  assert.equal(await m.getAttribute('data-leak'), 'false');
  // keyboard: from the first cell, three steps right is "the" looking at "down" (the future); Space opens it
  await m.locator('button[data-i="0"][data-j="0"]').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Space');
  // the exported weights are those of the exported mask (equal scores: a row's visible cells share its weight equally)
  const mid = await m.evaluate((el) => JSON.parse(el.exportJSON()));
  mid.mask.forEach((r, i) => r.forEach((on, j) => near(mid.weights[i][j], r.some(Boolean) ? on / r.reduce((a, x) => a + x, 0) : 0, 1e-6,
    `just after Space: weight ${i + 1}, ${j + 1} of the mask exported`)));
  await until(() => m.getAttribute('data-causal'), (v) => v === 'false', 'the mask is not causal');
  assert.match(await m.locator('.verdict').textContent(), /not causal: "the" \(1\) can see "rug" \(4\)/);
  await waitTexts(row(0), ['0.50', '0.50'], 'row 1 renormalised over two visible cells');
  await until(() => changed(1), (v) => v[0] === 'changed', 'the leak reaches position 1');
  assert.equal(await m.getAttribute('data-leak'), 'true');
  // a fully masked row
  await m.locator('button[data-preset="none"]').click();
  await until(() => m.getAttribute('data-empty-rows'), (v) => v === '4', 'four empty rows reported by the core');
  assert.match(await m.locator('.warn').textContent(), /4 fully masked rows/);
  const { json, png } = await exportsOf(page, 'lookback-mask-builder');
  checkPNG(png, 'mask builder');
  assert.equal(json.emptyRows, 4);
  assert.deepEqual(json.weights[0], [0, 0, 0, 0]);
  await m.locator('button[data-preset="causal"]').click();
  await until(() => m.getAttribute('data-empty-rows'), (v) => v === '0', 'no empty rows');
  assert.equal(await m.locator('.warn').textContent(), '');
  await m.locator('.reset-words').click();
});

test('cost: starts at Sprout\'s context of 256 tokens; scores and memory, the table of lengths, the sliders', T, async () => {
  const { page } = b;
  const c = await ready(page, 'lookback-cost');
  assert.equal(await c.getAttribute('data-length'), '256', 'the shipped model\'s context');
  assert.equal(await c.locator('.per-head').textContent(), '65,536');
  assert.equal(await c.locator('.per-pass').textContent(), '3,145,728');
  assert.equal(await c.locator('.nheads').textContent(), '48');
  assert.equal(await c.locator('.mem-head').textContent(), '131 kB', 'sizes in units that scale');
  assert.match(await c.locator('.masked').textContent(), /32,640.*49\.8%.*counted on a causal mask: 32,640 hidden/);
  const mem = (T) => c.locator(`tr[data-length="${T}"] td:nth-of-type(3)`).textContent();  // per head, one matrix
  assert.equal(await mem(256), '131 kB');
  assert.equal(await mem(512), '524 kB');
  assert.equal(await mem(8192), '134 MB');
  assert.equal(await mem(32768), '2.1 GB');
  assert.equal(await c.locator('tr[data-length="131072"] td:nth-of-type(4)').textContent(), '1.6 TB', 'all heads and layers at 131,072');
  await c.locator('input[name=length]').focus();
  await page.keyboard.press('ArrowRight');
  await until(() => c.locator('.per-head').textContent(), (v) => v === '262,144', 'scores per head at 512');
  assert.equal(await c.locator('.per-pass').textContent(), '12,582,912');
  assert.match(await c.locator('.masked').textContent(), /130,816.*49\.9%.*counted on a causal mask: 130,816 hidden/);
  await page.keyboard.press('ArrowRight');
  await until(() => c.locator('.per-head').textContent(), (v) => v === '1,048,576', 'scores per head at 1,024');
  await c.locator('input[name=heads]').focus();
  await page.keyboard.press('ArrowRight');  // 7 heads x 8 layers
  await until(() => c.locator('.per-pass').textContent(), (v) => v === (1024 * 1024 * 56).toLocaleString('en-US'), 'per pass with 56 heads');
  const { json, png } = await exportsOf(page, 'lookback-cost');
  checkPNG(png, 'cost');
  assert.equal(json.current.perHead, 1048576);
  assert.equal(json.table.find((r) => r.T === 32768).memHead, 2147483648);
  await page.keyboard.press('ArrowLeft');
  await c.locator('input[name=length]').focus();
  await page.keyboard.press('ArrowLeft');
  await until(() => c.locator('.per-pass').textContent(), (v) => v === '12,582,912', 'back to 512 tokens, 48 heads');
  assert.match(await c.locator('.masked').textContent(), /130,816.*counted on a causal mask: 130,816 hidden/, 'the count is that of the length shown');
  await page.keyboard.press('ArrowLeft');
  await until(() => c.locator('.per-pass').textContent(), (v) => v === '3,145,728', 'back to 256 tokens, 48 heads');
});

test('quiz and review cards score answers and remember them after a reload', T, async () => {
  const { page } = b;
  let q = await ready(page, 'lookback-quiz');
  await q.locator('fieldset[data-q="0"] label.opt').nth(1).click();   // right
  await q.locator('fieldset[data-q="1"] label.opt').nth(0).click();   // not quite
  assert.equal(await q.locator('fieldset[data-q="0"]').getAttribute('data-state'), 'right');
  assert.equal(await q.locator('fieldset[data-q="1"]').getAttribute('data-state'), 'wrong');
  assert.match(await q.locator('.score').textContent(), /Score: 1 of 3 right \(2 answered\)/);
  // the explanation quotes the core's softmax of (-3, -5, -4, -6)
  const fb = await q.locator('fieldset[data-q="0"] .feedback').textContent();
  const w = fb.match(/Computed now: ([\d., ]+)\./)[1].split(',').map(Number);
  const e = [-3, -5, -4, -6].map(Math.exp);
  w.forEach((x, i) => near(x, e[i] / e.reduce((a, y) => a + y, 0), 0.001, `quiz live weight ${i}`));
  // keyboard: radios in the third question
  await q.locator('fieldset[data-q="2"] input').first().focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await q.locator('fieldset[data-q="2"]').getAttribute('data-state'), 'right');
  let cards = await ready(page, 'lookback-review-cards');
  await cards.locator('.flip').click();
  assert.equal(await cards.locator('.back').isVisible(), true);
  await cards.locator('.knew').click();
  assert.equal(await cards.getAttribute('data-known'), '1');
  await page.reload();
  q = await ready(page, 'lookback-quiz');
  assert.match(await q.locator('.score').textContent(), /Score: 2 of 3 right/);
  assert.equal(await q.locator('fieldset[data-q="0"] input').nth(1).isChecked(), true);
  assert.equal(await q.locator('fieldset[data-q="1"]').getAttribute('data-state'), 'wrong');
  cards = await ready(page, 'lookback-review-cards');
  assert.equal(await cards.getAttribute('data-known'), '1');
  assert.match(await cards.locator('.known-count').textContent(), /1 of 10 known/);
  const { json, png } = await exportsOf(page, 'lookback-quiz');
  checkPNG(png, 'quiz');
  assert.deepEqual(json.score, { right: 2, answered: 3, total: 3 });
  // the other quizzes keep their own answers
  const order = await ready(page, 'lookback-quiz', 2);
  assert.match(await order.locator('.score').textContent(), /3 questions/);
});

test('contents bar tracks the section in view and remembers progress', T, async () => {
  const { page } = b;
  await page.locator('#cost h2').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.getElementById('cost').scrollIntoView({ block: 'start' }));
  await until(() => page.locator('nav.contents a[aria-current="location"]').getAttribute('data-section'), (v) => v === 'cost', 'cost is current');
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('lookback.progress')));
  assert.equal(saved.last, 'cost');
  assert.ok(saved.read.length >= 1);
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await until(() => page.evaluate(() => JSON.parse(localStorage.getItem('lookback.progress')).read.includes('production')), Boolean, 'last section read');
  await page.goto(b.url);
  assert.equal(await page.locator('.resume').isVisible(), true, 'offers to continue');
  assert.match(await page.locator('.resume a').textContent(), /Continue where you left off: section \d+, /);
});

// one test per widget: after the reload above each widget computes again before it exports (each its own budget)
for (const tag of TAGS) {
  test(`${tag} exports a PNG, JSON and CSV`, T, async () => {
    const { page } = b;
    await ready(page, tag);
    const { png, json, csv } = await exportsOf(page, tag, 0, `export-${tag.replace('lookback-', '')}`);
    checkPNG(png, tag);
    assert.equal(json.widget, tag);
    assert.ok(csv.split('\r\n').length >= 2, `${tag}: CSV has a header and rows`);
  });
}

test('the qkv-plane\'s exports hold its weights; the save button downloads', T, async () => {
  const { page } = b;
  const plane = await ready(page, 'lookback-qkv-plane');
  const { json } = await exportsOf(page, 'lookback-qkv-plane');
  assert.deepEqual(json.keys.map((k) => Number(k.score.toFixed(2))), [2.87, -0.77, -2.52, -0.56]);
  [0.941, 0.025, 0.004, 0.031].forEach((x, i) => near(json.keys[i].weight, x, 0.0011, `exported weight ${i}`));
  near(json.keys[3].weight, 0.0305, 0.0001, 'exact softmax of the last key');
  // the formats sit in one small save menu, closed until opened
  assert.equal(await plane.locator('.export button[data-format="png"]').isVisible(), false, 'the save menu starts closed');
  await plane.locator('.export summary').click();
  const [download] = await Promise.all([page.waitForEvent('download'), plane.locator('.export button[data-format="png"]').click()]);
  assert.equal(await plane.locator('.export').getAttribute('open'), null, 'picking a format closes the menu');
  assert.equal(download.suggestedFilename(), 'qkv-plane.png');
  const bytes = readFileSync(await download.path());
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
});

// axe reads the whole page (every section laid out, every widget computed: about 89,000 elements, 81,000 of them in
// the heads grid's maps), so each pass is its own test with its own time budget; the widgets are computed once.
async function everyWidgetReady(page) {
  for (const tag of TAGS) await ready(page, tag);
}

test('accessibility: axe finds no serious or critical violations (desktop, light)', T, async () => {
  const { page, url } = b;
  await everyWidgetReady(page);
  assert.deepEqual(await axeViolations(page, url), []);
});

test('accessibility: axe finds no serious or critical violations (desktop, dark)', T, async () => {
  const { page, url } = b;
  await everyWidgetReady(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    assert.deepEqual(await axeViolations(page, url), [], 'dark theme');
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test('accessibility: axe finds no serious or critical violations (phone, 375 px)', T, async () => {
  const { page, url } = b;
  await page.setViewportSize({ width: 375, height: 740 });
  try {
    await everyWidgetReady(page);
    await page.waitForTimeout(300);
    assert.deepEqual(await axeViolations(page, url), [], 'phone width');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

// The sticky contents bar would cover the top of element screenshots: it is hidden while they are taken.
async function withoutBar(page, fn) {
  const hideBar = await page.addStyleTag({ content: 'nav.contents { visibility: hidden !important; }' });
  try {
    await fn();
  } finally {
    await hideBar.evaluate((el) => el.remove());
  }
}

// one test per widget and width (an element screenshot waits for the widget to be still: each its own budget), then
// the width's sideways-scrolling check with every widget computed and shown at it
for (const [width, height] of [[375, 740], [1280, 900]]) {
  for (const tag of TAGS) {
    test(`${width} px: a screenshot of ${tag}`, T, async () => {
      const { page } = b;
      await page.setViewportSize({ width, height });
      await withoutBar(page, async () => {
        await shoot(await ready(page, tag), `chapter-${tag.replace('lookback-', '')}-${width}`);
      });
    });
  }
  test(`${width} px: no sideways scrolling`, T, async () => {
    const { page } = b;
    await page.setViewportSize({ width, height });
    try {
      await everyWidgetReady(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${width} px: the page scrolls sideways by ${overflow} px`);
      if (width === 375) {
        await page.evaluate(() => scrollTo(0, 0));
        await page.screenshot({ path: new URL('./artifacts/chapter-top-375.png', import.meta.url).pathname });
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
}

test('dark theme: the chapter palette; screenshots of widgets in it', T, async () => {
  const { page } = b;
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await withoutBar(page, async () => {
      const plane = await ready(page, 'lookback-qkv-plane');
      const bg = await plane.evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(bg, 'rgb(31, 33, 39)', 'dark panel colour from the chapter palette');
      const corner = () => plane.evaluate((el) => Array.from(el.shadowRoot.querySelector('canvas').getContext('2d').getImageData(3, 3, 1, 1).data));
      await until(corner, (px) => px[0] < 60 && px[1] < 60 && px[2] < 60, 'the plane redrawn in the dark palette');
      for (const tag of ['lookback-qkv-plane', 'lookback-mask-builder', 'lookback-worked-example']) {
        await shoot(await ready(page, tag), `chapter-${tag.replace('lookback-', '')}-dark`);
      }
    });
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test('no console errors and no request left localhost', () => {
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.external, []);
});
