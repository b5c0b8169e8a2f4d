// Browser tests of <lookback-training> alone in embed.html: it makes its run when it comes on screen, trains in
// the worker, pauses, resumes, steps, resets, exports its curve (JSON, CSV, PNG)
// and its model (a bundle), and the bundle loaded back with loadModel gives the same logits as the live model.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from './harness.mjs';
import { checkPNG, exportsOf, until } from './widget-helpers.mjs';

let b;
before(async () => {
  b = await open();
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(new URL('embed.html', b.url).href, { timeout: 120000 });
});
after(async () => { await b?.close(); });

const T = { timeout: 300000 };

// On screen, then its first computed render (the training module loads then: allow for a busy machine).
async function ready(page, tag) {
  const el = page.locator(tag);
  await el.scrollIntoViewIfNeeded();
  await until(() => el.getAttribute('data-state'), (v) => v === 'ready', `${tag} to compute`, 120000);
  return el;
}
const steps = (el) => el.evaluate((w) => w.steps);
const snapshots = (el) => el.evaluate((w) => w.snapshots.length);

test('the training widget trains, pauses, resumes, steps and resets', T, async () => {
  const { page, record } = b;
  const el = await ready(page, 'lookback-training');
  assert.equal(await snapshots(el), 1, 'the untrained model is shown');
  const play = el.locator('button[name=play]');
  assert.equal(await play.textContent(), 'Train');
  await play.click();
  await until(() => steps(el), (n) => n >= 40, 'training to pass 40 steps', 60000);
  await play.click();
  assert.equal(await play.textContent(), 'Resume');
  // steps and the loop's state read together: a chunk landing between two reads would make a stale count
  const paused = await until(() => el.evaluate((w) => [w.steps, w._looping]), ([, busy]) => !busy, 'the chunk in flight to end', 60000);
  await page.waitForTimeout(500);
  assert.equal(await steps(el), paused[0], 'no steps while paused');
  await play.click();
  await until(() => steps(el), (n) => n >= paused[0] + 20, 'training to resume', 60000);
  await play.click();
  await until(() => el.evaluate((w) => w._looping), (busy) => !busy, 'pause', 60000);
  const before = await steps(el);
  await el.locator('button[name=step]').click();
  await until(() => steps(el), (n) => n > before && n % 20 === 0, 'one step button press', 60000);
  assert.match(await el.locator('.summary').textContent(), /^Your run, \d+ steps/);
  assert.equal(await el.locator('.heads figure').count(), 4, 'four heads drawn');
  assert.equal(await el.locator('.scores-table tbody tr').count(), 4);
  // scrub back to the first snapshot: the untrained model at step 0
  const scrub = el.locator('input[name=scrub]');
  await scrub.focus();
  await page.keyboard.press('Home');
  assert.equal(await el.locator('.at').textContent(), 'step 0');
  await el.locator('button[name=reset]').click();
  await until(() => el.evaluate((w) => [w.steps, w.snapshots.length]), ([s, n]) => s === 0 && n === 1, 'a fresh run after reset', 30000);
  assert.equal(await play.textContent(), 'Train');
  assert.deepEqual(record.consoleErrors, []);
  assert.deepEqual(record.pageErrors, []);
  assert.deepEqual(record.external, []);
});

test('the training widget exports its curve and a model that loads back with the same logits', T, async () => {
  const { page } = b;
  const el = await ready(page, 'lookback-training');
  // a fresh run, whatever the test before left
  await el.locator('button[name=reset]').click();
  await until(() => el.evaluate((w) => [w.steps, w.snapshots.length, w._looping]), ([s, n, busy]) => s === 0 && n === 1 && !busy, 'a fresh run', 30000);
  await el.locator('button[name=step]').click();
  await until(() => steps(el), (n) => n >= 20, 'twenty steps', 60000);
  const { png, json, csv } = await exportsOf(page, 'lookback-training', 0, 'training');
  checkPNG(png, 'training');
  assert.equal(json.widget, 'lookback-training');
  assert.equal(json.losses.length, 20);
  assert.equal(json.snapshots.at(-1).step, 20);
  assert.equal(json.snapshots.at(-1).induction.length, 4);
  const rows = csv.trim().split(/\r\n/);
  assert.equal(rows.length, 21);
  assert.match(rows[0], /^step,train_loss,held_out_loss,task_loss,previous_1\.1,induction_1\.1,previous_1\.2,/);
  const r = await el.evaluate(async (w) => {
    const files = {};
    const grab = (e) => { files[e.detail.filename] = e.detail.blob; e.preventDefault(); };
    w.addEventListener('lookback-export', grab);
    await w.saveModel();
    w.removeEventListener('lookback-export', grab);
    const { loadLookback } = await import('./js/api/index.js');
    const lb = await loadLookback();
    const model = await lb.loadModel({
      weights: new Uint8Array(await files['model.safetensors'].arrayBuffer()),
      config: await files['config.json'].text(), tokenizer: await files['tokenizer.json'].text(),
    });
    const ids = w.snapshots.at(-1).probe;
    const back = Array.from(model.forward(ids).logits);
    const live = Array.from(await w.liveLogits(ids));
    let worst = 0;
    for (let i = 0; i < live.length; i++) worst = Math.max(worst, Math.abs(live[i] - back[i]));
    return { names: Object.keys(files).sort(), n: live.length, same: back.length === live.length, worst };
  });
  assert.deepEqual(r.names, ['config.json', 'model.safetensors', 'tokenizer.json']);
  assert.equal(r.n, 32 * 258);
  assert.ok(r.same);
  assert.equal(r.worst, 0, 'loaded-back logits equal the live model\'s');
});
