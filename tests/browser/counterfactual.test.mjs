// Browser tests of <lookback-counterfactual> in the chapter (section 10): for every story and every kind of
// edit, the probabilities shown before and after equal the JS API's for the same texts (computed here in
// Node), the heads listed are the ones whose attention moved most by the API's forward(), the sentence
// states what those numbers decide; the keyboard path, exports, and the next-token widget reused in the
// section. No console error, no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { open } from './harness.mjs';
import { checkPNG, exportsOf, ready, until } from './widget-helpers.mjs';
import { EDITS, EXAMPLES, editStory } from '../../web/js/widgets/counterfactual-examples.js';
import { alignTokens, headsOnTheEdit } from '../../web/js/widgets/counterfactual-compare.js';

const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');
const V = sprout.info.config.vocab_size;
const T = { timeout: 180000 };
const TAG = 'lookback-counterfactual';
const fmt = (x) => x.toFixed(2);

let b;
before(async () => {
  b = await open();
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(`${b.url}#copying`);
});
after(async () => { await b?.close(); });

const result = (el) => el.evaluate((w) => w.exportData().json);
const pOf = (dist, id) => dist.find((t) => t.id === id)?.p ?? 0;
const wordToken = (word) => sprout.tokens(` ${word}`, { bos: false }).find((t) => t.text.trim() !== '');

// What the widget must show for one edit, from the API.
function expected(ex, kind, replacement) {
  const word = kind === 'neutral' ? ex.neutral[0] : ex.answer;
  const edited = editStory(ex.story, kind, word, replacement);
  const bn = sprout.next(ex.story, { topK: V });
  const an = sprout.next(edited, { topK: V });
  const answer = wordToken(ex.answer);
  const rows = alignTokens(sprout.tokens(ex.story), sprout.tokens(edited));
  const heads = headsOnTheEdit(sprout.forward(ex.story, { attention: true }), sprout.forward(edited, { attention: true }), rows);
  return { edited, bn, an, answer, heads, repl: kind === 'swap' ? wordToken(replacement) : null };
}

async function choose(el, ex, kind) {
  await el.locator(`button[data-example="${ex.id}"]`).click();
  await el.locator(`button[data-kind="${kind}"]`).click();
}

test('section 10 holds the counterfactual and a next-token widget on the doll story', T, async () => {
  const section = b.page.locator('section#copying');
  assert.equal(await section.locator(TAG).count(), 1);
  assert.equal(await section.locator('.slot').count(), 0, 'no placeholder left');
  const nt = section.locator('lookback-next-token');
  await nt.scrollIntoViewIfNeeded();
  await until(() => nt.getAttribute('data-state'), (v) => v === 'ready', 'next-token in section 10', 20000);
  const top = await nt.evaluate((w) => w.exportData().json.top[0]);
  const api = sprout.next(await nt.getAttribute('text'), { topK: 1, temperature: 0.8 })[0];
  assert.equal(top.id, api.id);
  assert.ok(Math.abs(top.p - api.p) < 1e-6);
});

