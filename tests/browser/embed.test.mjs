// Browser tests of embedding: embed.html uses each widget alone through web/lookback.js (no chapter styles or
// scripts); attributes set the inputs; exports and axe pass; and lookback.js works from a page in another folder,
// under the same strict CSP. Screenshots go to tests/browser/artifacts/. Not the chapter tests (chapter.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CSP } from '../../.scripts/serve.mjs';
import { axeViolations, open } from './harness.mjs';
import { TAGS, checkPNG, exportsOf, near, ready, shoot, texts, until, waitTexts } from './widget-helpers.mjs';

let b;
before(async () => {
  b = await open();
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(new URL('embed.html', b.url).href);
});
after(async () => { await b?.close(); });

const T = { timeout: 60000 };

test('embed.html loads only lookback.js and no chapter code', T, async () => {
  const { page } = b;
  const scripts = await page.evaluate(() => [...document.scripts].filter((s) => s.src).map((s) => new URL(s.src).pathname));
  assert.deepEqual(scripts, ['/lookback.js']);
  assert.equal(await page.locator('link[rel=stylesheet]').count(), 0);
});

test('each widget renders alone and shows its numbers', T, async () => {
  const { page } = b;
  for (const tag of TAGS) await ready(page, tag);
  const plane = page.locator('lookback-qkv-plane');
  await waitTexts(plane.locator('tr[data-key] .score'), ['2.87', '-0.77', '-2.52', '-0.56'], 'plane scores');
  const worked = page.locator('lookback-worked-example');
  await worked.locator('[role=tab][data-step="3"]').click();
  await waitTexts(worked.locator('table[data-matrix="S"] tr[data-row="sat"] td'), ['0.71', '1.41', '2.12', '0.71'], 'scores of "sat"');
  const mask = page.locator('lookback-mask-builder');
  await waitTexts(mask.locator('table.grid tr[data-row="4"] button[aria-pressed="true"]'), ['0.20', '0.20', '0.20', '0.20', '0.20'], 'row 5 of a 5-token causal mask');
  const cost = page.locator('lookback-cost');
  assert.equal(await cost.locator('.per-head').textContent(), '67,108,864');
  assert.equal(await cost.locator('.mem-head').textContent(), '134 MB');
  assert.match(await cost.locator('.masked').textContent(), /^33,550,336 /, 'beyond 2,048 tokens the masked count is the formula alone');
  const scaling = page.locator('lookback-scaling');
  assert.equal(await scaling.getAttribute('data-d'), '64');
  near(Number(await scaling.locator('b.scaled').textContent()), 0.25, 0.03, 'scaled average at d = 64');
  const quiz = page.locator('lookback-quiz');
  assert.equal(await quiz.locator('legend').textContent(), '1. Scores 2, 2 and 2. What are the weights?');
  await quiz.locator('label.opt').first().click();
  assert.match(await quiz.locator('.feedback').textContent(), /computed now: 0\.333, 0\.333, 0\.333\./);
  const cards = page.locator('lookback-review-cards');
  await cards.locator('.card').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await cards.getAttribute('data-card'), 'flash');
  await page.keyboard.press('Space');
  assert.equal(await cards.locator('.back').isVisible(), true);
  const win = page.locator('lookback-window');
  // the story in the models' own tokens, from the tokenizer (through the JS API in this page)
  const story = await win.locator('textarea').inputValue();
  const tokens = await page.evaluate(async (text) => {
    const { loadLookback } = await import('./js/api/index.js');
    const m = await (await loadLookback()).loadModel('window');
    const t = m.tokens(text).map((x) => x.text);
    m.dispose();
    return t;
  }, story);
  const chips = (list) => list.join('').replace(/ /g, '\u2423').replace(/\n/g, '\u21b5');
  assert.equal(await win.locator('.sees').textContent(), `Before the blank, the window sees: ${chips(tokens.slice(-8))}`);
  assert.equal(await win.locator('.sees .chip').count(), 8, 'each token a chip');
  assert.match(await win.locator('.far').textContent(), /"doll" is \d+ tokens back: it fell out of the window/);
  await win.locator('input[type=range]').focus();
  for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowLeft');
  await until(() => win.locator('.far').textContent(), (v) => /inside the window/.test(v), 'doll inside the window');
  // pointer: a click on a token moves the window to end there
  await win.locator('.tok[data-i="10"]').click();
  const sees = `Before "${tokens[11].trim()}", the window sees: ${chips(tokens.slice(3, 11))}`;
  await until(() => win.locator('.sees').textContent(), (v) => v === sees, `window ending at token 10 (${sees})`);
});

test('attributes change a widget\'s inputs after it has rendered', T, async () => {
  const { page } = b;
  const worked = await ready(page, 'lookback-worked-example');
  await worked.evaluate((el) => {
    el.setAttribute('wq', '[[1,0],[0,1],[1,1]]');
    el.setAttribute('step', '3');
  });
  // sat: x = [0,1,1], q = (1, 2); keys the (1,0), cat (1,1), sat (1,2), down (0,1); / sqrt 2
  await waitTexts(worked.locator('table[data-matrix="S"] tr[data-row="sat"] td'), ['0.71', '2.12', '3.54', '1.41'], 'scores with a new W_Q');
  const plane = await ready(page, 'lookback-qkv-plane');
  await plane.evaluate((el) => el.setAttribute('query', '[0, 0]'));
  await waitTexts(plane.locator('tr[data-key] .weight'), ['0.250', '0.250', '0.250', '0.250'], 'zero query from the attribute');
  const cost = await ready(page, 'lookback-cost');
  await cost.evaluate((el) => el.setAttribute('length', '32768'));
  await until(() => cost.locator('.mem-head').textContent(), (v) => v === '2.1 GB', '2.1 GB at 32,768');
});

