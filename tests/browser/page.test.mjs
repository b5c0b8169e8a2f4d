// Browser test of the chapter shell: the page loads under its strict CSP, KaTeX renders, the module worker
// computes the first live value, and nothing logs an error or leaves localhost.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../.scripts/serve.mjs';
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

test('the bundled model runs in the worker: load, tokens, forward, next, headScores, dispose', async () => {
  const { page, record } = b;
  const r = await page.evaluate(async () => {
    const { ComputeClient } = await import('./js/worker/client.js');
    const { loadRemoteModel } = await import('./js/worker/remote-model.js');
    const client = new ComputeClient();
    const m = await loadRemoteModel(client, 'sprout');
    const tokens = await m.tokens('Mia had a red kite.');
    const f = await m.forward('Mia had a red kite.', { attention: true });
    const top = await m.next('Mia had a red kite.', { topK: 3 });
    const heads = await m.headScores(['Mia had a red kite. She flew the kite.'], { repeats: 1, repeatLength: 20 });
    const keyed = m.keyed('typing');
    // while a slow call runs, two keyed calls queue up: only the newer one runs
    const slow = m.headScores([], { repeats: 6, repeatLength: 100 });
    const settled = await Promise.allSettled([keyed.next('Mia'), keyed.next('Mia had')]);
    await slow;
    await m.dispose();
    const afterDispose = await m.next('Mia').then(() => 'no error', (e) => e.message);
    const badMethod = await client.request('modelCall', [1, 'constructor', []]).then(() => 'no error', (e) => e.message);
    client.terminate();
    return {
      layers: m.info.config.n_layers, context: m.context, tokens, shape: f.shape, isF32: f.attention instanceof Float32Array,
      rowSum: f.attention.subarray(f.shape.T * 3, f.shape.T * 4).reduce((a, x) => a + x, 0),
      top, heads: { layers: heads.layers, best: heads.previousToken.best.length, count: heads.induction.count },
      settled: settled.map((s) => s.status === 'fulfilled' ? 'ok' : s.reason.name), afterDispose, badMethod,
    };
  });
  assert.equal(r.layers, 8);
  assert.equal(r.context, 256);
  assert.equal(r.tokens[0].text, '\u25c6');
  assert.equal(r.shape.T, r.tokens.length);
  assert.equal(r.shape.L, 8);
  assert.ok(r.isF32);
  assert.ok(Math.abs(r.rowSum - 1) < 1e-4);
  assert.equal(r.top.length, 3);
  assert.ok(r.top[0].p >= r.top[1].p);
  assert.deepEqual(r.heads, { layers: 8, best: 3, count: 20 });
  assert.deepEqual(r.settled, ['AbortError', 'ok']);
  assert.match(r.afterDispose, /disposed/);
  assert.match(r.badMethod, /no method "constructor"/);
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

// The worker's core in the page at `url`: its thread count and Sprout's numbers on one text.
async function coreIn(page, url) {
  await page.goto(url);
  return page.evaluate(async () => {
    const { ComputeClient } = await import('./js/worker/client.js');
    const { loadRemoteModel } = await import('./js/worker/remote-model.js');
    const client = new ComputeClient();
    const threads = await client.request('threads', []);
    const m = await loadRemoteModel(client, 'sprout');
    const f = await m.forward('Mia had a red kite. She flew the kite over the hill.', { attention: true });
    const a = await client.request('attention', [new Float32Array(6 * 64 * 64).map((_, i) => Math.sin(i)), new Float32Array(6 * 64 * 64).map((_, i) => Math.cos(i)),
      new Float32Array(6 * 64 * 64).map((_, i) => Math.sin(3 * i)), { T: 64, heads: 6, d: 64, causal: true }]);
    client.terminate();
    return { isolated: globalThis.crossOriginIsolated, threads, logits: Array.from(f.logits), attention: Array.from(f.attention), output: Array.from(a.output) };
  });
}

test('served isolated, the worker computes on every core; from a plain static host on one thread, with the same numbers', async () => {
  const { page, url, record } = b;
  const plain = await startServer({ port: 0, isolate: false });
  try {
    const threaded = await coreIn(page, url);
    const single = await coreIn(page, plain.url);
    assert.equal(threaded.isolated, true);
    assert.equal(threaded.threads, Math.min(8, await page.evaluate(() => navigator.hardwareConcurrency)));
    assert.equal(single.isolated, false);
    assert.equal(single.threads, 1);
    for (const k of ['logits', 'attention', 'output']) assert.deepEqual(threaded[k], single[k], `${k}: the same on every thread count`);
    assert.deepEqual(record.consoleErrors, []);
    assert.deepEqual(record.pageErrors, []);
  } finally {
    plain.server.close();
  }
});
