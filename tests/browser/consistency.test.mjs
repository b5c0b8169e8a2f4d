// Browser tests that the chapter says one thing one way: the made-up-name widget's headline is the card's measure
// (per piece that can be copied) computed from its own rows; heads are named layer.head counting from 1 in every
// widget; the counterfactual lists the heads that look at the edit, with their two weights; the shuffle test moves
// whole words and speaks plainly; the ◆ button opens a query whose largest weight is on ◆; no caption names a
// token twice; every widget that shows tokens shows them as the same chips; the smaller fixes (qkv status line,
// mask wording, the leak test with an opened cell, the grid's labels, the favicon, the counts in section 12).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadLookback } from 'lookback';
import { open } from './harness.mjs';
import { ready, until } from './widget-helpers.mjs';
import { alignTokens, headsOnTheEdit } from '../../web/js/widgets/counterfactual-compare.js';
import { EXAMPLES, editStory } from '../../web/js/widgets/counterfactual-examples.js';

const CARD = JSON.parse(readFileSync(new URL('../../web/models/sprout/card.json', import.meta.url), 'utf8'));
const head1 = (s) => s.split('.').map((x) => Number(x) + 1).join('.');
const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');

let b;
const requested = [];
before(async () => {
  b = await open();
  b.page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(b.url);
});
after(async () => {
  sprout.dispose();
  await b?.close();
});

const T = { timeout: 120000 };
const json = (el) => el.evaluate((w) => JSON.parse(w.exportJSON()));

test('section 9: the headline is the loss per piece that can be copied, from the rows shown, as the card measures it', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-induction');
  for (const name of ['Zibblor', 'Plimtastic']) {
    await el.locator('input').fill(name);
    const d = await until(() => json(el), (v) => v.name === name && v.rows.length > 0, `the rows of ${name}`, 20000);
    assert.ok(d.rows.length >= 2, `${name} is several pieces`);
    const mean = (k) => d.rows.slice(1).reduce((s, r) => s + r[k], 0) / (d.rows.length - 1);
    const headline = await el.locator('.sum').textContent();
    const [first, second] = headline.match(/(\d+\.\d+) nats the first time, (\d+\.\d+) nats the second time/).slice(1).map(Number);
    assert.equal(first, Number(mean('loss1').toFixed(2)), `${name}: the first-time figure is the mean over pieces 2..n`);
    assert.equal(second, Number(mean('loss2').toFixed(2)), `${name}: the second-time figure is the mean over pieces 2..n`);
    assert.match(headline, /per piece that can be copied/);
    assert.equal(await el.locator('table.tokens tbody tr').count(), d.rows.length, 'every piece keeps its row');
  }
  // the prose states the card's figures, measured the same way
  const prose = await page.locator('#heads p', { has: page.locator('[data-from-card="probes.name.second_loss_nats"]') }).textContent();
  assert.match(prose, /per piece on the pieces\s+of a made-up name that can be copied/);
  assert.match(CARD.probes.name.measured_on, /after the first/);
  assert.match(prose, new RegExp(`falls from ${CARD.probes.name.first_loss_nats.toFixed(2)} nats`));
});

// "head 3.0", "Head 0.4", "layer 0, head 2": a head name with a 0 in it is one counted from 0.
function zeroBasedNames(text) {
  return [...text.matchAll(/\b[Hh]eads? (\d+)\.(\d+)\b|\blayer (\d+), head (\d+)\b|^(\d+)\.(\d+) (?:prev|induction|previous)/gm)]
    .filter((m) => m.slice(1).some((x) => x === '0')).map((m) => m[0]);
}