test('the model widgets take their attributes when embedded', T, async () => {
  const { page } = b;
  const card = await page.evaluate(() => fetch('models/sprout/card.json').then((r) => r.json()));
  const head1 = (s) => s.split('.').map((x) => Number(x) + 1).join('.');
  const x = await ready(page, 'lookback-explorer');
  assert.equal((await x.locator('.tok.query').textContent()).replace('\u2423', ' ').trim(), 'he', 'query-text picks the pronoun');
  assert.equal(await x.locator('select.head').inputValue(), '-1', 'head="all" averages the layer');
  assert.equal(await x.locator('[data-example="pronoun"]').getAttribute('aria-checked'), 'true');
  const g = await ready(page, 'lookback-heads-grid');
  assert.equal(await g.locator('.cell').first().getAttribute('data-head'), head1(card.heads.induction.best[0].head), 'sorted by induction');
  const ind = await ready(page, 'lookback-induction');
  assert.match(await ind.locator('p.text').textContent(), /named Vorliq\. .*Vorliq/);
  const h = await ready(page, 'lookback-habits');
  await until(() => h.getAttribute('data-live'), (v) => v === 'done', 'the live recompute', 60000);
  assert.match(await h.locator('.progress-text').textContent(), /^4 of 4 stories/);
  await x.evaluate((el) => el.setAttribute('layer', '2'));
  await until(() => x.locator('select.layer').inputValue(), (v) => v === '1', 'layer="2" (counting from 1)');
});

test('every widget exports a valid PNG, JSON and CSV when embedded', T, async () => {
  const { page } = b;
  for (const tag of TAGS) {
    await ready(page, tag);
    const { png, json, csv } = await exportsOf(page, tag);
    checkPNG(png, tag);
    assert.equal(json.widget, tag);
    assert.ok(csv.length > 10, `${tag}: CSV`);
  }
  const { json } = await exportsOf(page, 'lookback-mask-builder');
  assert.deepEqual(json.weights[4].map((x) => Number(x.toFixed(4))), [0.2, 0.2, 0.2, 0.2, 0.2]);
});

test('before its first computation a widget\'s exports say there is nothing to export yet', T, async () => {
  const { page } = b;
  const messages = await page.evaluate(async (tags) => {
    const hidden = document.createElement('div');
    hidden.hidden = true;   // never on screen, so nothing computes
    document.body.append(hidden);
    const out = {};
    for (const tag of tags) {
      const el = hidden.appendChild(document.createElement(tag));
      out[tag] = [];
      for (const format of ['JSON', 'CSV', 'PNG']) {
        try {
          await el[`export${format}`]();
          out[tag].push(`${format}: no error`);
        } catch (err) {
          out[tag].push(`${format}: ${err.message}`);
        }
      }
    }
    hidden.remove();
    return out;
  }, TAGS);
  for (const tag of TAGS) {
    for (const m of messages[tag]) assert.match(m, new RegExp(`^\\w+: <${tag}>: nothing to export yet`), `${tag}: ${m}`);
  }
});

test('accessibility and screenshots at phone and desktop widths', { timeout: 150000 }, async () => {
  const { page, url } = b;
  assert.deepEqual(await axeViolations(page, url), []);
  for (const [width, height] of [[375, 740], [1280, 900]]) {
    await page.setViewportSize({ width, height });
    for (const tag of TAGS) await shoot(await ready(page, tag), `embed-${tag.replace('lookback-', '')}-${width}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${width} px: the page scrolls sideways by ${overflow} px`);
  }
  await page.setViewportSize({ width: 375, height: 740 });
  await page.waitForTimeout(300);
  assert.deepEqual(await axeViolations(page, url), [], 'phone width');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('lookback.js works from a page in another folder, under the strict CSP', T, async () => {
  const { context, url } = b;
  const page = await context.newPage();
  const lesson = new URL('lessons/week-3/attention.html', url).href;
  await page.route(lesson, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': CSP },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title>
      <script type="module" src="../../lookback.js"></script></head>
      <body><main><h1>A lesson</h1><lookback-qkv-plane query="[1.4, 0.7]"></lookback-qkv-plane></main></body></html>`,
  }));
  await page.goto(lesson);
  const plane = await ready(page, 'lookback-qkv-plane');
  await waitTexts(plane.locator('tr[data-key] .score'), ['2.87', '-0.77', '-2.52', '-0.56'], 'scores in the lesson page');
  assert.deepEqual(await texts(plane.locator('tr[data-key] .weight')), ['0.941', '0.025', '0.004', '0.030']);
  await page.close();
});

test('no console errors and no request left localhost', () => {
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.external, []);
});
