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
  // every text drawn on a canvas on the page, the last time it was drawn: its size on screen in CSS px (the font's
  // size × the context's scale × the canvas' CSS width over its pixel width)
  await b.page.addInitScript(() => {
    const drawn = (window.__canvasText = new Map());
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      const c = this.canvas, r = c.isConnected ? c.getBoundingClientRect() : null;
      if (r?.width && String(text).trim()) {
        const m = this.getTransform(), font = parseFloat(/([\d.]+)px/.exec(this.font)?.[1]);
        const where = `${c.getRootNode().host?.id || c.getRootNode().host?.localName || 'page'} ${c.className}`;
        drawn.set(`${where} ${text}`, { where, text: String(text).slice(0, 24), size: font * Math.hypot(m.a, m.b) * (r.width / c.width) });
      }
      return fill.call(this, text, ...rest);
    };
  });
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
  assert.equal(await page.locator('footer .about details').evaluate((d) => d.open), false, "the About box's list starts folded");
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

test('on a phone a fold never cuts through a control: each button, menu or box of a folded widget shows whole or lies wholly under the fold', T, async () => {
  const { page } = b;
  const cut = await page.evaluate(() => [...document.querySelectorAll('main [data-folded]')].flatMap((w) => {
    // the line is the top of the fold's bar (its fade, then its button)
    const bar = w.shadowRoot.querySelector('.unfold');
    const line = bar.getBoundingClientRect().top;
    return [...w.shadowRoot.querySelectorAll('button, select, input, summary, textarea')]
      .filter((c) => !bar.contains(c) && c.checkVisibility({ visibilityProperty: true, opacityProperty: true }))
      .map((c) => ({ c, r: c.getBoundingClientRect() }))
      .filter(({ r }) => r.height > 0 && r.top < line - 0.5 && r.bottom > line + 0.5)
      .map(({ c }) => `${w.id || w.localName}: ${c.localName} "${(c.textContent || c.getAttribute('aria-label') || c.name || '').trim().slice(0, 30)}"`);
  }));
  assert.ok(await page.locator('main lookback-training[data-folded]').count() === 1, 'the training widget is folded on a phone');
  assert.deepEqual(cut, [], 'controls cut in half by a fold');
  // the training widget folds under its buttons (whole, with the run's status) and shows all of itself once the
  // reader trains: the curves and maps are what the press was for
  const tr = page.locator('main lookback-training');
  await tr.scrollIntoViewIfNeeded();
  const shown = () => tr.evaluate((w) => {
    const bar = w.shadowRoot.querySelector('.unfold').getBoundingClientRect().top;
    const whole = (sel) => w.shadowRoot.querySelector(sel).getBoundingClientRect().bottom <= bar + 0.5;
    return { folded: w.hasAttribute('data-folded'), buttons: whole('.row'), plot: whole('canvas.loss') };
  });
  assert.deepEqual(await shown(), { folded: true, buttons: true, plot: false }, 'the folded training widget shows its buttons whole');
  await tr.locator('button[name=step]').click();
  await until(() => tr.evaluate((w) => w.steps), (n) => n >= 20, 'a step of the training widget', 60000);
  assert.equal(await tr.evaluate((w) => w.hasAttribute('data-folded')), false, 'training unfolds the widget');
  assert.ok(await tr.evaluate((w) => w.clientHeight >= w.scrollHeight - 1), 'all of it shows');
});

// every SVG text of the page as drawn on screen: its figure, its words and its size in CSS px (font size × the SVG's scale)
const svgTexts = (page) => page.evaluate(() => {
  const roots = [document, ...[...document.querySelectorAll('main *')].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
  return roots.flatMap((root) => [...root.querySelectorAll('svg text')].filter((t) => t.textContent.trim() && t.getBoundingClientRect().height > 0)
    .map((t) => {
      const m = t.getScreenCTM();
      return { where: `${root.host?.id || root.host?.localName || 'page'} ${t.ownerSVGElement.dataset.figure ?? ''}`, text: t.textContent.trim().slice(0, 24),
        size: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), cell: !!t.closest('g.heatmap') && t.getAttribute('aria-hidden') === 'true' };
    }));
});

