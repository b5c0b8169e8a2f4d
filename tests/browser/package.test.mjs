// Browser tests of lookback as a package: a consumer page bundled with esbuild (browser platform) from
// `lookback`, `lookback/widgets`, `lookback/client` and `lookback/remote-model`, with baseUrl pointing at a
// served copy of web/ (attention, a remote Sprout with load progress, streamed generation cancelled midway);
// the widget script embedded from another origin (127.0.0.1 serving web/ with CORS, the page on localhost),
// working through the blob worker wrapper and, where the page's CSP forbids blob workers, each widget saying
// why inside itself; the banner of a page opened from a file; custom-elements.json against the defined elements.
// Not the chapter or embed page tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { startServer } from '../../.scripts/serve.mjs';
import { manifest } from '../../.scripts/custom-elements.mjs';
import { open } from './harness.mjs';
import { TAGS, until, waitTexts } from './widget-helpers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const T = { timeout: 90000 };
let b;
let tmp;
const servers = [];
before(async () => {
  b = await open();
  tmp = mkdtempSync(join(tmpdir(), 'lookback-pkg-browser-'));
});
after(async () => {
  for (const s of servers) s.close();
  await b?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function serve(options) {
  const s = await startServer(options);
  servers.push(s.server);
  return s.url;
}

const APP = `
import { loadLookback } from 'lookback';
import { configure } from 'lookback/widgets';
import { ComputeClient } from 'lookback/client';
import { loadRemoteModel } from 'lookback/remote-model';

configure({ baseUrl: '/lookback/' });
const out = {};
try {
  const lb = await loadLookback({ baseUrl: '/lookback/' });
  out.weights = Array.from(lb.attention([1, 0], [1, 0, 0, 1], [10, 0, 0, 10], { T: 1, S: 2, d: 2 }).weights);
  const client = new ComputeClient(new URL('/lookback/js/worker/worker.js', location.href));
  const progress = [];
  const m = await loadRemoteModel(client, 'sprout', { onProgress: (p) => progress.push(p) });
  out.progress = progress.at(-1);
  out.reports = progress.length;
  const ac = new AbortController();
  const tokens = [];
  try {
    await m.generate('Once upon a time', { maxTokens: 60, temperature: 1, onToken: (t) => {
      tokens.push(t);
      if (tokens.length === 3) ac.abort();
    }, signal: ac.signal });
  } catch (e) {
    out.aborted = { name: e.name, code: e.code };
  }
  out.streamedBeforeAbort = tokens.length;
  const ids = [];
  const streamed = await m.generate('Once upon a time', { maxTokens: 8, temperature: 0.8, seed: 2, onToken: (t) => ids.push(t.id) });
  const once = await m.generate('Once upon a time', { maxTokens: 8, temperature: 0.8, seed: 2 });
  out.sameAsOnce = JSON.stringify(ids) === JSON.stringify(once.ids) && streamed.text === once.text && ids.length > 0;
} catch (e) {
  out.error = String(e.stack || e);
}
window.result = out;
`;

test('a page bundled with esbuild for the browser runs the API, a remote model and the widgets', T, async () => {
  const dir = join(tmp, 'bundled');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules/lookback'));  // as installed
  writeFileSync(join(dir, 'src/app.js'), APP);
  const r = await build({ entryPoints: [join(dir, 'src/app.js')], bundle: true, platform: 'browser', format: 'esm',
    outfile: join(dir, 'public/app.js'), absWorkingDir: dir, logLevel: 'silent', metafile: true });
  assert.deepEqual(r.errors, []);
  const bundled = readFileSync(join(dir, 'public/app.js'), 'utf8');
  assert.doesNotMatch(bundled, /["']node:/, 'the browser bundle imports nothing from Node');
  const inputs = Object.keys(r.metafile.inputs);
  assert.ok(inputs.some((f) => f.endsWith('web/js/widgets/qkv-plane.js')), 'the widgets are in the bundle');
  assert.ok(!inputs.some((f) => /node-host|api\/node\.js/.test(f)), `no Node entry bundled: ${inputs.join(', ')}`);
  symlinkSync(join(root, 'web'), join(dir, 'public/lookback'));
  writeFileSync(join(dir, 'public/index.html'), '<!doctype html><html lang="en"><title>bundled</title>'
    + '<script type="module" src="app.js"></script><lookback-qkv-plane query="[1.4, 0.7]"></lookback-qkv-plane></html>');
  const url = await serve({ root: join(dir, 'public') });
  const { page, record } = b;
  await page.goto(url);
  const out = await until(() => page.evaluate(() => window.result), (v) => !!v, 'the bundled page', 60000);
  assert.equal(out.error, undefined, out.error);
  const e = Math.exp(1 / Math.sqrt(2));
  assert.ok(Math.abs(out.weights[0] - e / (e + 1)) < 1e-5, JSON.stringify(out.weights));
  assert.ok(out.reports >= 2 && out.progress.loaded > 1e6 && out.progress.loaded === out.progress.total, JSON.stringify(out.progress));
  assert.deepEqual(out.aborted, { name: 'AbortError', code: 'LOOKBACK_ABORTED' });
  assert.equal(out.streamedBeforeAbort, 3);
  assert.equal(out.sameAsOnce, true);
  await waitTexts(page.locator('lookback-qkv-plane tr[data-key] .score'), ['2.87', '-0.77', '-2.52', '-0.56'], 'plane scores in the bundled page');
  assert.deepEqual(record.consoleErrors, []);
  assert.deepEqual(record.external, []);
});

function hostPage(widgets) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lesson</title>
  <script type="module" src="${widgets}lookback.js"></script></head><body>
  <lookback-qkv-plane query="[1.4, 0.7]"></lookback-qkv-plane>
  <lookback-mask-builder size="5" mask="causal"></lookback-mask-builder></body></html>`;
}

const hostCsp = (widgets, workers) => [
  "default-src 'self'", `script-src 'self' ${widgets} 'wasm-unsafe-eval'`, `worker-src ${workers}`,
  `connect-src 'self' ${widgets}`, "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
].join('; ');

// What README tells a lesson author to copy for the widgets without a model: lookback.js, js/ and build/.
const EMBED_PARTS = ['lookback.js', 'js', 'build'];

test('widgets embedded from another origin compute through a blob worker, from the documented files alone', T, async () => {
  const copy = join(tmp, 'asset-host');
  for (const part of EMBED_PARTS) cpSync(join(root, 'web', part), join(copy, part), { recursive: true });
  let bytes = 0;
  const count = (p) => (statSync(p).isDirectory() ? readdirSync(p).forEach((f) => count(join(p, f))) : (bytes += statSync(p).size));
  count(copy);
  console.log(`# the math widgets' files (${EMBED_PARTS.join(', ')}): ${(bytes / 1e6).toFixed(2)} MB`);
  const widgets = await serve({ root: copy, cors: true });  // http://127.0.0.1:port/
  const origin = widgets.slice(0, -1);
  const dir = join(tmp, 'host');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.html'), hostPage(widgets));
  const host = (await serve({ root: dir, csp: hostCsp(origin, `blob: ${origin}`) })).replace('127.0.0.1', 'localhost');
  const { page, record } = b;
  record.consoleErrors.length = 0;
  await page.goto(host);
  assert.notEqual(new URL(page.url()).origin, origin);
  await waitTexts(page.locator('lookback-qkv-plane tr[data-key] .score'), ['2.87', '-0.77', '-2.52', '-0.56'], 'plane scores from another origin');
  await waitTexts(page.locator('lookback-mask-builder table.grid tr[data-row="4"] button[aria-pressed="true"]'),
    ['0.20', '0.20', '0.20', '0.20', '0.20'], 'mask row from another origin');
  assert.deepEqual(record.consoleErrors, []);
  assert.deepEqual(record.external, []);
});

test('where the page forbids blob workers, each widget says why inside itself', T, async () => {
  const widgets = await serve({ cors: true });
  const origin = widgets.slice(0, -1);
  const dir = join(tmp, 'strict-host');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.html'), hostPage(widgets));
  const host = (await serve({ root: dir, csp: hostCsp(origin, `'self' ${origin}`) })).replace('127.0.0.1', 'localhost');
  const { page, record } = b;
  record.consoleErrors.length = 0;
  await page.goto(host);
  for (const tag of ['lookback-qkv-plane', 'lookback-mask-builder']) {
    const el = page.locator(tag);
    await until(() => el.getAttribute('data-error'), (v) => v !== null, `${tag} to show its error`, 20000);
    const text = await el.locator('.error').textContent();
    assert.match(text, /could not start its worker/);
    assert.match(text, /Access-Control-Allow-Origin.*worker-src blob: http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(await el.locator('.error').isVisible());
  }
  assert.ok(record.consoleErrors.every((m) => /worker|Content Security Policy/i.test(m)), record.consoleErrors.join('\n'));
  record.consoleErrors.length = 0;
});

test('opened from a file, the chapter and the embed page show how to serve them', T, async () => {
  const { page, record } = b;
  // the harness lets only localhost through; this page also lets the files of web/ load (file: is no network)
  const web = pathToFileURL(join(root, 'web/')).href;
  const fromWeb = (u) => u.href.startsWith(web);
  await page.route(fromWeb, (route) => route.continue());
  await page.goto(pathToFileURL(join(root, 'web/index.html')).href);
  const banner = page.locator('#lookback-file-banner');
  await banner.waitFor({ state: 'visible' });
  const text = await banner.textContent();
  assert.match(text, /opened from a file/);
  assert.ok(text.includes(`cd "${join(root, 'web')}/" && python3 -m http.server 8080`), text);
  await page.goto(pathToFileURL(join(root, 'web/embed.html')).href);
  await page.locator('#lookback-file-banner').waitFor({ state: 'visible', timeout: 10000 });
  assert.match(await page.locator('#lookback-file-banner').textContent(), /python3 -m http\.server 8080/);
  await page.unroute(fromWeb);
  record.consoleErrors.length = 0;  // a file page's blocked module loads are the browser's own errors
  for (const path of ['index.html', 'embed.html']) {
    await page.goto(new URL(path, b.url).href);
    await page.waitForTimeout(2500);  // past the embed page's two-second reveal
    assert.equal(await page.locator('#lookback-file-banner').isVisible(), false, `no banner on ${path} over http`);
  }
  assert.deepEqual(record.consoleErrors, []);
});

test('custom-elements.json describes every defined element and its attributes', T, async () => {
  const m = manifest();
  const declared = m.modules.flatMap((mod) => mod.declarations);
  const { page } = b;
  await page.goto(new URL('embed.html', b.url).href);
  const real = await page.evaluate((tags) => Object.fromEntries(tags.map((t) => [t, customElements.get(t)?.observedAttributes ?? null])),
    [...new Set([...TAGS, ...declared.map((d) => d.tagName)])]);
  for (const [tag, attributes] of Object.entries(real)) {
    const d = declared.find((x) => x.tagName === tag);
    assert.ok(d, `${tag} is in the manifest`);
    assert.ok(attributes, `${tag} is defined by lookback.js`);
    assert.deepEqual(d.attributes.map((a) => a.name), attributes, `${tag} attributes`);
    assert.ok(d.description.length > 20, `${tag} has a description`);
  }
});

test('a widget\'s model loading can be followed through the controller (the registry\'s progress events)', T, async () => {
  const { page, record } = b;
  await page.goto(new URL('embed.html', b.url).href);
  const r = await page.evaluate(() => new Promise((resolve) => {
    const seen = [];
    document.addEventListener('lookback-model-progress', (e) => { if (e.detail.name === 'current') seen.push(e.detail); });
    const detail = {
      op: 'useModel', args: ['sprout', 'Sprout, again'], key: 'progress-test', claimed: false,
      reply: (err, result) => resolve({ err: err && String(err), label: result?.label, seen }),
    };
    document.body.dispatchEvent(new CustomEvent('lookback-compute', { bubbles: true, composed: true, detail }));
  }));
  assert.equal(r.err, null);
  assert.equal(r.label, 'Sprout, again');
  const loading = r.seen.filter((p) => p.state === 'loading'), last = loading.at(-1);
  assert.ok(loading.length >= 2 && last.loaded > 1e6 && last.loaded === last.total, JSON.stringify(last));
  assert.equal(r.seen.at(-1).state, 'done');
  assert.deepEqual(record.consoleErrors, []);
});