test('every story and edit: the probabilities before and after are the API\'s, the heads and the sentence follow them', T, async () => {
  const el = await ready(b.page, TAG);
  for (const ex of EXAMPLES) {
    for (const kind of EDITS) {
      await choose(el, ex, kind);
      const replacement = kind === 'swap' ? ex.swap : kind === 'neutral' ? ex.neutral[1] : '';
      const want = expected(ex, kind, replacement);
      const what = `${ex.id}/${kind}`;
      // the result names the story and edit it was computed for (the story and the edit are clicked one after the other)
      const named = await until(() => result(el), (v) => v?.story === ex.story && v.edit.kind === kind, `${what} named`, 20000);
      assert.deepEqual([named.edited, named.edit.replacement], [want.edited, replacement], `${what}: the edited story is that of the edit named`);
      const r = await until(() => result(el), (v) => v?.edited === want.edited, `${what} computed`, 20000);
      const k = r.before.length;
      assert.deepEqual(r.before.map((t) => t.id), want.bn.slice(0, k).map((t) => t.id), `${what}: tokens before`);
      assert.deepEqual(r.after.map((t) => t.id), want.an.slice(0, k).map((t) => t.id), `${what}: tokens after`);
      r.before.forEach((t, i) => assert.ok(Math.abs(t.p - want.bn[i].p) < 1e-6, `${what}: p before ${i}`));
      r.after.forEach((t, i) => assert.ok(Math.abs(t.p - want.an[i].p) < 1e-6, `${what}: p after ${i}`));
      assert.equal(r.answer.id, want.answer.id);
      assert.ok(Math.abs(r.answer.before - pOf(want.bn, want.answer.id)) < 1e-6, `${what}: answer before`);
      assert.ok(Math.abs(r.answer.after - pOf(want.an, want.answer.id)) < 1e-6, `${what}: answer after`);
      assert.deepEqual(r.heads.map((h) => `${h.layer_index}.${h.head_index}`), want.heads.slice(0, r.heads.length).map((h) => `${h.layer}.${h.head}`), `${what}: heads`);
      r.heads.forEach((h, i) => assert.ok(Math.abs(h.onOld - want.heads[i].onOld) < 1e-5 && Math.abs(h.onNew - want.heads[i].onNew) < 1e-5, `${what}: weights on the edit`));
      const shown = await el.locator('.verdict').textContent();
      assert.equal(shown, r.verdict);
      const aMove = `${fmt(pOf(want.bn, want.answer.id))} → ${fmt(pOf(want.an, want.answer.id))} for ${ex.answer}`;
      assert.ok(shown.includes(aMove), `${what}: "${shown}" names ${aMove}`);
      const top = want.an[0].id;
      if (kind === 'swap') {
        const followed = top === want.repl.id;
        assert.equal(shown.startsWith('The prediction followed the edit'), followed, `${what}: ${shown}`);
        assert.ok(shown.includes(`${fmt(pOf(want.bn, want.repl.id))} → ${fmt(pOf(want.an, want.repl.id))} for ${ex.swap}`));
      } else if (kind === 'remove') {
        assert.equal(/fell/.test(shown), top !== want.answer.id, `${what}: ${shown}`);
      } else {
        const alone = want.bn[0].id === top && Math.abs(pOf(want.an, want.answer.id) - pOf(want.bn, want.answer.id)) < 0.05;
        assert.equal(/left the prediction alone/.test(shown), alone, `${what}: ${shown}`);
      }
      const headsShown = await el.locator('table.head').evaluateAll((ts) => ts.map((t) => t.dataset.head));
      assert.deepEqual(headsShown, r.heads.map((h) => `${h.layer_index + 1}.${h.head_index + 1}`));
    }
  }
});

test('keyboard: choose a story and an edit, type a replacement; the numbers follow', T, async () => {
  const el = await ready(b.page, TAG);
  await el.locator('button[data-example="doll"]').focus();
  await b.page.keyboard.press('Enter');
  await el.locator('button[data-kind="swap"]').focus();
  await b.page.keyboard.press('Space');
  await el.locator('input.replacement').focus();
  await b.page.keyboard.press('Control+A');
  await b.page.keyboard.type('ball');
  const ex = EXAMPLES.find((e) => e.id === 'doll');
  const want = expected(ex, 'swap', 'ball');
  const r = await until(() => result(el), (v) => v?.edited === want.edited, 'doll -> ball', 20000);
  assert.ok(Math.abs(r.replacement.after - pOf(want.an, want.repl.id)) < 1e-6);
  assert.match(await el.locator('.after mark.new').first().textContent(), /^ball$/);
  assert.equal(await el.locator('.change').textContent(),
    `Probability of ${want.answer.text.replace(/ /g, '\u2423')}: ${pOf(want.bn, want.answer.id).toFixed(3)} before, ${pOf(want.an, want.answer.id).toFixed(3)} after `
    + `(change ${(() => { const d = pOf(want.an, want.answer.id) - pOf(want.bn, want.answer.id); return `${d >= 0 ? '+' : ''}${d.toFixed(3).replace(/^-0\.000$/, '0.000')}`; })()}).`);
});

test('exports: PNG, JSON with both sides, CSV side by side', T, async () => {
  await ready(b.page, TAG);
  const { png, json, csv } = await exportsOf(b.page, TAG, 0, 'export-counterfactual');
  checkPNG(png, TAG);
  assert.equal(json.widget, TAG);
  assert.ok(json.before.length >= 3 && json.after.length === json.before.length);
  assert.equal(typeof json.verdict, 'string');
  assert.equal(csv.split('\r\n')[0], 'rank,before_token,before_p,after_token,after_p');
});

test('no console error and no request outside localhost', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
