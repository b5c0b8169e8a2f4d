// Browser tests of the chapter's corrections: the scaling histogram keeps one x-axis across widths and raw or
// scaled scores (so the spread visibly grows with d and shrinks when scaled), and a width chosen while another is
// computing never relabels the older numbers; the plane's key named "red" carries
// red and no label covers a dot or another label at the start; a formula too wide for a phone says it scrolls;
// sections 11 and 13 hold their widgets, not placeholders; the contents bar reaches every section.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openChapter } from './harness.mjs';
import { exportsOf, ready, until } from './widget-helpers.mjs';

let b;
before(async () => {
  b = await openChapter();
});
after(async () => { await b?.close(); });

const T = { timeout: 60000 };

test('scaling: one histogram axis for every d, raw or scaled; the spread grows with d and shrinks when scaled', T, async () => {
  const { page } = b;
  const s = await ready(page, 'lookback-scaling');
  const slider = s.locator('input[type=range]');
  const histogram = async (d, scaled) => {
    await s.locator(`button[data-scaled="${scaled}"]`).click();
    await slider.focus();
    await page.keyboard.press(d === 'min' ? 'Home' : 'End');
    const label = new RegExp(`${scaled ? 'scaled' : 'raw'} scores at d = ${d === 'min' ? 2 : 512},`);
    await until(() => s.locator('canvas').getAttribute('aria-label'), (v) => label.test(v), `histogram ${d} ${scaled}`);
    const { json } = await exportsOf(page, 'lookback-scaling');
    assert.equal(json.d, d === 'min' ? 2 : 512, 'the exported data are those of the width the label names');
    assert.equal(json.scaled, scaled, 'the export says which scores its histogram counts');
    return { ...json.histogram, bins: json.histogram.counts.filter((n) => n > 0).length };
  };
  const raw2 = await histogram('min', false), raw512 = await histogram('max', false), scaled512 = await histogram('max', true);
  const scaled2 = await histogram('min', true);
  for (const h of [raw512, scaled512, scaled2]) {
    assert.deepEqual([h.from, h.to, h.counts.length], [raw2.from, raw2.to, raw2.counts.length], 'the same axis and bins');
  }
  assert.ok(raw512.bins > 4 * raw2.bins, `raw spread grows with d: ${raw2.bins} -> ${raw512.bins} bins in use`);
  assert.ok(scaled512.bins < raw512.bins / 4, `scaling shrinks it: ${raw512.bins} -> ${scaled512.bins} bins in use`);
  assert.ok(Math.abs(scaled512.bins - scaled2.bins) <= 4, `scaled, the spread hardly depends on d: ${scaled2.bins} vs ${scaled512.bins}`);
  assert.match(await s.locator('canvas').getAttribute('aria-label'), /on a fixed axis from -64 to 64/);
});

