// Browser tests of the chapter's figures (lookback/figures drawn inside the widgets): every figure on the page
// (the two flow figures, the habits' heat maps, the cost plot, the heads grid's maps, the explorer's strip) has
// drawn content whose numbers are those of its text alternative; a cell's value reaches the readout by keyboard;
// the explorer's shading is the one colour scale (a weight of 0.47 or more darker than the stated luminance); and
// the widgets' figures are byte for byte what the command line draws for the same input, and what their save
// menu's SVG item downloads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openChapter } from './harness.mjs';
import { ready, until } from './widget-helpers.mjs';
import { EXAMPLES } from '../../web/js/widgets/examples.js';
import { PALE_LUMINANCE, luminance, weightColour } from '../../web/js/figures/index.js';

const CLI = fileURLToPath(new URL('../../web/js/cli/lookback.mjs', import.meta.url));
const cli = (...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 27 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.replace(/\n$/, '');
};

let b;
before(async () => {
  b = await openChapter();
});
after(async () => {
  assert.deepEqual(b.record.external, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  await b?.close();
});

const T = { timeout: 120000 };
const f3 = (x) => Number(x).toFixed(3);
// a cell's value (data-v, 4 decimals) against the table's text of the same number (3 decimals)
const near = (v, text, what) => assert.ok(Math.abs(v - Number(text)) <= 0.00055, `${what}: ${v} drawn, ${text} in the table`);

// the cells a widget's figure drew: [{ m, r, c, v, w, h }] (w, h: the drawn size, to show it is not empty)
const drawnCells = (el, scope = '') => el.evaluate((e, s) => [...e.shadowRoot.querySelectorAll(`${s} svg rect.lb-cell`)].map((c) => {
  const box = c.getBoundingClientRect();
  return { m: c.dataset.m, r: Number(c.dataset.r), c: Number(c.dataset.c), v: Number(c.dataset.v), w: box.width, h: box.height };
}), scope);

test('the flow figures: one drawn cell per number of every table, the same numbers; keyboard reaches each value', T, async () => {
  for (const id of ['w-flow-one', 'w-flow-heads']) {
    const el = await ready(b.page, `#${id}`);
    const cells = await drawnCells(el);
    assert.ok(cells.length > 50 && cells.every((c) => c.w > 4 && c.h > 4), `${id}: drawn cells`);
    await el.evaluate((e) => { e.shadowRoot.querySelector('details').open = true; });
    await until(() => el.evaluate((e) => e.shadowRoot.querySelectorAll('table[data-m]').length), (n) => n >= 8, `${id}: the tables written once opened`);
    const tables = await el.evaluate((e) => [...e.shadowRoot.querySelectorAll('table[data-m]')].map((t) => ({ m: t.dataset.m,
      rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)) })));
    assert.ok(tables.length >= 8, `${id}: ${tables.length} tables`);
    for (const t of tables) {
      const mine = cells.filter((c) => c.m === t.m);
      const numbers = t.rows.flat().filter((x) => x !== '—');
      assert.ok(mine.length >= numbers.length && numbers.length > 0, `${id} ${t.m}: ${mine.length} cells, ${numbers.length} numbers`);
      for (const c of mine) near(c.v, t.rows[c.r][c.c], `${id} ${t.m} [${c.r}][${c.c}]`);
    }
  }
  // §8's flow is the worked example's: the "sat" row of weights 0.123 / 0.249 / 0.505 / 0.123
  const one = b.page.locator('#w-flow-one');
  const sat = (await drawnCells(one)).filter((c) => c.m === 'weights' && c.r === 2).map((c) => f3(c.v));
  assert.deepEqual(sat, ['0.123', '0.249', '0.505', '0.123']);
  // keyboard: focus the figure, move right and down; the readout names the matrix, row, column and value
  const fig = b.page.locator('#w-flow-one .figure');
  await fig.focus();
  await b.page.keyboard.press('ArrowRight');
  await b.page.keyboard.press('ArrowDown');
  const readout = await fig.locator('.readout').textContent();
  assert.match(readout, /^x, row "cat" \(1\), column 2: 1\.000$/);
  await b.page.keyboard.press('PageDown');
  assert.match(await fig.locator('.readout').textContent(), /^W_Q, row /);
});

test('the habits\' heat maps: one cell per head and habit with the card\'s number in the table behind the disclosure', T, async () => {
  const el = await ready(b.page, 'lookback-habits');
  const cells = await drawnCells(el, '.figure');
  assert.ok(cells.every((c) => c.w > 8 && c.h > 8));
  const rows = await el.evaluate((e) => [...e.shadowRoot.querySelectorAll('table.habits tbody tr')].map((r) => ({ head: r.dataset.head,
    card: Object.fromEntries([...r.querySelectorAll('td.card')].map((td) => [td.dataset.habit, td.textContent])) })));
  assert.ok(rows.length >= 8);
  const label = { 'previous token': 'previous_token', '4 or more back': 'four_or_more_back', 'start mark ◆': 'start_mark' };
  let checked = 0;
  for (const c of cells) {
    const key = label[c.m];
    if (!key) continue;
    near(c.v, rows.find((r) => r.head === `${c.r + 1}.${c.c + 1}`).card[key], `${c.m} ${c.r + 1}.${c.c + 1}`);
    checked++;
  }
  assert.equal(checked, rows.length * 3);
  assert.equal(await el.evaluate((e) => e.shadowRoot.querySelector('details.numbers').open), false, 'the table starts behind its disclosure');
});

