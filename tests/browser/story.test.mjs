// Browser tests of how the chapter reads: goals at the top, a summary and an About box at the end; the
// "What Sprout can and cannot do" box (its figures and example stories are the card's, the verdicts computed again
// now, a story loading into the widget); the next-token widget saying in words when its guess is weak or the text
// unfamiliar; a head clicked in the heads grid opening beside the grid; the save menu; contents names equal to the
// headings.
// Not the widgets' numbers (chapter.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openChapter } from './harness.mjs';
import { TAGS, ready, until } from './widget-helpers.mjs';

const card = JSON.parse(readFileSync(new URL('../../shared/models/sprout/card.json', import.meta.url), 'utf8'));
const T = { timeout: 90000 };

let b;
before(async () => {
  b = await openChapter();
});
after(async () => { await b?.close(); });

test('goals open the chapter; a summary, where next, and an About box close it; the opening speaks of attention', T, async () => {
  const { page } = b;
  assert.ok(await page.locator('header .goals li').count() >= 3, 'goals at the top');
  const lede = await page.locator('header .lede').textContent();
  assert.match(lede, /attention/i);
  assert.doesNotMatch(lede, /WebAssembly|JavaScript|\bcore\b|\bbuild\b/, 'the opening is about attention, not the software');
  assert.ok(await page.locator('section#summary ul.summary li').count() >= 5, 'a summary at the end');
  assert.equal(await page.locator('section#summary #where-next').count(), 1, 'where next');
  const about = await page.locator('footer .about').textContent();
  assert.match(about, /WebAssembly/, 'the facts about the software are in the About box');
  assert.match(about, /embed/);
  // the sentences about the software are gone from the chapter's text
  const main = await page.locator('main').textContent();
  for (const said of [/the core's own code/, /puts each claim to the core/, /chapter's core returns zeros/]) assert.doesNotMatch(main, said);
  // the contents name each section as its heading does
  const labels = await page.locator('nav.contents a .label').allTextContents();
  const headings = await page.locator('main > section > h2').evaluateAll((hs) => hs.map((h) => h.textContent.replace(/^\s*\S+\s+/, '').trim()));
  assert.deepEqual(labels.map((s) => s.trim()), headings);
});

test('the Sprout box: the card\'s figures, and example stories computed now that load into the widget', T, async () => {
  const { page } = b;
  const box = page.locator('#sprout-limits');
  await box.scrollIntoViewIfNeeded();
  const slot = (path) => box.locator(`[data-from-card="${path}"]`).first().textContent();
  const f = card.handwritten.final;
  await until(() => slot('handwritten.final.recall.top1'), (v) => v === `${Math.round(100 * f.recall.top1)}%`, 'recall from the card');
  assert.equal(await slot('handwritten.final.recall.probes'), String(f.recall.probes));
  assert.equal(await slot('handwritten.final.pronoun.head'), f.pronoun.head.split('.').map((x) => Number(x) + 1).join('.'));
  assert.equal(await slot('handwritten.final.pronoun.on_name'), f.pronoun.on_name.toFixed(2));
  assert.equal(await slot('handwritten.final.names.first_loss_nats'), f.names.first_loss_nats.toFixed(2));
  assert.equal(await slot('handwritten.final.names.second_loss_nats'), f.names.second_loss_nats.toFixed(2));
  await until(() => box.getAttribute('data-state'), (v) => v === 'ready', 'the verdicts', 60000);
  const items = await box.locator('.picks li').evaluateAll((lis) => lis.map((li) => ({ ...li.dataset,
    text: li.querySelector('.pick').textContent.trim(), verdict_text: li.querySelector('.verdict').textContent })));
  // the lists are the card's showcase stories, the first two of each verdict in the card's order
  const shown = card.showcase.stories;
  for (const [kind, hit] of [['hit', true], ['miss', false]]) {
    const want = shown.filter((x) => x.hit === hit).slice(0, 2).map((x) => x.text);
    assert.ok(want.length > 0, `the card has a story of each kind (${kind})`);
    assert.deepEqual(items.filter((i) => i.expected === kind).map((i) => i.text), want, `the ${kind} list from the card`);
  }
  for (const i of items) {
    assert.equal(i.verdict, i.expected, `"${i.text.slice(0, 30)}…" is listed (from the card) as a ${i.expected} and computed in the page as a ${i.verdict}`);
    assert.match(i.verdict_text, /^Sprout: /);
    assert.doesNotMatch(i.verdict_text, /Listed as/, 'no note of a changed verdict while the card holds');
    assert.equal(i.top, shown.find((x) => x.text === i.text).top, 'the page\'s top guess is the card\'s');
  }
  // a click loads the story into the widget, which computes the same top guess
  const miss = items.find((i) => i.expected === 'miss');
  await box.locator('.pick', { hasText: miss.text.slice(0, 30) }).click();
  const w = page.locator('#w-next-token');
  await until(() => w.locator('tbody tr td.tok').first().textContent(), (v) => v === miss.top.replace(/ /g, '\u2423').replace(/\n/g, '\u21b5'), 'the widget computing the loaded story (the token as its chip shows it)');
  assert.equal(await w.evaluate((el) => el.shadowRoot.querySelector('textarea').value), miss.text);
});

