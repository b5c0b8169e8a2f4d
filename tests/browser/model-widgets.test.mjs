// Browser tests of the chapter's trained-model widgets in index.html (window, explorer, heads grid, induction,
// habits) and the prose filled from the model card: each widget's numbers equal the JS API's for the same input,
// computed in the test (the API loaded in the page itself); keyboard paths; exports; the models load once per
// page; switching the page's current model recomputes the widgets; no console error, no outside request.
// Expected values come from the API and card.json at run time, so a retrained model needs no edit here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open } from './harness.mjs';
import { checkPNG, exportsOf, probText, ready, texts, until } from './widget-helpers.mjs';

const CARD = JSON.parse(readFileSync(new URL('../../web/models/sprout/card.json', import.meta.url), 'utf8'));
const CONFIG = JSON.parse(readFileSync(new URL('../../web/models/sprout/config.json', import.meta.url), 'utf8'));
// the page's names: layer.head counting from 1, from the card's "l.h" counting from 0
const head1 = (s) => s.split('.').map((x) => Number(x) + 1).join('.');
const at = (obj, path) => path.split('.').reduce((o, k) => o?.[k], obj);

let b, ref;
const weightFetches = [];
before(async () => {
  b = await open();
  // the model weights the chapter page fetched (its worker's requests are the page's)
  b.page.on('request', (r) => {
    if (/models\/[^/]+\/model\.safetensors$/.test(r.url())) weightFetches.push(new URL(r.url()).pathname);
  });
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(b.url);
  await b.page.evaluate(() => localStorage.clear());
  // the JS API in a blank page of the same origin, with its own copies of the models: the reference for every
  // number below
  ref = await b.context.newPage();
  const blank = new URL('__tests__/blank.html', b.url).href;
  await ref.route(blank, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>reference</title>' }));
  await ref.goto(blank);
  await ref.evaluate(async () => {
    const { loadLookback } = await import('/js/api/index.js');
    const lb = await loadLookback();
    globalThis.ref = { lb, sprout: await lb.loadModel('sprout'), window: await lb.loadModel('window') };
  });
});
after(async () => { await b?.close(); });

const T = { timeout: 90000 };
const f3 = (x) => x.toFixed(3);

test('the prose reads every model number from the card and config; no section 1, 2, 9 or 12 is missing', T, async () => {
  const { page } = b;
  await until(() => page.locator('[data-from-card]:not([data-filled])').count(), (n) => n === 0, 'every card slot filled');
  const slots = await page.evaluate(() => [...document.querySelectorAll('[data-from-card], [data-from-config]')]
    .map((e) => ({ card: e.dataset.fromCard, config: e.dataset.fromConfig, format: e.dataset.format, text: e.textContent })));
  assert.ok(slots.length >= 20);
  const FORMAT = { head: head1, n2: (v) => v.toFixed(2), n3: (v) => v.toFixed(3), exp: (v) => Math.exp(v).toFixed(2),
    int: (v) => v.toLocaleString('en-US'), params4: (v) => (4 * v * v).toLocaleString('en-US'), pct: (v) => `${Math.round(100 * v)}%` };
  for (const s of slots) {
    const v = s.card ? at(CARD, s.card) : at(CONFIG, s.config);
    assert.notEqual(v, undefined, `${s.card ?? s.config} is in the card/config`);
    assert.equal(s.text, (FORMAT[s.format] ?? String)(v), `${s.card ?? s.config} (${s.format})`);
  }
  for (const id of ['looking-back', 'where-it-looks', 'heads', 'habits']) {
    const section = page.locator(`#${id}`);
    assert.equal(await section.getAttribute('class'), null, `#${id} is not pending`);
    assert.doesNotMatch(await section.textContent(), /Not here yet|does not ship|needs the trained model/);
  }
  assert.doesNotMatch(await page.locator('main').textContent(), /does not ship with the chapter|needs the trained model/);
  // "Show this head" opens the head the card names, on the pronoun example at "he"
  await page.locator('button.open-head[data-example="pronoun"]').click();
  const x = page.locator('#w-explorer');
  const [l, h] = CARD.heads.pronoun_to_name.best[0].head.split('.').map(Number);
  await until(async () => [await x.getAttribute('layer'), await x.getAttribute('head')], (v) => v[0] === String(l + 1) && v[1] === String(h + 1), 'the pronoun head opened');
  await ready(page, 'lookback-explorer');
  await until(async () => (await x.locator('.tok.query').textContent().catch(() => '')).replace('\u2423', ' ').trim(), (v) => v === 'he', 'the query is "he"');
  assert.match(await x.locator('.caption').textContent(), new RegExp(`^head ${head1(CARD.heads.pronoun_to_name.best[0].head).replace('.', '\\.')}: "he" puts`));
});

test('window: both models\' top 5 at the blank equal the API\'s; the slider and an edited story follow', T, async () => {
  const { page } = b;
  const w = await ready(page, 'lookback-window');
  const shown = async () => ({
    window: (await texts(w.locator('table.window td.p'))), attention: (await texts(w.locator('table.attention td.p'))),
    windowTokens: await texts(w.locator('table.window td.t')),
  });
  const expect = (story, cut) => ref.evaluate(([s, c]) => {
    const ids = ref.sprout.encode(s);
    const prefix = ids.slice(0, ids.length - c);
    return { window: ref.window.next(prefix, { topK: 5 }), attention: ref.sprout.next(prefix, { topK: 5 }), T: ids.length };
  }, [story, cut]);
  const check = async (story, cut, what) => {
    const e = await expect(story, cut);
    await until(shown, (v) => JSON.stringify(v.window) === JSON.stringify(e.window.map((p) => probText(p.p)))
      && JSON.stringify(v.attention) === JSON.stringify(e.attention.map((p) => probText(p.p))), `${what}: the shown probabilities`);
    const v = await shown();
    assert.deepEqual(v.windowTokens, e.window.map((p) => p.token.replace(/ /g, '\u2423')), `${what}: the window model's tokens`);
    return e;
  };
  const story = await w.locator('textarea').inputValue();
  const e = await check(story, 0, 'at the blank');
  assert.match(await w.locator('.sees').textContent(), /^Before the blank, the window sees: /);
  assert.equal(await w.locator('input[type=range]').getAttribute('max'), String(e.T));
  // the loss table from the card
  assert.deepEqual(await texts(w.locator('table.loss td.nats')), [f3(CARD.validation.sprout.loss_nats), f3(CARD.validation.window.loss_nats)]);
  // keyboard: three steps left moves the window's end three tokens back
  await w.locator('input[type=range]').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
  // the export names the end of the window its predictions were computed for
  const cut = await expect(story, 3);
  const named = await until(() => w.evaluate((x) => JSON.parse(x.exportJSON())), (j) => j.end === cut.T - 3, 'the export three tokens back');
  assert.deepEqual(named.predictions.window.map((p) => f3(p.p)), cut.window.map((p) => f3(p.p)), 'the exported predictions are those of the end exported');
  await check(story, 3, 'three tokens back');
  // the reader edits the story
  await w.locator('textarea').fill('Tom had a red kite. He flew it over the hill. Then Tom gave the');
  await check('Tom had a red kite. He flew it over the hill. Then Tom gave the', 0, 'an edited story');
  const { json, png, csv } = await exportsOf(page, 'lookback-window');
  checkPNG(png, 'window');
  assert.equal(json.predictions.attention.length, 5);
  assert.match(csv, /probability/);
  await w.locator('textarea').fill(story);
  // an author's attribute set after the first computation: the same story, a window of 4 tokens
  await w.evaluate((x) => x.setAttribute('size', '4'));
  const four = await until(() => w.evaluate((x) => JSON.parse(x.exportJSON())), (j) => j.size === 4 && j.end === e.T, 'the window of 4 tokens');
  assert.equal(four.visible.length, 4);
  assert.equal(await w.locator('.n').textContent(), '4');
  await w.evaluate((x) => x.removeAttribute('size'));
  await check(story, 0, 'back to the default window');
});

// the explorer's shown weights (table) and the API's row for layer l, head h (-1: averaged), query q
async function explorerCheck(page, el, text, l, h, q, what) {
  const e = await ref.evaluate(([t, l, h, q]) => {
    const f = ref.sprout.forward(t, { attention: true });
    const { T, H } = f.shape;
    const heads = h < 0 ? [...Array(H).keys()] : [h];
    const row = [];
    for (let s = 0; s <= q; s++) row.push(heads.reduce((a, hh) => a + f.attention[((l * H + hh) * T + q) * T + s], 0) / heads.length);
    return row;
  }, [text, l, h, q]);
  await until(() => texts(el.locator('table.weights td.w')), (v) => JSON.stringify(v) === JSON.stringify(e.map(f3)), `${what} (expected ${e.map(f3)}; caption ${await el.locator('.caption').textContent()})`);
}

test('explorer: the weights shown equal the API\'s for a head, a token picked by keyboard, the layer average and typed text', T, async () => {
  const { page } = b;
  const x = await ready(page, 'lookback-explorer');
  const text = await x.locator('textarea').inputValue();
  const { layer, head } = ((s) => ({ layer: Number(s.split('.')[0]), head: Number(s.split('.')[1]) }))(CARD.heads.previous_token.best[0].head);
  await x.locator('select.layer').selectOption({ value: String(layer) });
  await x.locator('select.head').selectOption({ value: String(head) });
  const T = await x.locator('.strip .tok').count();
  await x.locator('.strip').focus();
  await page.keyboard.press('End');
  await explorerCheck(page, x, text, layer, head, T - 1, 'the last token, previous-token head');
  assert.match(await x.locator('.caption').textContent(), new RegExp(`^head ${head1(CARD.heads.previous_token.best[0].head).replace('.', '\\.')}:`));
  assert.match(await x.locator('.habits').textContent(), new RegExp(`previous token ${CARD.heads.previous_token.best[0].score.toFixed(2)}`));
  // keyboard: the strip moves the query
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await explorerCheck(page, x, text, layer, head, T - 3, 'two tokens back');
  assert.equal(await x.locator('.tok.query').getAttribute('data-i'), String(T - 3));
  assert.equal(await x.locator('.tok.future').count(), 2, 'the future is hatched');
  await page.keyboard.press('Home');
  await explorerCheck(page, x, text, layer, head, 0, 'the start mark looks only at itself');
  await page.keyboard.press('End');
  // mouse: a click picks a token
  await x.locator('.tok[data-i="3"]').click();
  await explorerCheck(page, x, text, layer, head, 3, 'clicked token 3');
  // the layer's heads averaged
  await x.locator('select.head').selectOption({ value: '-1' });
  await explorerCheck(page, x, text, layer, -1, 3, 'all heads averaged');
  // typed text: recomputed as it is typed
  await x.locator('textarea').fill('');
  await x.locator('textarea').pressSequentially('Ann lost her hat. She', { delay: 15 });
  const typed = 'Ann lost her hat. She';
  const n = await ref.evaluate((t) => ref.sprout.encode(t).length, typed);
  await explorerCheck(page, x, typed, layer, -1, n - 1, 'typed text, last token');
  const { json, png, csv } = await exportsOf(page, 'lookback-explorer');
  checkPNG(png, 'explorer');
  assert.equal(json.text, typed);
  assert.equal(json.head, 'all');
  assert.equal(csv.split('\r\n')[0], 'position,token,weight');
});

test('heads grid: every head labelled from the card, sorted by a habit; a click or Enter opens it in the explorer', T, async () => {
  const { page } = b;
  const g = await ready(page, 'lookback-heads-grid');
  const { layers: L, heads: H } = CARD.heads;
  assert.equal(await g.locator('.cell').count(), L * H);
  // the table's values are the card's
  const rows = await g.locator('table.heads tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  for (const [name, prev, start, ind] of rows) {
    const [l, h] = name.split('.').map((x) => Number(x) - 1);
    assert.deepEqual([prev, start, ind], ['previous_token', 'start_mark', 'induction'].map((k) => f3(CARD.heads[k].by_layer[l][h])), name);
  }
  await g.locator('select.sort').scrollIntoViewIfNeeded();   // as a reader's eyes are on it (widgets compute only while on screen)
  await g.locator('select.sort').selectOption({ value: 'induction' });
  await until(() => g.locator('.cell').first().getAttribute('data-head'), (v) => v === head1(CARD.heads.induction.best[0].head), 'best induction head first');
  await g.locator('.cell').first().click();
  const x = page.locator('section#heads lookback-explorer');   // the explorer beside the grid
  const [l, h] = CARD.heads.induction.best[0].head.split('.').map(Number);
  await until(async () => [await x.getAttribute('layer'), await x.getAttribute('head')], (v) => v[0] === String(l + 1) && v[1] === String(h + 1), 'explorer opened on the head');
  // keyboard: arrows move between heads, Enter opens
  await g.locator('.cell').first().focus();
  await page.keyboard.press('ArrowRight');
  const second = await g.locator('.cell').nth(1).getAttribute('data-head');
  assert.equal(await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.dataset.head), second);
  await page.keyboard.press('Enter');
  await until(async () => `${await x.getAttribute('layer')}.${await x.getAttribute('head')}`, (v) => v === second, 'Enter opened the second head');
  const { json, png } = await exportsOf(page, 'lookback-heads-grid');
  checkPNG(png, 'heads grid');
  assert.equal(json.heads.length, L * H);
  assert.equal(json.sort, 'induction');
});