test('the cost plot: its points are the table\'s numbers, sizes in units that scale', T, async () => {
  const el = await ready(b.page, 'lookback-cost');
  const points = await el.evaluate((e) => [...e.shadowRoot.querySelectorAll('.plot svg circle.point')].map((p) => ({
    series: p.closest('.series').dataset.series, x: Number(p.dataset.x), y: Number(p.dataset.y), r: p.getBoundingClientRect().width })));
  assert.ok(points.length >= 40 && points.every((p) => p.r > 2));
  const rows = await el.evaluate((e) => [...e.shadowRoot.querySelectorAll('table.lengths tbody tr')].map((r) => ({
    T: Number(r.dataset.length), cells: [...r.querySelectorAll('td')].map((td) => td.textContent) })));
  for (const row of rows) {
    const perHead = points.find((p) => p.series === 'scores per head' && p.x === row.T);
    assert.equal(perHead.y.toLocaleString('en-US'), row.cells[0], `scores per head at ${row.T}`);
  }
  assert.ok(rows.every((r) => /^[\d.,]+ (kB|MB|GB|TB)$/.test(r.cells[2])), rows.map((r) => r.cells[2]).join(' | '));
});

test('the heads grid: large maps of every head, labels on one line per habit; the explorer\'s shading is the one scale', T, async () => {
  const g = await ready(b.page, 'lookback-heads-grid');
  const heads = await g.evaluate((e) => [...e.shadowRoot.querySelectorAll('.cell')].map((c) => {
    const svg = c.querySelector('svg').getBoundingClientRect();
    const spans = [...c.querySelectorAll('.s span')].map((s) => s.getClientRects().length);
    return { head: c.dataset.head, w: svg.width, cells: c.querySelectorAll('svg rect.lb-cell').length, spans };
  }));
  assert.ok(heads.length >= 8);
  for (const h of heads) {
    assert.ok(h.w >= 130, `head ${h.head}'s map is ${h.w} px wide`);
    assert.ok(h.cells > 0);
    assert.ok(h.spans.every((n) => n === 1), `head ${h.head}: each habit's label on one line`);
  }
  const x = await ready(b.page, 'lookback-explorer');
  await x.evaluate((e) => e.setAttribute('token', '1'));   // the second token shares its weight over two: one gets 0.5 or more
  await until(() => x.evaluate((e) => e.shadowRoot.querySelectorAll('.tok[data-w]:not([data-w=""])').length), (n) => n === 2, 'query at token 1');
  const chips = await x.evaluate((e) => [...e.shadowRoot.querySelectorAll('.tok[data-w]:not([data-w=""])')].map((t) => ({ w: Number(t.dataset.w),
    bg: getComputedStyle(t).backgroundColor })));
  const hex = (rgb) => `#${rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
  for (const c of chips) assert.equal(hex(c.bg), weightColour(c.w), `weight ${c.w}`);
  const heavy = chips.filter((c) => c.w >= 0.47);
  assert.ok(heavy.length > 0, 'some token gets 0.47 or more');
  for (const c of heavy) assert.ok(luminance(hex(c.bg)) < PALE_LUMINANCE, `weight ${c.w}: luminance ${luminance(hex(c.bg))}`);
});

test('the widgets\' figures are what the command line draws for the same input', T, async () => {
  const heads = await ready(b.page, '#w-flow-heads');
  const text = await heads.getAttribute('text');
  assert.equal(await heads.evaluate((e) => e.figure()), cli('flow', text, '--svg', '-'));
  const habits = await ready(b.page, 'lookback-habits');
  assert.equal(await habits.evaluate((e) => e.figure()), cli('heads', 'x', '--habits', '--svg', '-'));
  const grid = await ready(b.page, 'lookback-heads-grid');
  await grid.evaluate((e) => e.setAttribute('sort', 'induction'));
  await until(() => grid.evaluate((e) => e.shadowRoot.querySelector('.cell')?.dataset.head), (h) => h && h !== '1.1', 'sorted by induction');
  assert.equal(await grid.evaluate((e) => e.figure()), cli('heads', EXAMPLES[0].text, '--sort', 'induction', '--svg', '-'));
  const x = await ready(b.page, 'lookback-explorer');
  const { layer, head, q } = await x.evaluate((e) => e.shown);
  const strip = await x.evaluate((e) => e.figure());
  assert.equal(strip, cli('attend', EXAMPLES[0].text, '--layer', String(layer + 1), '--head', String(head + 1), '--query', String(q), '--svg', '-'));
});

// The widgets whose picture lookback/figures draws, and the cells (or points) their saved SVG must hold.
const SAVED = [
  ['#w-flow-heads', (e) => e.shadowRoot.querySelectorAll('.figure svg rect.lb-cell').length],
  ['lookback-habits', (e) => e.card.heads.previous_token.by_layer.flat().length * 4],
  ['lookback-heads-grid', (e) => e.shadowRoot.querySelectorAll('.cell svg rect.lb-cell').length],
  ['lookback-explorer', (e) => e.shown.q + 1],
  ['lookback-cost', (e) => e.shadowRoot.querySelectorAll('.plot svg circle.point').length],
];

test('the save menu\'s SVG item downloads the figure: a standalone titled SVG, figure()\'s string, one cell per number', T, async () => {
  for (const [sel, expected] of SAVED) {
    const el = await ready(b.page, sel);
    await el.scrollIntoViewIfNeeded();
    await el.locator('.export summary').click();
    const [download] = await Promise.all([b.page.waitForEvent('download'), el.locator('.export button[data-format="svg"]').click()]);
    const name = (await el.evaluate((e) => e.localName)).replace('lookback-', '');
    assert.equal(download.suggestedFilename(), `${name}.svg`);
    const saved = readFileSync(await download.path(), 'utf8');
    assert.equal(saved, `${await el.evaluate((e) => e.figure())}\n`, `${sel}: the saved file is figure()'s string`);
    const parsed = await b.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const svg = doc.documentElement;
      return { error: doc.querySelector('parsererror')?.textContent ?? null, root: svg.localName, ns: svg.namespaceURI,
        title: svg.querySelector(':scope > title')?.textContent, desc: svg.querySelector(':scope > desc')?.textContent,
        cells: svg.querySelectorAll('rect.lb-cell, circle.point').length, paper: svg.querySelector('rect.paper')?.getAttribute('fill') };
    }, saved);
    assert.equal(parsed.error, null, `${sel}: the SVG parses`);
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.ns, 'http://www.w3.org/2000/svg');
    assert.ok(parsed.title?.length > 10 && parsed.desc?.length > 20, `${sel}: title and description`);
    assert.equal(parsed.paper, '#ffffff', `${sel}: standalone, light on white`);
    assert.equal(parsed.cells, await el.evaluate(expected), `${sel}: one cell per number`);
  }
});

