// A consumer page built from the packed tarball with each bundler a lesson author may use (Vite, webpack,
// Rollup), as README's quick start says: the served parts copied by `npx lookback assets`, configure({ baseUrl })
// and loadLookback({ baseUrl }) pointing at them, one math widget, one model widget (the explorer, which also
// reads the model card) and an API call. Each build must print no warning about lookback's own files, and each
// built page, on a localhost server, must compute every widget and the API call with no console error, no failed
// request and no request outside localhost or outside the page's own files and the copied folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../.scripts/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const T = { timeout: 300_000 };
const BASE = '/lookback/';
let dir, browser;

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

const PAGE = (script) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a lesson</title></head>
<body>
<lookback-qkv-plane query="[1.4, 0.7]"></lookback-qkv-plane>
<lookback-explorer example="pronoun"></lookback-explorer>
<output id="api">computing</output>
${script}
</body></html>
`;

// The consumer's own code: what README's bundler quick start shows, and one API call.
const MAIN = `import { loadLookback } from 'lookback';
import { configure } from 'lookback/widgets';
configure({ baseUrl: '${BASE}' });
const lb = await loadLookback({ baseUrl: '${BASE}' });
const { weights } = lb.attention([1, 0], [1, 0, 0, 1], [10, 0, 0, 10], { T: 1, S: 2, d: 2 });
document.getElementById('api').textContent = Array.from(weights, (w) => w.toFixed(4)).join(' ');
`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'lookback-bundlers-'));
  const out = sh('npm', ['pack', '--json', '--pack-destination', dir], root);
  const [packed] = JSON.parse(out.slice(out.indexOf('[')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'lesson', private: true, type: 'module' }));
  sh('npm', ['install', '--offline', '--ignore-scripts', `./${packed.filename}`], dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/main.js'), MAIN);
});

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Warnings that name one of lookback's files.
const ours = (warnings) => warnings.map(String).filter((w) => /node_modules[\\/]lookback[\\/]|lookback[\\/]web[\\/]/.test(w));

async function viteBuild(out) {
  const { build } = await import('vite');
  const warnings = [];
  const logger = { info() {}, warn: (m) => warnings.push(m), warnOnce: (m) => warnings.push(m), error: (m) => warnings.push(m),
    clearScreen() {}, hasErrorLogged: () => false, hasWarned: false };
  writeFileSync(join(dir, 'index.html'), PAGE('<script type="module" src="./src/main.js"></script>'));
  await build({ root: dir, configFile: false, logLevel: 'warn', customLogger: logger, publicDir: false,
    build: { outDir: out, emptyOutDir: true, reportCompressedSize: false } });
  return warnings;
}

async function webpackBuild(out) {
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) => webpack({
    mode: 'production', context: dir, entry: './src/main.js', target: 'web', performance: { hints: false },
    output: { path: out, filename: 'main.js', publicPath: 'auto', clean: true },
  }, (err, s) => (err ? reject(err) : resolve(s))));
  const info = stats.toJson({ all: false, warnings: true, errors: true, moduleTrace: true });
  assert.deepEqual(info.errors, [], 'webpack errors');
  writeFileSync(join(out, 'index.html'), PAGE('<script src="main.js"></script>'));
  return info.warnings.map((w) => `${w.moduleName ?? ''} ${w.moduleIdentifier ?? ''}: ${w.message}`);
}

async function rollupBuild(out) {
  const { rollup } = await import('rollup');
  const { nodeResolve } = await import('@rollup/plugin-node-resolve');
  const warnings = [];
  const bundle = await rollup({ input: join(dir, 'src/main.js'), plugins: [nodeResolve({ browser: true })],
    onwarn: (w) => warnings.push(`${w.id ?? w.loc?.file ?? ''}: ${w.message}`) });
  await bundle.write({ dir: out, format: 'es', entryFileNames: 'main.js' });
  await bundle.close();
  writeFileSync(join(out, 'index.html'), PAGE('<script type="module" src="main.js"></script>'));
  return warnings;
}

async function loadPage(site) {
  const { server, url } = await startServer({ port: 0, root: site });
  browser ??= await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update'] });
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const seen = { requests: [], failed: [], errors: [] };
  await context.route('**/*', (route) => {
    const u = route.request().url();
    seen.requests.push(u);
    return u.startsWith(url) || u.startsWith('blob:') || u.startsWith('data:') ? route.continue() : route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') seen.errors.push(`worker: ${m.text()}`); }));
  page.on('response', (r) => { if (r.status() >= 400) seen.failed.push(`${r.status()} ${r.url()}`); });
  try {
    await page.goto(url);
    const ready = async (tag) => {
      await page.locator(tag).scrollIntoViewIfNeeded();
      await page.waitForFunction((t) => ['ready', 'error'].includes(document.querySelector(t)?.dataset.state), tag, { timeout: 60_000 });
      return page.evaluate((t) => ({ state: document.querySelector(t).dataset.state, error: document.querySelector(t).dataset.error ?? null,
        text: document.querySelector(t).shadowRoot?.textContent ?? '' }), tag);
    };
    const plane = await ready('lookback-qkv-plane');
    const explorer = await ready('lookback-explorer');
    await page.waitForFunction(() => document.getElementById('api').textContent !== 'computing', null, { timeout: 60_000 });
    const api = await page.locator('#api').textContent();
    return { url, plane, explorer, api, seen };
  } finally {
    await context.close();
    server.close();
  }
}

for (const [name, bundle] of [['Vite', viteBuild], ['webpack', webpackBuild], ['Rollup', rollupBuild]]) {
  test(`${name}: a page bundled from the tarball computes every widget and the API under baseUrl, with no warning from lookback`, T, async () => {
    const site = join(dir, `dist-${name.toLowerCase()}`);
    const warnings = await bundle(site);
    assert.deepEqual(ours(warnings), [], `${name} warned about lookback's files`);
    const copied = sh('npx', ['--offline', 'lookback', 'assets', join(site, 'lookback'), '--models', 'sprout,window'], dir);
    assert.match(copied, /models\/sprout/);
    const r = await loadPage(site);
    assert.equal(r.plane.state, 'ready', `qkv-plane: ${r.plane.error}`);
    assert.equal(r.explorer.state, 'ready', `explorer: ${r.explorer.error}`);
    assert.match(r.explorer.text, /puts \d\.\d\d of its weight on/, 'the explorer shows the model\'s weights');
    assert.match(r.explorer.text, /Measured over held-out texts \(model card\)/, 'the explorer read the model card');
    assert.equal(r.api, '0.6698 0.3302', 'softmax of the scaled scores [1, 0] / sqrt(2)');
    assert.deepEqual(r.seen.failed, []);
    assert.deepEqual(r.seen.errors, []);
    const outside = r.seen.requests.filter((u) => !u.startsWith('blob:') && !u.startsWith('data:'))
      .map((u) => new URL(u)).filter((u) => u.origin !== new URL(r.url).origin
        || !(u.pathname.startsWith(BASE) || /^\/([\w.-]+\.(js|html)|assets\/[\w.-]+\.js)?$/.test(u.pathname)));
    assert.deepEqual(outside.map(String), [], 'every request is the page, its bundle or under baseUrl');
  });
}

