// Browser tests of hostile attributes: a quiz or deck named after an inherited property ("constructor",
// "__proto__", "toString") shows "no such set" instead of throwing, and a later valid name renders the set; a
// training task named so is an unknown task (the default, induction); an op the controller does not list is
// refused. Runs on
// a page served beside the chapter with the strict CSP. Not the widgets' normal use (embed.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CSP } from '../../.scripts/serve.mjs';
import { open } from './harness.mjs';
import { until } from './widget-helpers.mjs';

let b;
before(async () => {
  b = await open();
});
after(async () => { await b?.close(); });

const T = { timeout: 300000 };

test('quiz, review cards and training: a set or task named after an inherited property is "no such set" (a task: the default), never an exception', T, async () => {
  const { context, url } = b;
  const page = await context.newPage();
  const at = new URL('hostile-sets.html', url).href;
  await page.route(at, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': CSP },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hostile sets</title>
      <script type="module" src="lookback.js"></script></head><body><main>
      <lookback-quiz set="constructor"></lookback-quiz>
      <lookback-review-cards set="__proto__"></lookback-review-cards>
      <lookback-quiz set="toString" quiz-id="t"></lookback-quiz>
      </main></body></html>`,
  }));
  await page.goto(at, { waitUntil: 'commit' });
  const missing = (tag, nth = 0) => page.locator(tag).nth(nth).locator('.missing');
  await until(() => missing('lookback-quiz').textContent(), (v) => /^No such set "constructor"/.test(v), 'quiz: no such set', 60000);
  assert.match(await missing('lookback-quiz').textContent(), /built-in sets: sinks, /);
  await until(() => missing('lookback-review-cards').textContent(), (v) => /^No such set "__proto__"/.test(v), 'cards: no such set', 60000);
  await until(() => missing('lookback-quiz', 1).textContent(), (v) => /^No such set "toString"/.test(v), 'quiz: toString', 60000);
  // exports still work on the message, and a valid name afterwards renders the set
  const quiz = page.locator('lookback-quiz').first();
  await quiz.evaluate((el) => el.setAttribute('set', 'mask'));
  await until(() => quiz.locator('legend').count(), (n) => n > 0, 'the mask quiz after the bad name', 60000);
  const cards = page.locator('lookback-review-cards');
  await cards.evaluate((el) => el.setAttribute('set', 'production'));
  await until(() => cards.getAttribute('data-card'), (v) => !!v, 'the production deck after the bad name', 60000);
  // the training widget's task table is looked up the same way: an inherited name is no task
  const tasks = await page.evaluate(() => ['toString', 'constructor', '__proto__', 'previous'].map((name) => {
    const el = document.createElement('lookback-training');
    el.setAttribute('task', name);
    return el.task;
  }));
  assert.deepEqual(tasks, ['induction', 'induction', 'induction', 'previous']);
  // the controller answers only the ops protocol.js lists: a model is reached through the page's registry alone
  const refused = await page.evaluate(() => Promise.all(['loadModel', 'modelCall', 'toString'].map((op) => new Promise((resolve) => {
    const detail = { op, args: ['sprout'], reply: (err) => resolve(err ? err.message : 'answered') };
    document.querySelector('main').dispatchEvent(new CustomEvent('lookback-compute', { bubbles: true, composed: true, detail }));
  }))));
  for (const [i, op] of ['loadModel', 'modelCall', 'toString'].entries()) assert.match(refused[i], new RegExp(`no operation "${op}" for widgets`));
  await page.close();
  assert.deepEqual(b.record.pageErrors, []);
  assert.deepEqual(b.record.consoleErrors, []);
  assert.deepEqual(b.record.external, []);
});