test('in the light and the dark theme the figures take the page\'s colours: text reads (WCAG 4.5), a 0.47 cell stands out (3)', T, async () => {
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  try {
    for (const scheme of ['light', 'dark']) {
      await b.page.emulateMedia({ colorScheme: scheme });
      const pageBg = await b.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      for (const sel of ['#w-flow-heads', 'lookback-habits', 'lookback-cost', 'lookback-heads-grid']) {
        const el = await ready(b.page, sel);
        const figs = await el.evaluate((e) => {
          const hex = (rgb) => `#${rgb.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
          const fill = (x) => hex(getComputedStyle(x).fill);
          return [...e.shadowRoot.querySelectorAll('svg.lookback-figure')].map((svg) => {
            const paper = fill(svg.querySelector('rect.paper'));
            const texts = [...svg.querySelectorAll('text')].map((t) => {
              const under = t.getAttribute('pointer-events') === 'none' ? t.previousElementSibling
                : t.closest('g.hidden') ? t.closest('g.hidden').querySelector('rect') : null;
              return { text: t.textContent, ink: fill(t), bg: under ? fill(under) : paper };
            });
            return { paper, texts };
          });
        });
        assert.ok(figs.length > 0, `${sel}: a figure on the page`);
        for (const f of figs) {
          const bg = `#${pageBg.match(/\d+/g).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
          assert.equal(f.paper, bg, `${sel}, ${scheme}: the figure's paper is the page's background`);
          for (const t of f.texts) {
            assert.ok(contrast(t.ink, t.bg) >= 4.5, `${sel}, ${scheme}: "${t.text}" ${t.ink} on ${t.bg}: ${contrast(t.ink, t.bg).toFixed(2)}`);
          }
          const c = contrast(weightColour(0.47), f.paper);
          assert.ok(c >= 3, `${sel}, ${scheme}: a 0.47 cell against the paper: ${c.toFixed(2)}`);
          assert.ok(luminance(weightColour(0.47)) < PALE_LUMINANCE, 'a 0.47 cell is dark');
        }
        if (scheme === 'dark') assert.ok(figs.every((f) => luminance(f.paper) < 0.05), `${sel}: dark paper in the dark theme`);
      }
    }
  } finally {
    await b.page.emulateMedia({ colorScheme: 'light' });
  }
});