test('lookback assets copies exactly the served parts and says which baseUrl to use', T, () => {
  const target = join(dir, 'public', 'lookback');
  const out = sh('npx', ['--offline', 'lookback', 'assets', target, '--models', 'window'], dir);
  const listing = spawnSync('find', ['.', '-type', 'f'], { cwd: target, encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((f) => f.slice(2)).sort();
  assert.ok(listing.includes('lookback.js') && listing.includes('js/worker/worker.js') && listing.includes('build/lookback-core.wasm'), listing.join(' '));
  assert.ok(listing.includes('build/source/wasm/src/kernels/attention.cpp'), 'the code walk\'s source');
  assert.ok(listing.includes('vendor/highlight/core.js'), 'the code walk\'s highlighter');
  assert.ok(listing.includes('models/window/config.json'), 'the model asked for');
  const unwanted = listing.filter((f) => /^models\/(sprout|stories260K)\/|^js\/cli\/|^build\/node\/|\.d\.ts$|^(index|embed)\.html$|^css\/|^vendor\/katex\//.test(f));
  assert.deepEqual(unwanted, [], 'nothing a page does not fetch');
  assert.match(out, /copied models\/window/);
  assert.match(out, /baseUrl: '\/lookback\/'/);
  const bad = spawnSync('npx', ['--offline', 'lookback', 'assets', join(dir, 'x'), '--models', 'nope'], { cwd: dir, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /no bundled model named nope/);
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules/lookback/package.json'), 'utf8'));
  assert.equal(pkg.name, 'lookback');
});
