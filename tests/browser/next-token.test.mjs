// Browser tests of <lookback-next-token> and of the page's current model: the listed next tokens equal the JS
// API's for the same text and temperature (computed here in Node), the keyboard path, streamed generation that
// equals generation in steps through the API and can be stopped, exports, and the reader's own model (a
// randomWeights() bundle written here, the project's stories260K) switching every model widget, with
// the loader's error shown for a wrong file. No console error, no outside request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { open } from './harness.mjs';
import { checkPNG, exportsOf, probText, ready, until } from './widget-helpers.mjs';
import { generateInSteps } from '../../web/js/widgets/generation.js';

const lb = await loadLookback();
const sprout = await lb.loadModel('sprout');
const T = { timeout: 120000 };
const TAG = 'lookback-next-token';

const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 6, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 512, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: true, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const STORIES = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));

let b;
let dir;
before(async () => {
  b = await open();
  dir = mkdtempSync(join(tmpdir(), 'lookback-own-model-'));
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(new URL('embed.html', b.url).href);
});
after(async () => {
  await b?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const widget = () => b.page.locator(TAG).first();
const shownRows = () => widget().locator('table.top tbody tr').evaluateAll((rows) => rows.map((r) => ({
  id: Number(r.dataset.id), token: r.querySelector('.tok .chip').textContent.replace(/\u2423/g, ' ').replace(/\u21b5/g, '\n'), p: r.querySelector('.p').textContent })));
const apiRows = (model, text, temperature, k = 8) => model.next(text, { topK: k, temperature })
  .map((t) => ({ id: t.id, token: t.token, p: probText(t.p) }));
const waitRows = (model, text, temperature, what) => until(shownRows, (v) => JSON.stringify(v) === JSON.stringify(apiRows(model, text, temperature)), what, 20000);

async function generated(el) {
  await until(() => el.locator('.go').isDisabled(), (v) => v === false, 'generation to end', 60000);
  return el.evaluate((w) => w.exportData().json.generated);
}

test('the next tokens shown are the API\'s; typing and the temperature slider recompute them', T, async () => {
  const el = await ready(b.page, TAG);
  assert.match(await el.locator('.model-name').textContent(), /^Sprout$/);
  await waitRows(sprout, 'Once upon a time', 0.8, 'rows for the attribute text');
  // a confident guess leaves the other rows small: each still reads as a number, not a row of 0.000
  await el.locator('textarea').fill('Once upon a time, there was a little girl named');
  await waitRows(sprout, 'Once upon a time, there was a little girl named', 0.8, 'rows after a name is asked for');
  const small = (await shownRows()).filter((r) => r.p !== '0.000' && !(Number(r.p) >= 0.0005));
  assert.ok(small.length >= 3, `most rows under 0.0005 (${JSON.stringify(await shownRows())})`);
  assert.equal((await shownRows()).filter((r) => r.p === '0.000').length, 0, 'no row reads 0.000');
  await el.locator('textarea').fill('Once upon a time');
  await waitRows(sprout, 'Once upon a time', 0.8, 'rows for the attribute text again');
  await el.locator('textarea').focus();
  await b.page.keyboard.press('End');
  await b.page.keyboard.type(', there was a');
  await waitRows(sprout, 'Once upon a time, there was a', 0.8, 'rows after typing');
  await el.locator('input.temp').focus();
  for (let i = 0; i < 8; i++) await b.page.keyboard.press('ArrowRight');
  // the export names the text and temperature its rows were computed for
  const named = await until(() => el.evaluate((w) => w.exportData().json), (j) => j.temperature === 1.2, 'the export at temperature 1.2', 20000);
  assert.deepEqual(named.top.map((t) => ({ id: t.id, token: t.token, p: probText(t.p) })), apiRows(sprout, named.text, named.temperature),
    'the exported rows are those of the text and temperature exported');
  await waitRows(sprout, 'Once upon a time, there was a', 1.2, 'rows at temperature 1.2');
  assert.match(await el.locator('caption').textContent(), /temperature 1\.20/);
  // top-p: a row is sampled while the mass before it is below top-p
  const top = await el.evaluate((w) => w.exportData().json.top);
  let mass = 0;
  for (const t of top) {
    assert.equal(t.inTopP, mass < 0.95 || mass === 0, `top-p mark of ${JSON.stringify(t.token)}`);
    mass += t.p;
  }
});

test('generation streams the text of generation in steps; the same seed gives it again', T, async () => {
  const el = await ready(b.page, TAG);
  // (an attribute set re-reads only its own control: the temperature the test before left is set back here)
  await el.evaluate((w) => ['text', 'temperature', 'top-p'].forEach((a, i) => w.setAttribute(a, ['Once upon a time', '0.8', '0.95'][i])));
  await el.locator('input.seed').fill('7');
  await el.locator('input.max').fill('24');
  const tokens = [];
  await b.page.exposeFunction('noteToken', (t) => tokens.push(t));
  await el.evaluate((w) => w.addEventListener('lookback-token', (e) => window.noteToken(e.detail.text)));
  await el.locator('.go').focus();
  await b.page.keyboard.press('Enter');
  const first = await generated(el);
  const opts = { maxTokens: 24, temperature: 0.8, topP: 0.95, seed: 7 };
  let want = [];
  for await (const s of generateInSteps((x, o) => sprout.generate(x, o), sprout.encode('Once upon a time'), opts)) want.push(...s.ids);
  assert.deepEqual(first.ids, want);
  assert.equal(first.text, sprout.decode(want));
  assert.ok(tokens.length >= 2, `streamed in ${tokens.length} parts`);
  assert.equal(await el.locator('.gen .out').textContent(), first.text);
  assert.match(await el.locator('.gen-status').textContent(), new RegExp(`^${want.length} tokens? generated with seed 7`));
  await el.locator('.go').click();
  assert.deepEqual((await generated(el)).ids, want, 'same seed, same text');
});

test('generation can be stopped, by the Stop button and by Escape', T, async () => {
  const el = await ready(b.page, TAG);
  // a seed whose text does not end within its first 40 tokens (found with the API, so that stopping has work to cut)
  const prompt = 'Once upon a time';
  const opts = { maxTokens: 40, temperature: 0.8, topP: 0.95 };
  let seed = 1;
  for (; seed < 50; seed++) {
    let stop = null;
    for await (const s of generateInSteps((x, o) => sprout.generate(x, o), sprout.encode(prompt), { ...opts, seed })) stop = s.stop;
    if (stop === 'max_tokens') break;
  }
  await el.evaluate((w) => ['text', 'temperature', 'top-p'].forEach((a, i) => w.setAttribute(a, ['Once upon a time', '0.8', '0.95'][i])));
  await el.locator('input.max').fill('200');
  await el.locator('input.seed').fill(String(seed));
  // stop as soon as the first part is shown (generation is too quick to race it from here): a click on Stop, or
  // Escape pressed where the focus is (Generate hands it to Stop while it runs)
  for (const how of ['button', 'escape']) {
    await el.evaluate((w, h) => w.addEventListener('lookback-token', () => {
      if (h === 'button') w.shadowRoot.querySelector('.stop').click();
      else w.shadowRoot.querySelector('.stop:focus').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    }, { once: true }), how);
    await el.locator('.go').focus();
    await b.page.keyboard.press('Enter');
    const g = await generated(el);
    assert.equal(g.stop, 'cancelled', `${how}: stopped (${JSON.stringify(g)}, seed ${seed})`);
    assert.ok(g.ids.length < 200, `${how}: ${g.ids.length} tokens`);
    const n = (await el.locator('.gen .out').textContent()).length;
    await b.page.waitForTimeout(300);
    assert.equal((await el.locator('.gen .out').textContent()).length, n, `${how}: nothing more arrives`);
    assert.match(await el.locator('.gen-status').textContent(), /you stopped it/);
    assert.equal(await el.evaluate((w) => w.shadowRoot.activeElement?.className), 'go', `${how}: the focus is back on Generate`);
  }
});

test('exports: PNG, and JSON and CSV of the rows shown', T, async () => {
  await ready(b.page, TAG);
  const { png, json, csv } = await exportsOf(b.page, TAG, 0, 'export-next-token');
  checkPNG(png, TAG);
  assert.equal(json.widget, TAG);
  assert.equal(json.model, 'Sprout');
  assert.deepEqual(json.top.map((t) => probText(t.p)), (await shownRows()).map((r) => r.p));
  assert.equal(csv.split('\r\n')[0], 'rank,id,token,p,in_top_p');
});

test('your own model: a randomWeights() bundle switches every model widget; a wrong file shows the loader\'s error', T, async () => {
  const el = await ready(b.page, TAG);
  await el.evaluate((w) => w.setAttribute('text', 'abc'));
  const files = { 'model.safetensors': lb.randomWeights(CONFIG, { seed: 11 }), 'config.json': JSON.stringify(CONFIG), 'tokenizer.json': TOKENIZER };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  await el.locator('details.own summary').click();
  await el.locator('input[type=file]').setInputFiles(Object.keys(files).map((n) => join(dir, n)));
  const own = await lb.loadModel(files['model.safetensors'], { config: CONFIG, tokenizer: TOKENIZER });
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'model.safetensors', 'the label of the new model');
  await waitRows(own, 'abc', 0.8, 'rows from the reader\'s model');
  // every model widget follows: the counterfactual recomputes with the same model
  const cf = await ready(b.page, 'lookback-counterfactual');
  await until(() => cf.locator('.model-line').textContent(), (v) => /model\.safetensors/.test(v), 'counterfactual on the new model');
  // a wrong file: the loader's own error, in the widget; the model stays
  writeFileSync(join(dir, 'broken.bin'), 'this is not a checkpoint');
  writeFileSync(join(dir, 'tok.bin'), Buffer.alloc(16));
  await el.locator('input[type=file]').setInputFiles([join(dir, 'broken.bin'), join(dir, 'tok.bin')]);
  const message = await until(() => el.locator('.model-error').textContent(), (v) => /^Could not load the model: ./.test(v), 'the loader\'s error');
  await assert.rejects(lb.loadModel({ checkpoint: new TextEncoder().encode('this is not a checkpoint'), tokenizer: new Uint8Array(16) }),
    (err) => message === `Could not load the model: ${err.message}`);
  await el.locator('input[type=file]').setInputFiles([join(dir, 'config.json')]);
  await until(() => el.locator('.model-error').textContent(), (v) => /config\.json: not a model/.test(v), 'a lone config.json');
  assert.equal(await el.locator('.model-name').textContent(), 'model.safetensors');
  await el.locator('button.sprout').click();
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout');
  await waitRows(sprout, 'abc', 0.8, 'Sprout\'s rows again');
  own.dispose();
});

test('your own model: stories260K.bin with tok512.bin', T, async () => {
  const el = await ready(b.page, TAG);
  await el.evaluate((w) => w.setAttribute('text', 'Once upon a time'));
  await el.locator('input[type=file]').setInputFiles([join(STORIES, 'stories260K.bin'), join(STORIES, 'tok512.bin')]);
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'stories260K.bin', 'stories260K loaded');
  const m = await lb.loadModel(join(STORIES, 'stories260K.bin'), { tokenizer: join(STORIES, 'tok512.bin') });
  await waitRows(m, 'Once upon a time', 0.8, 'stories260K rows');
  await el.locator('button.sprout').click();
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout');
  m.dispose();
});

test('no console error and no request outside localhost', () => {
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.external, []);
});