test('every widget names heads layer.head counting from 1', T, async () => {
  const { page } = b;
  // the counterfactual and training widgets counted from 0; check them after they have drawn heads
  const cf = await ready(page, 'lookback-counterfactual');
  await cf.locator('button[data-kind="neutral"]').click();
  await until(() => cf.locator('.heads h4').count(), (n) => n > 0, 'counterfactual heads');
  const tr = await ready(page, 'lookback-training');
  await tr.locator('button[name="step"]').click();
  await until(() => tr.evaluate((w) => w.snapshots.length), (n) => n >= 2, 'a snapshot after some steps', 60000);
  await until(() => tr.locator('.heads figcaption').count(), (n) => n > 0, 'training head maps');
  const captions = await tr.locator('.heads figcaption').allTextContents();
  assert.ok(captions.every((c) => /^[1-9]\d*\.[1-9]\d* prev/.test(c)), `training captions: ${captions}`);
  // each map's caption: the head, then each score in words, every one on a line of its own inside the map's box
  const lines = await tr.locator('.heads figcaption').evaluateAll((cs) => cs.map((c) => [...c.children].map((x) => {
    const r = x.getBoundingClientRect(), box = c.getBoundingClientRect();
    return { text: x.textContent, fits: r.height < 1.5 * parseFloat(getComputedStyle(x).lineHeight) && r.right <= box.right + 0.5 && x.scrollWidth <= x.clientWidth + 0.5 };
  })));
  assert.ok(lines.every((l) => l.length === 3 && /^previous token \d/.test(l[1].text) && /^induction \d/.test(l[2].text)), `caption lines: ${JSON.stringify(lines)}`);
  assert.deepEqual(lines.flat().filter((l) => !l.fits), [], 'caption lines that wrap or overflow their map');
  const found = await page.evaluate(() => [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('lookback-'))
    .map((e) => `${e.localName}: ${[...(e.shadowRoot?.querySelectorAll('*') ?? [])].map((x) => [x.textContent, x.getAttribute('aria-label') ?? ''].join('\n')).join('\n')}`));
  const bad = found.flatMap((t) => zeroBasedNames(t).map((n) => `${t.split(':')[0]}: ${n}`));
  assert.deepEqual([...new Set(bad)], [], 'no head name counted from 0');
  assert.ok(found.some((t) => /Head [1-9]\d*\.[1-9]\d*: /.test(t)), 'the counterfactual names its heads');
});

test('counterfactual: the heads listed are those that put most weight on the new word, with both weights shown', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-counterfactual');
  const ex = EXAMPLES[0];
  await el.locator(`button[data-example="${ex.id}"]`).click();
  await el.locator('button[data-kind="swap"]').click();
  const edited = editStory(ex.story, 'swap', ex.answer, ex.swap);
  const r = await until(() => el.evaluate((w) => w.exportData().json), (v) => v?.edited === edited, 'the swap computed', 20000);
  const rows = alignTokens(sprout.tokens(ex.story), sprout.tokens(edited));
  const want = headsOnTheEdit(sprout.forward(ex.story, { attention: true }), sprout.forward(edited, { attention: true }), rows);
  assert.deepEqual(r.heads.map((h) => h.name), want.slice(0, r.heads.length).map((h) => `${h.layer + 1}.${h.head + 1}`));
  // the first head listed is the one with the most weight on the new word, and it is a real look at it
  const all = want.map((h) => h.onNew);
  assert.equal(r.heads[0].onNew, Math.max(...all));
  assert.ok(r.heads[0].onNew > 0.3, `the top head looks at "${ex.swap}": ${r.heads[0].onNew}`);
  const h4 = await el.locator('.heads h4').first().textContent();
  assert.equal(h4, `Head ${r.heads[0].name}: ${r.heads[0].onOld.toFixed(2)} of its weight on "${ex.answer}" before the edit, `
    + `${r.heads[0].onNew.toFixed(2)} on "${ex.swap}" after it`);
  // a removal ranks by the weight that was on the old word
  await el.locator('button[data-kind="remove"]').click();
  const removed = editStory(ex.story, 'remove', ex.answer, '');
  const rr = await until(() => el.evaluate((w) => w.exportData().json), (v) => v?.edited === removed, 'the removal computed', 20000);
  const wr = headsOnTheEdit(sprout.forward(ex.story, { attention: true }), sprout.forward(removed, { attention: true }),
    alignTokens(sprout.tokens(ex.story), sprout.tokens(removed)));
  assert.equal(rr.heads[0].onOld, Math.max(...wr.map((h) => h.onOld)));
  assert.match(await el.locator('.heads h4').first().textContent(), /before the edit, and the word is gone after it$/);
});

