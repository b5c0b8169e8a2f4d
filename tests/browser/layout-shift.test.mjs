// What the reader scrolled to stays put while the page above it fills in: widgets and listings grow when they
// first compute, and the browser's scroll anchoring must then keep the scrolled-to widget where it was on screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openChapter } from './harness.mjs';
import { until } from './widget-helpers.mjs';

let b;
before(async () => { b = await openChapter(); });
after(async () => { await b?.close(); });
const T = { timeout: 180000 };

// scrolls `selector` into view right after the page loads, waits until every widget and listing on screen or above
// it that has started has computed and nothing moves any more, and returns how far the widget moved on screen
async function movedAfterScroll(page, url, selector) {
  await page.goto(url);
  const el = page.locator(selector);
  await el.scrollIntoViewIfNeeded();
  const top0 = (await el.boundingBox()).y;
  await until(() => el.getAttribute('data-state'), (v) => v === 'ready', `${selector} to compute`, 60000);
  // everything that was filling in above the widget has finished
  await until(() => page.evaluate((s) => {
    const target = document.querySelector(s);
    const above = [...document.querySelectorAll('main [id^="w-"], main lookback-training, main details[data-listing]')]
      .filter((w) => w !== target && w.getClientRects().length
        && w.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING);
    // what computes is what is on screen or near it (widgets and listings start when they near the screen)
    const near = above.filter((w) => w.getBoundingClientRect().bottom > -200);
    return near.every((w) => ['ready', 'error'].includes(w.dataset.state));
  }, selector), Boolean, `what is above ${selector} to compute`, 60000);
  let last = null;
  await until(async () => {
    const y = (await el.boundingBox()).y;
    const still = last !== null && Math.abs(y - last) < 0.5;
    last = y;
    await page.waitForTimeout(400);
    return still;
  }, Boolean, 'the page to settle', 30000);
  return Math.abs(last - top0);
}

test('a widget scrolled to stays where it was while the widgets and listings above it compute', T, async () => {
  const { page, url } = b;
  const far = [];
  // every widget from the middle of the page down (the ones with most above them that fills in late)
  for (const selector of ['#w-flow-heads', '#w-heads-grid', '#w-induction', 'main lookback-training', '#w-counterfactual',
    '#w-shuffle', '#w-habits', '#w-code-walk', '#w-review-cards']) {
    const moved = await movedAfterScroll(page, url, selector);
    if (moved >= 4) far.push(`${selector} moved ${moved.toFixed(0)} px after it was scrolled into view`);
  }
  assert.deepEqual(far, []);
  assert.deepEqual([...b.record.consoleErrors, ...b.record.pageErrors], []);
});