test('induction: per-token probabilities and the induction head\'s weight equal the API\'s; a typed name follows', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-induction');
  const expect = (text, name, headStr) => ref.evaluate(([t, nm, hs]) => {
    const f = ref.sprout.forward(t, { attention: true });
    // the name's pieces: the tokens whose place in the text overlaps the name's letters (as the card's evaluator
    // counts them; a space a tokenizer splits off alone is not the name's)
    const ids = f.ids, toks = ref.sprout.tokens(ids);
    const over = (at) => toks.flatMap((x, i) => (x.end > x.start && x.end > at && x.start < at + nm.length ? [i] : []));
    const at1 = t.indexOf(nm), first = over(at1), second = over(t.indexOf(nm, at1 + nm.length));
    const part = first.map((i) => ids[i]), a = first[0], b2 = second[0];
    if (JSON.stringify(part) !== JSON.stringify(second.map((i) => ids[i]))) throw new Error(`${nm} is split differently the two times`);
    const { V, T, H } = f.shape;
    const p = (t2, id) => { const row = Array.from(f.logits.subarray((t2 - 1) * V, t2 * V)); const m = Math.max(...row);
      const z = row.reduce((s, x) => s + Math.exp(x - m), 0); return Math.exp(row[id] - m) / z; };
    const [l, h] = hs.split('.').map(Number);
    return part.map((id, k) => ({ p1: p(a + k, id), p2: p(b2 + k, id),
      w: k > 0 ? f.attention[((l * H + h) * T + (b2 + k - 1)) * T + (a + k)] : null }));
  }, [text, name, headStr]);
  const check = async (name, what) => {
    const text = await el.locator('p.text').textContent();
    const e = await expect(text, name, CARD.heads.induction.best[0].head);
    await until(() => texts(el.locator('td.p2')), (v) => JSON.stringify(v) === JSON.stringify(e.map((r) => f3(r.p2))), `${what}: p second`);
    assert.deepEqual(await texts(el.locator('td.p1')), e.map((r) => f3(r.p1)), `${what}: p first`);
    assert.deepEqual(await texts(el.locator('td.w')), e.map((r) => (r.w === null ? '—' : r.w.toFixed(2))), `${what}: induction weight`);
    // the headline: the loss per piece over the pieces that can be copied (all but the first), as the card measures it
    const copied = e.slice(1), n = copied.length;
    const mean1 = copied.reduce((s, r) => s - Math.log(r.p1), 0) / n, mean2 = copied.reduce((s, r) => s - Math.log(r.p2), 0) / n;
    assert.equal(await el.locator('.sum').textContent(), `Loss per piece that can be copied (the ${n === 1 ? 'piece' : `${n} pieces`} after the first): `
      + `${mean1.toFixed(2)} nats the first time, ${mean2.toFixed(2)} nats the second time.`);
  };
  await check(await el.locator('input').inputValue(), 'the default name');
  assert.match(await el.locator('.head').textContent(), new RegExp(`^Head ${head1(CARD.heads.induction.best[0].head).replace('.', '\\.')} `));
  // what the widget asks the worker while a name is typed: its text's pieces and their places in one request, no
  // second decoding of the same ids
  await el.evaluate((w) => {
    w.asked = [];
    w.addEventListener('lookback-compute', (e) => { w.asked.push(e.detail.op === 'model' ? e.detail.args[1] : e.detail.op); });
  });
  await el.locator('input').fill('');
  await el.locator('input').pressSequentially('Quorvex', { delay: 20 });
  await until(() => el.locator('p.text').textContent(), (v) => v.includes('Quorvex'), 'the typed name in the text');
  // the export names the name its numbers were computed for (it was typed a letter at a time)
  const named = await until(() => el.evaluate((x) => JSON.parse(x.exportJSON())), (j) => j.name === 'Quorvex', 'the export of the typed name');
  assert.ok(named.text.includes(' Quorvex.'), `the exported text is that of the name exported: ${named.text}`);
  assert.deepEqual(named.rows.map((r) => f3(r.p2)), (await expect(named.text, 'Quorvex', CARD.heads.induction.best[0].head)).map((r) => f3(r.p2)),
    'the exported probabilities are those of the name exported');
  await check('Quorvex', 'a typed name');
  const asked = await el.evaluate((w) => w.asked);
  const count = (m) => asked.filter((x) => x === m).length;
  assert.ok(count('forward') > 0 && !asked.includes('decode') && !asked.includes('tokens'), `asked: ${asked}`);
  // (a computation overtaken by the next letter stops after its forward pass)
  assert.ok(count('decodeTokens') > 0 && count('decodeTokens') <= count('forward'), `at most one request for the pieces a computation: ${asked}`);
  const { json, png, csv } = await exportsOf(page, 'lookback-induction');
  checkPNG(png, 'induction');
  assert.equal(json.name, 'Quorvex');
  assert.match(csv, /^token,p_first,p_second/);
});