test('shuffle: whole words move, "dog bites man." becomes "man bites dog.", and the readout is plain', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-shuffle');
  // typed and committed with Enter, as a reader does: one change event (a change dispatched by hand is followed by
  // the browser's own when the field loses focus to a word below)
  await el.locator('input.text').fill('dog bites man.');
  await el.locator('input.text').press('Enter');
  let j = await until(() => json(el), (v) => v.text === 'dog bites man.', 'the new text', 20000);
  assert.equal(j.words.length, 3, `three words before the full stop: ${JSON.stringify(j.words)}`);
  // a word's pieces stay together in every order
  for (const w of j.words) assert.ok(w.every((i, k) => k === 0 || i === w[k - 1] + 1), 'a word is a run of tokens');
  const shownText = async () => (await el.locator('.shuffled .word').allTextContents()).join('').replace(/\u2423/g, ' ').replace('◆', '').trim();
  // put the words in the order 3 2 1 with the keyboard
  const order = async () => (await json(el)).wordOrder;
  for (let guard = 0; guard < 12 && JSON.stringify(await order()) !== '[3,2,1]'; guard++) {
    const o = await order();
    const want = [3, 2, 1];
    const k = o.findIndex((x, i) => x !== want[i]);
    const from = o.indexOf(want[k]) + 1;
    await el.locator(`.shuffled button.tok[data-pos="${from}"]`).focus();
    await page.keyboard.press('Shift+ArrowLeft');
    await until(order, (v) => JSON.stringify(v) !== JSON.stringify(o), 'a word moved');
  }
  j = await until(() => json(el), (v) => JSON.stringify(v.wordOrder) === '[3,2,1]', 'man bites dog', 20000);
  assert.equal(await shownText(), 'man bites dog.');
  const ids = j.tokens.map((t) => t.id);
  assert.equal(sprout.decode(j.order.slice(1).map((i) => ids[i])).trim(), 'man bites dog.', 'the model reads "man bites dog."');
  const page11 = await el.evaluate((w) => w.shadowRoot.textContent);
  assert.doesNotMatch(page11, /total variation|relative difference|float|rounding/i);
  assert.match(await el.locator('.result').textContent(), /of the next-token probability moved|did not move/);
});

test('section 2: the ◆ button opens a head and query whose largest weight is on ◆; no caption names a token twice', T, async () => {
  const { page } = b;
  const x = page.locator('#where-it-looks lookback-explorer');
  await page.locator('button.open-head[data-query-where="start-mark"]').click();
  await x.scrollIntoViewIfNeeded();
  await until(() => x.getAttribute('data-state'), (v) => v === 'ready', 'the explorer computed', 20000);
  const d = await until(() => json(x), (v) => v.weights.length > 2 && v.weights.indexOf(Math.max(...v.weights)) === 0,
    'a query whose largest weight is on ◆', 20000);
  assert.equal(`${d.layer}.${d.head}`, head1(CARD.heads.start_mark.best[0].head), 'the head the bullet names');
  assert.ok(d.query >= 2, 'a query with more to look at than ◆ and itself');
  // recomputed here: that head's largest weight at that query is on ◆
  const f = sprout.forward(d.text, { attention: true });
  const { T: n, H } = f.shape;
  const row = f.attention.subarray((((d.layer - 1) * H + d.head - 1) * n + d.query) * n, (((d.layer - 1) * H + d.head - 1) * n + d.query + 1) * n);
  assert.equal(row.indexOf(Math.max(...row)), 0);
  // captions: as many weights as distinct tokens named (the largest, the one before, ◆), each token once
  for (const [layer, head] of [[4, 6], [3, 6], [7, 2], [1, 1]]) {
    for (const q of [1, 3, 8]) {
      await x.evaluate((el, [l, h, t]) => { el.setAttribute('layer', l); el.setAttribute('head', h); el.setAttribute('token', t); },
        [String(layer), String(head), String(q)]);
      const e = await until(() => json(x), (v) => v.query === q && v.layer === layer && v.head === head, `head ${layer}.${head} at ${q}`);
      const w = e.weights;
      const top = w.indexOf(Math.max(...w));
      const keys = new Set([top, q - 1, 0]);
      const caption = await x.locator('.caption').textContent();
      assert.equal(caption.match(/\d\.\d\d/g).length, keys.size, `one weight per token named: ${caption}`);
    }
  }
});