test("on a phone every figure's text can be read: nothing under 9 px, and the habit maps' numbers at least 10 px", T, async () => {
  const { page } = b;
  await computeAll(page);
  const all = await svgTexts(page);
  assert.ok(all.length > 200, `the figures' text was found (${all.length})`);
  const small = all.filter((x) => x.size < 9);
  const by = {};
  for (const x of small) (by[x.where] ??= []).push(`${x.text} ${x.size.toFixed(1)}px`);
  assert.deepEqual(Object.fromEntries(Object.entries(by).map(([k, v]) => [k, `${v.length}: ${v.slice(0, 3).join(', ')}`])), {},
    'no text of a figure is drawn under 9 px on a phone');
  const habits = all.filter((x) => x.where.startsWith('w-habits') && x.cell);
  assert.ok(habits.length >= 4 * 48, `every head's number in the four habit maps (${habits.length})`);
  assert.ok(Math.min(...habits.map((x) => x.size)) >= 10, `habit numbers at least 10 px: ${Math.min(...habits.map((x) => x.size)).toFixed(1)} px`);
  // and the habit maps never need sideways scrolling
  assert.equal(await page.locator('#w-habits').evaluate((el) => el.shadowRoot.querySelector('.figure svg').getBoundingClientRect().right
    <= el.getBoundingClientRect().right), true, "the habit maps fit the phone's width");
});

test('on a phone the words drawn on canvases (the qkv plane, the scaling histogram, the training curves) are at least 9 px', T, async () => {
  const { page } = b;
  for (const sel of ['#w-qkv-plane', '#w-scaling', 'lookback-training']) {
    const w = page.locator(sel);
    await w.scrollIntoViewIfNeeded();
    await until(() => w.evaluate((el) => el.dataset.state === 'ready'), Boolean, `${sel} computed`, 60000);
  }
  await page.waitForTimeout(300);
  const drawn = await page.evaluate(() => [...window.__canvasText.values()]);
  for (const host of ['w-qkv-plane', 'w-scaling', 'lookback-training']) {
    assert.ok(drawn.some((x) => x.where.startsWith(`${host} `)), `${host} drew its labels on its canvas: ${JSON.stringify(drawn.slice(0, 4))}`);
  }
  const small = drawn.filter((x) => !(x.size >= 9)).map((x) => `${x.where}: "${x.text}" ${x.size.toFixed(1)} px`);
  assert.deepEqual(small, [], 'no canvas label under 9 px on a phone');
});

