// Browser regression tests of hostile inputs where the page is involved: a model widget whose model is named after
// an inherited property (a failed load said in words, no stuck loading bar), a training task so named, a dropped
// file the browser cannot read, a reader's model that cannot read the widget's text (the "Model:" line follows the
// switch, the error says what to do in the page's words), a tokenizer whose merges double a token's length (refused
// in the worker: the main thread keeps running, its memory stays bounded) and two streams on one model through the
// page's remote model. Not the same inputs through the API in Node (tests/js/*: failed-calls, file-bombs,
// concurrent-streams, page-words).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { open } from './harness.mjs';
import { ready, until } from './widget-helpers.mjs';
import { TRAIN_TASKS } from '../../web/js/train-tasks.js';

const lb = await loadLookback();
const T = { timeout: 180000 };
const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 6, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 8, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: true, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const tokenizer = (merges) => JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258 + merges.length, bos_id: 0, eos_id: 1, merges });

let b, dir;
before(async () => {
  b = await open();
  dir = mkdtempSync(join(tmpdir(), 'lookback-hardening-'));
});
after(async () => {
  await b?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A page of the context at `path` (desktop size) whose console errors are recorded apart from the harness's: some
// tests here make widgets show an error on purpose, which a widget also logs.
async function pageAt(path) {
  for (const list of Object.values(b.record)) list.length = 0;   // each test checks what its own page did
  const page = await b.context.newPage();
  const logged = [];
  page.on('console', (m) => { if (m.type() === 'error') logged.push(m.text()); });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(new URL(path, b.url).href);
  return { page, logged };
}

// The harness's records, less the console errors `expected` accounts for.
function checkRecords(expected = []) {
  assert.deepEqual(b.record.pageErrors, [], 'no uncaught error or unhandled rejection');
  assert.deepEqual(b.record.external, []);
  const unexpected = b.record.consoleErrors.filter((t) => !expected.some((re) => re.test(t)));
  assert.deepEqual(unexpected, []);
  b.record.consoleErrors.length = 0;
}

// Writes `files` ({ name: bytes or text }) to the test's folder and picks them in the widget's "use your own model" box.
async function pick(el, files) {
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  if (!(await el.locator('details.own').evaluate((d) => d.open))) await el.locator('details.own summary').click();
  await el.locator('input[type=file]').setInputFiles(Object.keys(files).map((n) => join(dir, n)));
}

test('a model widget whose model is "constructor", "toString" or "__proto__": the load fails in words, no bar stays loading, nothing is thrown', T, async () => {
  const { page } = await pageAt('index.html');
  const names = [['w-next-token', 'constructor'], ['w-explorer', 'toString'], ['w-window', '__proto__']];
  // a name of a bundled model's form is looked for under models/ (and not found); "__proto__" is no such name, and
  // is refused before anything is fetched (once, it was fetched beside the worker script)
  const served = (name) => new URL(`models/${name}/model.safetensors`, b.url).href;
  const why = (name) => (name === '__proto__'
    ? 'no bundled model is named "__proto__" (a model widget\'s model is current, sprout, window or the folder name of a model under models/)'
    : `loadModel: cannot fetch ${served(name)} (HTTP 404)`);
  for (const [id, name] of names) {
    const el = page.locator(`#${id}`);
    await el.evaluate((w, n) => w.setAttribute('model', n), name);
    await el.scrollIntoViewIfNeeded();
    const message = await until(() => el.locator('p.error').first().textContent(), (v) => v.length > 0, `${id}'s error line`, 60000);
    assert.equal(message, `Could not compute: ${why(name)}`);
    assert.doesNotMatch(message, /function|native code|\[object|TypeError/);
  }
  // the loading bar: each name's row says it could not be loaded (in words, with the name) and none still loads
  const rows = () => page.evaluate(() => [...document.querySelectorAll('.model-progress-row')].map((r) => ({
    model: r.dataset.model, state: r.dataset.state, text: r.textContent })));
  const shown = await until(rows, (v) => names.every(([, n]) => v.some((r) => r.model === n && r.state === 'failed')), 'a failed row per name', 60000);
  for (const [, name] of names) {
    const row = shown.find((r) => r.model === name);
    assert.ok(row.text.startsWith(`${name[0].toUpperCase()}${name.slice(1)} could not be loaded: ${why(name)}. Reload the page to try again.`), row.text);
    assert.doesNotMatch(row.text, /function|native code|\[object/);
  }
  assert.deepEqual(shown.filter((r) => r.state === 'loading'), [], 'no row is left loading');
  // a valid name afterwards computes
  await page.locator('#w-explorer').evaluate((w) => w.setAttribute('model', 'sprout'));
  await ready(page, '#w-explorer');
  await page.close();
  checkRecords([/models\/(constructor|toString)\/model\.safetensors/, /no bundled model is named "__proto__"/, /status of 404/]);
});

test('a training widget whose task is "constructor" trains the default task, and says which', T, async () => {
  const { page } = await pageAt('embed.html');
  const made = await page.evaluate(() => {
    const el = document.createElement('lookback-training');
    el.id = 'hostile-training';
    el.setAttribute('task', 'constructor');
    document.querySelector('main').prepend(el);
    return el.task;
  });
  assert.equal(made, 'induction');
  const el = page.locator('#hostile-training');
  await el.scrollIntoViewIfNeeded();
  await until(() => el.locator('.scored').textContent(), (v) => v === TRAIN_TASKS.induction.scored, 'the task legend', 30000);
  assert.equal(await el.locator('[name=task]').inputValue(), 'induction');
  await el.evaluate((w) => w.setAttribute('task', '__proto__'));
  assert.equal(await el.evaluate((w) => w.task), 'induction');
  await page.close();
  checkRecords();
});

test('a dropped file the browser cannot read is said so in the box, with no unhandled rejection', T, async () => {
  const { page, logged } = await pageAt('embed.html');
  const el = await ready(page, 'lookback-next-token');
  await el.locator('details.own summary').click();
  // a real file on disk, picked in a plain input of the page, then removed before the drop reads it
  const gone = join(dir, 'model.safetensors');
  writeFileSync(gone, lb.randomWeights({ ...CONFIG, max_seq_len: 64 }, { seed: 3 }));
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', id: 'stash', hidden: true });
    document.body.append(input);
  });
  await page.locator('#stash').setInputFiles(gone);
  rmSync(gone);
  await el.evaluate((w) => {
    const file = document.querySelector('#stash').files[0];
    const data = new DataTransfer();
    data.items.add(file);
    w.shadowRoot.querySelector('.drop').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  const message = await until(() => el.locator('.model-error').textContent(), (v) => v.length > 0, 'the error in the box', 30000);
  assert.match(message, /^model\.safetensors could not be read \(.+\)\.$/);
  assert.equal(await el.locator('.model-name').textContent(), 'Sprout', 'the model stays');
  await page.close();
  assert.deepEqual(logged, []);
  checkRecords();
});

test('after a switch to a model that cannot read the text, "Model:" names the new model and no widget says "pass { window: true }"', T, async () => {
  const { page } = await pageAt('embed.html');
  const el = await ready(page, 'lookback-next-token');
  await el.evaluate((w) => w.setAttribute('text', 'Once upon a time there was a cat'));
  assert.equal(await el.locator('.model-name').textContent(), 'Sprout');
  await pick(el, { 'model.safetensors': lb.randomWeights(CONFIG, { seed: 5 }), 'config.json': JSON.stringify(CONFIG), 'tokenizer.json': tokenizer([]) });
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'model.safetensors', 'the new model\'s name', 60000);
  const message = await until(() => el.locator('p.error').first().textContent(), (v) => v.length > 0, 'the error line', 30000);
  assert.match(message, new RegExp(`shorten the text: this view reads at most ${CONFIG.max_seq_len} tokens at once`));
  assert.match(await el.locator('.model-size').textContent(), new RegExp(`context ${CONFIG.max_seq_len}\\)`));
  // every widget of the page, each in view so that it computes with the new model: none advises the API option
  const count = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((e) => e.constructor.observedAttributes?.includes('model')).length);
  assert.ok(count >= 5, `${count} model widgets`);
  for (let i = 0; i < count; i++) {
    const settled = () => page.evaluate((n) => {
      const w = [...document.querySelectorAll('main *')].filter((e) => e.constructor.observedAttributes?.includes('model'))[n];
      w.scrollIntoView();
      return w.hasAttribute('data-error') || (w.dataset.state === 'ready' && !w._busy && !w._dirty);
    }, i);
    await until(settled, (v) => v, `model widget ${i} to compute with the new model`, 60000);
  }
  const advice = await page.evaluate(() => [...document.querySelectorAll('*')].filter((e) => e.shadowRoot)
    .map((e) => [e.localName, e.shadowRoot.textContent]).filter(([, t]) => /window: true|\{ window/.test(t)));
  assert.deepEqual(advice, []);
  await el.scrollIntoViewIfNeeded();
  await el.locator('button.sprout').click();
  await until(() => el.locator('.model-name').textContent(), (v) => v === 'Sprout', 'back to Sprout', 60000);
  await page.close();
  checkRecords([/the model's context holds 8/]);
});

test('merges that double a token\'s length, dropped in the page: refused by the worker, the main thread keeps running, its memory bounded', T, async () => {
  const { page } = await pageAt('embed.html');
  const el = await ready(page, 'lookback-next-token');
  // merge i joins token 258+i-1 with itself: 2, 4, 8, ... bytes, the last one 4 MiB
  const doubling = [[99, 99], ...Array.from({ length: 21 }, (_, i) => [258 + i, 258 + i])];
  const config = { ...CONFIG, max_seq_len: 64, vocab_size: 258 + doubling.length };
  // the page's memory (its worker's too; measurable since the page is cross-origin isolated), and the main thread's
  // longest pause from before the drop until the box answers
  const memory = () => page.evaluate(async () => (await performance.measureUserAgentSpecificMemory()).bytes);
  const before = await memory();
  await page.evaluate(() => {
    const beat = { last: performance.now(), longest: 0 };
    beat.timer = setInterval(() => {
      const now = performance.now();
      beat.longest = Math.max(beat.longest, now - beat.last);
      beat.last = now;
    }, 20);
    globalThis.beat = beat;
  });
  await pick(el, { 'model.safetensors': lb.randomWeights(config, { seed: 6 }), 'config.json': JSON.stringify(config), 'tokenizer.json': tokenizer(doubling) });
  const message = await until(() => el.locator('.model-error').textContent(), (v) => v.length > 0, 'the loader\'s refusal', 60000);
  assert.match(message, /^Could not load the model: .*merges\[10\] makes a token of 2048 bytes; a token holds at most 1024/);
  await page.waitForTimeout(500);  // whatever the answer set off in the page runs meanwhile
  const beat = await page.evaluate(() => {
    clearInterval(globalThis.beat.timer);
    return { longest: globalThis.beat.longest };
  });
  beat.grew = (await memory()) - before;
  // (once: the file loaded, and the page froze for 9-17 s and took 1.6 GB reading its tokens)
  assert.ok(beat.longest < 3000, `the main thread paused for ${Math.round(beat.longest)} ms`);
  assert.ok(beat.grew < 128 << 20, `the page's memory grew by ${beat.grew} bytes`);
  assert.equal(await el.locator('.model-name').textContent(), 'Sprout', 'the model stays');
  await page.close();
  checkRecords();
});

test('two streams on one model through the page\'s remote model each get the tokens they would get alone', T, async () => {
  const { page } = await pageAt('embed.html');
  const r = await page.evaluate(async () => {
    const { ComputeClient } = await import('./js/worker/client.js');
    const { loadRemoteModel } = await import('./js/worker/remote-model.js');
    const client = new ComputeClient();
    const m = await loadRemoteModel(client, 'sprout');
    const runs = [['Once upon a time', { maxTokens: 14, seed: 3, temperature: 1.2 }], ['Mia had a red kite.', { maxTokens: 10, seed: 4, temperature: 0 }]];
    const alone = [];
    for (const [prompt, opts] of runs) alone.push((await m.generate(prompt, opts)).ids);
    const streamed = [[], []];
    const order = [];
    const results = await Promise.all(runs.map(([prompt, opts], i) => m.generate(prompt, { ...opts, onToken: (t) => {
      streamed[i].push(t.id);
      order.push(i);
    } })));
    await m.dispose();
    client.terminate();
    return { alone, streamed, results: results.map((x) => x.ids), order };
  });
  assert.ok(r.alone.every((ids) => ids.length > 4), `generated ${r.alone.map((ids) => ids.length)} tokens`);
  assert.deepEqual(r.streamed, r.alone, `tokens as they came (streams in the order ${r.order.join('')})`);
  assert.deepEqual(r.results, r.alone);
  await page.close();
  checkRecords();
});