test('one token display: every widget that shows tokens shows them as the same chips, spaces as ␣', T, async () => {
  const { page } = b;
  const tags = ['lookback-window', 'lookback-next-token', 'lookback-explorer', 'lookback-induction', 'lookback-counterfactual', 'lookback-shuffle'];
  const styles = [];
  for (const tag of tags) {
    const el = await ready(page, tag);
    const s = await el.evaluate((w) => {
      const chips = [...w.shadowRoot.querySelectorAll('.chip')];
      const cs = chips[0] && getComputedStyle(chips[0]);
      return { n: chips.length, font: cs?.fontFamily, border: cs?.borderTopStyle, spaced: chips.some((c) => c.textContent.startsWith('\u2423')),
        quoted: [...w.shadowRoot.querySelectorAll('td')].filter((td) => /^"[^"]*"$/.test(td.textContent.trim())).length };
    });
    assert.ok(s.n > 0, `${tag} shows its tokens as chips`);
    assert.equal(s.border, 'solid', `${tag}: a chip has its own box`);
    assert.ok(s.spaced, `${tag}: a leading space shows as ␣`);
    assert.equal(s.quoted, 0, `${tag}: no token in JSON quotes`);
    styles.push(s.font);
  }
  assert.equal(new Set(styles).size, 1, `one chip font everywhere: ${styles}`);
});

test('claims the page backs: Sprout is not said to be trained here; 9b and 12 read what they say', T, async () => {
  const { page } = b;
  const main = await page.locator('main').textContent();
  assert.doesNotMatch(main, /model this chapter trains/);
  assert.doesNotMatch(main, /shows both habits forming/);
  const loss = await page.locator('#habits p', { has: page.locator('[data-from-card="validation.stories"]') }).textContent();
  assert.doesNotMatch(loss, /the same/);
  assert.match(loss, new RegExp(`${CARD.validation.stories}\\s+held-out stories`));
  assert.match(loss, new RegExp(`first\\s+${CARD.evaluation.head_texts}\\s+of them`));
  // 9b: the stories task has one held-out curve, and the run's summary says which habits formed
  const tr = await ready(page, 'lookback-training');
  await tr.locator('select[name="task"]').selectOption('corpus');
  assert.equal(await tr.locator('.task-legend').isHidden(), true, 'no second "held-out" line for the stories task');
  assert.doesNotMatch(await tr.locator('.legend').first().textContent(), /held-out loss on the held-out/);
  await tr.locator('button[name="step"]').click();
  const s = await until(() => tr.evaluate((w) => w.summary()), (v) => v && v.step > 0, 'a stories step', 60000);
  const said = await tr.locator('.summary').textContent();
  const want = s.formed.previous && s.formed.induction ? 'both habits have formed' : s.formed.previous ? 'a previous-token head has formed'
    : s.formed.induction ? 'an induction head has formed' : 'neither habit has formed';
  assert.ok(said.includes(want), `the summary says what the run shows (${JSON.stringify(s.formed)}): ${said}`);
});

test('smaller fixes: qkv status, mask wording, the leak test with an opened cell, grid labels, favicon', T, async () => {
  const { page, record } = b;
  const q = await ready(page, 'lookback-qkv-plane');
  await q.locator('button[data-preset="start"]').click();
  assert.equal(await q.locator('.status').textContent(), 'The starting position.');
  await q.locator('input[type=range]').focus();
  await page.keyboard.press('ArrowRight');
  assert.notEqual(await q.locator('.status').textContent(), 'The starting position.', 'τ moved: no longer the start');
  await q.locator('button[data-preset="start"]').click();
  await q.locator('canvas').focus();
  await page.keyboard.press('1');
  await page.keyboard.press('ArrowUp');
  assert.notEqual(await q.locator('.status').textContent(), 'The starting position.', 'a key moved: no longer the start');

  const m = await ready(page, 'lookback-mask-builder');
  await m.locator('button[data-preset="none"]').click();
  const verdict = await until(() => m.locator('.verdict').textContent(), (v) => /hides every key/.test(v), 'the all-hidden verdict');
  assert.doesNotMatch(verdict, /causal/);
  assert.match(verdict, /itself/);
  // open one cell above the diagonal: row 2 sees column 3; the leak test must edit word 3 and find the leak
  await m.locator('button[data-preset="causal"]').click();
  await m.locator('table.grid button[data-i="1"][data-j="2"]').click();
  await until(() => m.locator('.verdict').textContent(), (v) => /not causal/.test(v), 'the opened cell');
  await m.locator('button.change-last').click();
  const say = await until(() => m.locator('.leak-say').textContent(), (v) => /You changed token/.test(v), 'the leak test ran');
  assert.match(say, /You changed token 3\. With your mask, some earlier outputs changed: the future leaks in/);
  const word3 = await m.locator('.tokens input[data-i="2"]').inputValue();
  assert.equal(await m.locator('table.grid th[scope="col"][data-word="2"]').textContent(), `3 ${word3}`, 'the grid labels the word as it is now');
  assert.equal(await m.locator('table.grid th[scope="row"][data-word="2"]').textContent(), `3 ${word3}`);

  assert.ok(!requested.includes('/favicon.ico'), 'the page names its icon, so no favicon.ico is asked for');
  assert.deepEqual(record.consoleErrors, []);
  assert.deepEqual(record.external, []);
});