test('habits: the card\'s columns and the live recompute, which equals the API over the same held-out stories', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-habits');
  await until(() => el.getAttribute('data-live'), (v) => v === 'done', 'the live recompute to finish', 60000);
  const e = await ref.evaluate((sample) => {
    const r = ref.sprout.headScores(sample, { repeats: 0 });
    return { previous_token: r.previousToken.byLayer.flat(), four_or_more_back: r.fourOrMoreBack.byLayer.flat(), start_mark: r.startMark.byLayer.flat() };
  }, CARD.validation.sample.texts);
  const { heads: H } = CARD.heads;
  const cells = await el.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({ head: tr.dataset.head,
    card: [...tr.querySelectorAll('td.card')].map((c) => [c.dataset.habit, c.textContent]),
    live: [...tr.querySelectorAll('td.live')].map((c) => [c.dataset.habit, c.textContent]) })));
  assert.equal(cells.length, CARD.heads.layers * H);
  for (const c of cells) {
    const [l, h] = c.head.split('.').map((x) => Number(x) - 1);
    for (const [k, v] of c.card) assert.equal(v, f3(CARD.heads[k].by_layer[l][h]), `${c.head} ${k} card`);
    for (const [k, v] of c.live) assert.ok(Math.abs(Number(v) - e[k][l * H + h]) <= 0.0011, `${c.head} ${k} live ${v} vs API ${e[k][l * H + h]}`);
  }
  // the button (with the numbers, behind their disclosure) starts again
  if (!(await el.locator('details.numbers').evaluate((d) => d.open))) await el.locator('details.numbers > summary').click();
  await el.locator('button.again').click();
  await until(() => el.getAttribute('data-live'), (v) => v === 'done', 'the second recompute', 60000);
  const { json, png, csv } = await exportsOf(page, 'lookback-habits');
  checkPNG(png, 'habits');
  assert.equal(json.heads.length, CARD.heads.layers * H);
  assert.match(csv, /^head,previous_token,previous_token_live/);
});