test('scaling: a width chosen while another computes never relabels the older numbers', T, async () => {
  const { page } = b;
  await ready(page, 'lookback-scaling');
  const seen = await page.evaluate(async () => {
    const el = document.querySelector('lookback-scaling');
    const slider = el.shadowRoot.querySelector('input[type=range]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const renders = [];
    const onChange = () => {
      const json = JSON.parse(el.exportJSON());
      const label = el.shadowRoot.querySelector('canvas').getAttribute('aria-label');
      renders.push({ d: json.d, label: Number(label.match(/ at d = (\d+),/)[1]), bins: json.histogram.counts.filter((n) => n > 0).length });
    };
    el.addEventListener('lookback-change', onChange);
    el.shadowRoot.querySelector('button[data-scaled="false"]').click();
    let raced = 0;
    for (let tries = 0; tries < 20 && raced < 3; tries++) {
      slider.value = '0';
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await frame();   // the computation of d = 2 has started and waits for the worker
      const busy = el._busy;
      slider.value = slider.max;
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      if (busy) raced++;
      while (el._busy || el._dirty) await frame();
    }
    el.removeEventListener('lookback-change', onChange);
    return { raced, renders };
  });
  assert.ok(seen.raced >= 1, `a width was chosen while another computed (${seen.raced} times)`);
  const widths = new Set(seen.renders.map((r) => r.d));
  assert.ok(widths.has(2) && widths.has(512), `both widths were shown: ${[...widths]}`);
  const bins = Object.fromEntries([2, 512].map((d) => [d, seen.renders.find((r) => r.d === d).bins]));
  for (const r of seen.renders) {
    assert.equal(r.label, r.d, 'the label names the width of the numbers exported with it');
    assert.equal(r.bins, bins[r.d], `the histogram shown as d = ${r.d} is that width's`);
  }
});

test('qkv-plane: the key named "red" has a red value; at the start no label covers or touches a dot or a label', T, async () => {
  const { page } = b;
  for (const [width, height] of [[1280, 900], [375, 740]]) {
    await page.setViewportSize({ width, height });
    const plane = await ready(page, 'lookback-qkv-plane');
    await plane.locator('button[data-preset="start"]').click();
    const { json } = await exportsOf(page, 'lookback-qkv-plane');
    assert.deepEqual(json.keys.find((k) => k.label === 'red').value, [1, 0, 0], 'red is red');
    assert.equal(await plane.locator('tr[data-key="red"] .vname').textContent(), 'red');
    await page.waitForTimeout(100);
    const layout = await plane.evaluate((el) => el.layout);
    // overlapping, or closer than 2 px
    const overlap = (a, c) => Math.min(a.x1, c.x1) + 2 > Math.max(a.x0, c.x0) && Math.min(a.y1, c.y1) + 2 > Math.max(a.y0, c.y0);
    assert.equal(layout.labels.length, 5);
    for (const l of layout.labels) {
      for (const d of layout.dots) assert.ok(!overlap(l.box, d), `${width} px: label "${l.text}" covers a dot`);
      for (const o of layout.labels) assert.ok(o === l || !overlap(l.box, o.box), `${width} px: labels "${l.text}" and "${o.text}" overlap`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('a formula wider than a phone says that it scrolls', T, async () => {
  const { page } = b;
  const formula = page.locator('#all-at-once .formula').first();
  const hint = page.locator('#all-at-once .formula + .scroll-hint').first();
  await page.setViewportSize({ width: 375, height: 740 });
  await formula.scrollIntoViewIfNeeded();
  await until(() => formula.getAttribute('role'), (v) => v === 'region', 'the formula scrolls at 375 px');
  assert.ok(await formula.evaluate((el) => el.scrollWidth > el.clientWidth + 1));
  assert.equal(await hint.isVisible(), true, 'the hint shows');
  assert.match(await hint.textContent(), /scroll it sideways/);
  await page.setViewportSize({ width: 1280, height: 900 });
  await until(() => formula.getAttribute('role'), (v) => v === null, 'the formula fits at 1280 px');
  assert.equal(await hint.isVisible(), false, 'no hint when nothing scrolls');
});

test('sections 11 and 13 hold their widgets; the contents bar links every section', T, async () => {
  const { page } = b;
  for (const id of ['order', 'code']) {
    const section = page.locator(`section#${id}`);
    assert.equal(await section.locator('.slot').count(), 0, `#${id} has no placeholder`);
    assert.doesNotMatch(await section.textContent(), /Not here yet/);
    assert.equal(await section.getAttribute('class'), null, `#${id} is not pending`);
  }
  assert.equal(await page.locator('section#order lookback-shuffle').count(), 1);
  assert.equal(await page.locator('section#code lookback-code-walk').count(), 1);
  const sections = await page.locator('main > section[id]').evaluateAll((els) => els.map((e) => e.id));
  const links = await page.locator('nav.contents a[href^="#"]').evaluateAll((els) => els.map((a) => a.getAttribute('href').slice(1)));
  assert.deepEqual(links, sections, 'one contents link per section, in order');
});

test('no console error and no request outside the page', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
