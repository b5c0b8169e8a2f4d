// The chapter on a phone (390 × 844): the whole page, every widget computed, stays under 25,000 px tall and never
// scrolls sideways; a tall widget starts folded to its top part and every part of it stays reachable (a button,
// and keyboard focus). Not the widgets' own behaviour: their tests run at desktop size.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openChapter } from './harness.mjs';
import { until } from './widget-helpers.mjs';

const PHONE = { width: 390, height: 844 };
const T = { timeout: 600000 };
let b;
before(async () => {
  // a phone's browser: touch, and scroll bars that overlay the page instead of taking its width
  b = await openChapter({ isMobile: true, hasTouch: true });
  await b.page.setViewportSize(PHONE);
  await b.page.goto(b.url);
});
after(async () => { await b?.close(); });

const WIDGETS = 'main [id^="w-"]:visible, main lookback-training:visible';

// brings every widget on screen in page order and waits until it has computed
async function computeAll(page) {
  const widgets = page.locator(WIDGETS);
  const n = await widgets.count();
  for (let k = 0; k < n; k++) {
    const w = widgets.nth(k);
    await w.scrollIntoViewIfNeeded();
    await until(() => w.evaluate((el) => el.dataset.state === 'ready' || el.hasAttribute('data-error')), Boolean,
      `widget ${k + 1} of ${n} to compute`, 60000);
  }
  return n;
}

test('on a phone the whole chapter, every widget computed, is under 25,000 px tall and never scrolls sideways', T, async () => {
  const { page } = b;
  const n = await computeAll(page);
  assert.ok(n >= 15, `every widget on the page was walked (${n})`);
  // read the page to its end (a section far off screen was once not laid out until it came near: content-visibility)
  for (let y = 0; y < await page.evaluate(() => document.documentElement.scrollHeight); y += 700) {
    await page.evaluate((top) => scrollTo(0, top), y);
    await page.waitForTimeout(60);
  }
  await page.waitForTimeout(400);
  const size = await page.evaluate(() => ({ height: document.documentElement.scrollHeight,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth }));
  assert.ok(size.height < 25000, `the phone page is ${size.height} px tall`);
  assert.ok(size.overflow <= 0, `the page scrolls sideways by ${size.overflow} px`);
  assert.ok(await page.locator('main [data-folded]').count() >= 8, 'the tall widgets start folded');
  assert.deepEqual([...b.record.consoleErrors, ...b.record.pageErrors, ...b.record.external], []);
});

test('on a phone a folded widget shows its result first: its verdict or measured headline sits inside the folded top', T, async () => {
  const { page } = b;
  // the widgets whose result is one sentence (a verdict, a measured sum) name it their headline
  for (const id of ['w-counterfactual', 'w-induction']) {
    assert.equal(await page.locator(`#${id}`).evaluate((el) => !!el.shadowRoot.querySelector('.headline')), true, `#${id} has a headline`);
  }
  const seen = await page.evaluate(() => [...document.querySelectorAll('main [data-folded]')].filter((w) => w.shadowRoot?.querySelector('.headline'))
    .map((w) => {
      const host = w.getBoundingClientRect();
      const bar = w.shadowRoot.querySelector('.unfold').getBoundingClientRect();
      const line = w.shadowRoot.querySelector('.headline');
      const r = line.getBoundingClientRect();
      return { id: w.id, text: line.textContent.trim(), top: Math.round(r.top - host.top), inside: r.top >= host.top && r.bottom <= bar.top + 1 };
    }));
  assert.ok(seen.some((x) => x.id === 'w-counterfactual'), `the counterfactual is folded on a phone: ${JSON.stringify(seen)}`);
  for (const x of seen) {
    assert.ok(x.text.length > 20, `#${x.id}: its headline says something: "${x.text}"`);
    assert.ok(x.inside, `#${x.id}: its headline shows in the folded top (${x.top} px down): ${JSON.stringify(x)}`);
  }
  assert.match(seen.find((x) => x.id === 'w-counterfactual').text, /prediction/);
});

test('on a phone a folded widget shows all of itself on request, folds again, and unfolds for keyboard focus', T, async () => {
  const { page } = b;
  const grid = page.locator('#w-heads-grid');
  await grid.scrollIntoViewIfNeeded();
  await until(() => grid.getAttribute('data-state'), (v) => v === 'ready', 'the heads grid to compute', 60000);
  await until(() => grid.evaluate((el) => el.hasAttribute('data-folded')), Boolean, 'the heads grid folded');
  const folded = await grid.evaluate((el) => ({ shown: el.clientHeight, full: el.scrollHeight }));
  assert.ok(folded.shown < 340 && folded.full > 2 * folded.shown, `folded to its top: ${JSON.stringify(folded)}`);
  const button = grid.locator('.unfold button');
  assert.equal(await button.getAttribute('aria-expanded'), 'false');
  await button.click();
  const open = await grid.evaluate((el) => ({ shown: el.clientHeight, full: el.scrollHeight, folded: el.hasAttribute('data-folded') }));
  assert.equal(open.folded, false);
  assert.ok(open.shown >= folded.full - 40, `all of it shows once unfolded: ${JSON.stringify(open)}`);
  assert.equal(await button.getAttribute('aria-expanded'), 'true');
  // the last map of the grid is on the page and can be clicked
  const cells = grid.locator('.cell');
  assert.ok(await cells.last().isVisible(), 'the last head of the grid shows');
  await button.click();
  assert.equal(await grid.evaluate((el) => el.hasAttribute('data-folded')), true, 'folds again');
  // keyboard: focus moved to a control in the hidden part unfolds the widget
  await cells.last().focus();
  await until(() => grid.evaluate((el) => el.hasAttribute('data-folded')), (v) => v === false, 'focus unfolds the widget');
  const box = await cells.last().boundingBox();
  const host = await grid.boundingBox();
  assert.ok(box.y + box.height <= host.y + host.height + 1, 'the focused map lies inside the widget it unfolded');
  // at desktop width nothing is folded
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
  const g = page.locator('#w-heads-grid');
  await g.scrollIntoViewIfNeeded();
  await until(() => g.getAttribute('data-state'), (v) => v === 'ready', 'the heads grid to compute (desktop)', 60000);
  assert.equal(await page.locator('main [data-folded]').count(), 0, 'nothing is folded on a wide screen');
  await page.setViewportSize(PHONE);
});