test('the models load once per page and are shared; switching the current model recomputes the widgets', T, async () => {
  const { page } = b;
  // every model widget has computed, and the page fetched each model once
  for (const tag of ['lookback-window', 'lookback-explorer', 'lookback-heads-grid', 'lookback-induction', 'lookback-habits']) await ready(page, tag);
  assert.deepEqual(weightFetches.slice().sort(), ['/models/sprout/model.safetensors', '/models/window/model.safetensors']);
  const x = await ready(page, 'lookback-explorer');
  const before = weightFetches.length;
  const current = await x.evaluate(async (el) => {
    el.changes = 0;
    el.addEventListener('lookback-change', () => el.changes++);
    const models = document[Symbol.for('lookback.computeController')].models;
    return (await models.use('sprout', 'another')).label;
  });
  assert.equal(current, 'another');
  await until(() => x.evaluate((el) => el.changes), (n) => n >= 1, 'the explorer recomputed for the new current model', 30000);
  await x.evaluate(() => document[Symbol.for('lookback.computeController')].models.use(null));
  await until(() => Promise.resolve(weightFetches.slice(before)), (v) => v.length === 1, 'the new model loaded once');
});

test('an unfinished section is never marked read', T, async () => {
  const { page } = b;
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await until(() => page.evaluate(() => JSON.parse(localStorage.getItem('lookback.progress') || '{}').read?.includes('summary')), Boolean, 'the end read');
  const pending = await page.evaluate(() => [...document.querySelectorAll('main section.pending')].map((s) => s.id));
  const read = await page.evaluate(() => JSON.parse(localStorage.getItem('lookback.progress')).read);
  for (const id of pending) assert.ok(!read.includes(id), `${id} is unfinished but marked read`);
});

test('no console errors and no request left localhost', () => {
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.external, []);
});
