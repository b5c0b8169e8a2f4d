// Browser test of the chapter shell: the page loads under its strict CSP, KaTeX renders, the module worker
// computes the first live value, and nothing logs an error or leaves localhost.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARTIFACTS, open } from './harness.mjs';

let b;
before(async () => { b = await open(); });
after(async () => { await b?.close(); });

test('the first computation arrives from the worker with the worked example\'s numbers', async () => {
  const { page, url, record } = b;
  const response = await page.goto(url);
  assert.match(response.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(response.headers()['content-security-policy'], /unsafe-eval'(?<!wasm-unsafe-eval')/);
  const out = page.locator('#first-computation[data-status="done"]');
  await out.waitFor({ timeout: 15000 });
  assert.equal(await out.getAttribute('data-scores'), '0.71, 1.41, 2.12, 0.71');
  const weights = (await out.getAttribute('data-weights')).split(',').map(Number);
  assert.ok(Math.abs(weights[2] - 0.505) < 0.002, `"sat" gives itself about 51% (got ${weights[2]})`);
  assert.ok(Math.abs(weights.reduce((a, x) => a + x, 0) - 1) < 1e-3);
  assert.ok(await page.locator('.formula .katex').count() >= 1, 'KaTeX rendered the formula');
  await page.screenshot({ path: `${ARTIFACTS}index.png`, fullPage: true });
  assert.deepEqual(record.consoleErrors, []);
  assert.deepEqual(record.pageErrors, []);
});

test('the harness sees and blocks a request to another host', async () => {
  // The page's CSP already stops its own fetches before they reach the network, so probe with a navigation.
  const { context, record } = b;
  const probe = await context.newPage();
  await assert.rejects(probe.goto('https://example.invalid/'), /ERR_BLOCKED_BY_CLIENT/);
  await probe.close();
  assert.deepEqual(record.external, ['https://example.invalid/']);
  record.external.length = 0;  // the probe is not a failure of the page
});

test('no request left localhost during the run', () => {
  assert.deepEqual(b.record.external, []);
  assert.deepEqual(b.record.consoleErrors, []);
});