test("on a phone a folded widget ends under a whole, labelled part: a row of head maps with their names, a figure's first matrix with its shape", T, async () => {
  const { page } = b;
  const seen = async (id) => {
    const w = page.locator(`#${id}`);
    await w.scrollIntoViewIfNeeded();
    await until(() => w.evaluate((el) => el.dataset.state === 'ready' && el.hasAttribute('data-folded')), Boolean, `#${id} computed and folded`, 60000);
    return w.evaluate((el) => {
      const bar = el.shadowRoot.querySelector('.unfold').getBoundingClientRect().top;
      const whole = (node) => { const r = node.getBoundingClientRect(); return r.height > 0 && r.bottom <= bar + 0.5; };
      const cells = [...el.shadowRoot.querySelectorAll('.grid .cell')];
      const first = el.shadowRoot.querySelector('svg g.heatmap');
      const marked = el.shadowRoot.querySelector('[data-fold-end]');
      const steps = [...el.shadowRoot.querySelectorAll('.steps button')];
      // the matrix's caption: the nearest text above its cells, starting near their left edge
      const caption = first && [...first.ownerSVGElement.querySelectorAll('text')].filter((t) => t.getBoundingClientRect().bottom <= first.getBoundingClientRect().top + 1
        && Math.abs(t.getBoundingClientRect().left - first.querySelector('rect.lb-cell').getBoundingClientRect().left) < 40 && /\S/.test(t.textContent))
        .sort((a, b) => b.getBoundingClientRect().bottom - a.getBoundingClientRect().bottom)[0];
      return {
        // head maps shown whole with their names (layer.head) above the button
        named: cells.filter((c) => whole(c.querySelector('svg')) && whole(c.querySelector('b')) && /^\d+\.\d+$/.test(c.querySelector('b').textContent.trim())).length,
        row: cells.length ? new Set(cells.slice(0, 8).map((c) => Math.round(c.getBoundingClientRect().top))).size : 0,
        firstRow: cells.filter((c) => Math.round(c.getBoundingClientRect().top) === Math.round(cells[0]?.getBoundingClientRect().top)).length,
        // a figure's first matrix shown whole with the caption above it
        matrix: first ? whole(first) : null, caption: caption && whole(caption) ? caption.textContent.trim() : null,
        // a map's legend, where one goes with it (the even spread marked on it)
        legend: el.shadowRoot.querySelector('g.habit g.legend') ? whole(el.shadowRoot.querySelector('g.habit g.legend')) : null,
        // the part the widget marks as its fold's end, shown whole; a marked table's caption
        marked: marked ? whole(marked) : null, markedCaption: marked?.querySelector('caption')?.textContent.trim() ?? null,
        // rows of step buttons (one on a phone)
        stepRows: steps.length ? new Set(steps.map((x) => Math.round(x.getBoundingClientRect().top))).size : null,
        // no part of the widget squeezed shorter than its content while folded (the fold cuts; nothing shrinks)
        squeezed: [...el.shadowRoot.children].filter((c) => c.getBoundingClientRect().height < c.scrollHeight - 1).map((c) => c.className),
      };
    });
  };
  const grid = await seen('w-heads-grid');
  assert.ok(grid.firstRow >= 2 && grid.named >= grid.firstRow, `the heads grid's first row of maps shows whole with its names: ${JSON.stringify(grid)}`);
  // a flow without the editable attribute shows no text box (its words are given)
  assert.equal(await page.locator('#w-flow-one input').isVisible(), false, 'the §8 flow has no text box');
  for (const id of ['w-flow-one', 'w-flow-heads']) {
    const f = await seen(id);
    assert.equal(f.matrix, true, `#${id}: the first matrix shows whole above the button: ${JSON.stringify(f)}`);
    assert.match(f.caption ?? '', /^x\s+\d+×\d+/, `#${id}: with its name and shape: ${JSON.stringify(f)}`);
  }
  const h = await seen('w-habits');
  assert.equal(h.matrix, true, `the habits widget shows its first map whole: ${JSON.stringify(h)}`);
  assert.equal(h.legend, true, `with its legend and even-spread mark: ${JSON.stringify(h)}`);
  // the worked example: its six steps on one row, then the step's first matrix whole with its caption
  const we = await seen('w-worked-example');
  assert.equal(we.stepRows, 1, `the worked example's steps fit one row: ${JSON.stringify(we)}`);
  assert.equal(we.marked, true, `the worked example's first matrix shows whole: ${JSON.stringify(we)}`);
  assert.match(we.markedCaption ?? '', /^X\b/, `with its caption: ${JSON.stringify(we)}`);
  // the made-up name: its headline, the name and the whole text it is said in; its table folded away, not squeezed
  const ind = await seen('w-induction');
  assert.equal(ind.marked, true, `the induction widget shows its text whole: ${JSON.stringify(ind)}`);
  for (const [id, w] of [['w-worked-example', we], ['w-induction', ind], ['w-heads-grid', grid], ['w-habits', h]]) {
    assert.deepEqual(w.squeezed, [], `#${id}: no part squeezed by the fold`);
  }
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