test('a changed verdict is said in words', async () => {
  const { verdictText } = await import('../../web/js/chapter/sprout-limits.js');
  const hit = { top: { token: ' kite', p: 0.9 }, rank: 1, p: 0.9, hit: true };
  const miss = { top: { token: ' pear', p: 0.2 }, rank: 4, p: 0.07, hit: false };
  assert.match(verdictText(hit, 'kite', 'miss'), /now gets it right/);
  assert.match(verdictText(miss, 'cake', 'hit'), /now gets it wrong/);
  assert.match(verdictText(miss, 'cake', 'miss'), /" cake" comes 4th \(0\.07\)/);
  assert.doesNotMatch(verdictText(hit, 'kite', 'hit'), /Listed/);
});

test('next-token says in words when its top guess is weak or the text is unlike its training', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-next-token');
  const note = () => w.locator('.reading').textContent();
  const type = (text) => w.evaluate((el, t) => {
    const box = el.shadowRoot.querySelector('textarea');
    box.value = t;
    box.dispatchEvent(new Event('input'));
  }, text);
  await type('Ben found a red kite in the park. He ran home with the kite. His sister wanted to fly the');
  await until(note, (v) => v === '', 'no note on a story it reads well');
  await type('Anna baked a cake for her mom. She put it on the table. When her mom came home, Anna gave her the');
  await until(note, (v) => /Unsure: the most probable next token/.test(v), 'the weak guess said in words');
  await type('Qwzx plorb vintrequal zzyx gromphet urblic snarfwex thrumbly');
  await until(note, (v) => /Unfamiliar text: its 8 words split into \d+ tokens/.test(v), 'unfamiliar text said in words');
});

// the widgets whose picture lookback/figures draws: their menu also saves the figure as SVG
const FIGURE_TAGS = ['lookback-flow', 'lookback-habits', 'lookback-heads-grid', 'lookback-explorer', 'lookback-cost'];

test('every widget has one save menu with three formats (four with the figure as SVG), closed until opened', T, async () => {
  const { page } = b;
  for (const tag of TAGS) {
    const el = page.locator(tag).first();
    const menus = await el.evaluate((e) => [...e.shadowRoot.querySelectorAll('details.export')].map((d) => ({
      open: d.open, formats: [...d.querySelectorAll('button[data-format]')].map((x) => x.dataset.format) })));
    const formats = FIGURE_TAGS.includes(tag) ? ['png', 'svg', 'json', 'csv'] : ['png', 'json', 'csv'];
    assert.deepEqual(menus, [{ open: false, formats }], `${tag}: one closed save menu`);
  }
});

test('a head clicked in the heads grid opens beside the grid, on a query where it looks hard at one token', T, async () => {
  const { page } = b;
  const grid = await ready(page, 'lookback-heads-grid');
  const beside = page.locator('section#heads lookback-explorer');
  assert.equal(await beside.isVisible(), false, 'hidden until a head is clicked');
  const top = page.locator('section#where-it-looks lookback-explorer');
  const before = await top.getAttribute('head');
  await grid.locator('button[data-head="2.3"]').click();
  await until(() => beside.getAttribute('token'), (v) => v !== null, 'the query chosen');
  assert.ok(await beside.isVisible());
  assert.equal(await beside.getAttribute('layer'), '2');
  assert.equal(await beside.getAttribute('head'), '3');
  assert.equal(await top.getAttribute('head'), before, 'the explorer of section 2 is left as it was');
  const inView = await beside.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; });
  assert.ok(inView, 'the explorer is brought into view');
});

test('section 4 brings the plane of section 3 into view with no key matching the query', T, async () => {
  const { page } = b;
  const section = page.locator('section#nowhere');
  assert.doesNotMatch(await section.textContent(), /in the plane above/, 'no "press X in the plane above"');
  await section.locator('button.show-preset').click();
  const plane = page.locator('#w-qkv-plane');
  await until(() => plane.evaluate((el) => el.exportData().json.keys.map((k) => k.score)), (scores) => scores.every((x) => x < 0),
    'every score negative');
  const inView = await plane.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; });
  assert.ok(inView, 'the plane is in view');
});

test('no console errors and no request left localhost', () => {
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.external, []);
});
