// Shared set-up for browser tests: the chapter's own server (strict CSP) on 127.0.0.1, headless Debian
// chromium through playwright-core, every non-localhost request aborted and recorded, console errors recorded.
// Not a test: test files call open() and check what it records.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../.scripts/serve.mjs';

export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

const LOCAL = /^(https?|wss?):\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

// `options`: more launch options for the browser context (e.g. a phone: { viewport, isMobile: true, hasTouch: true }).
export async function open(options = {}) {
  const { server, url } = await startServer({ port: 0 });
  const profile = mkdtempSync(join(tmpdir(), 'lookback-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    serviceWorkers: 'block',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    ...options,
  });
  const record = { external: [], consoleErrors: [], pageErrors: [] };
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (LOCAL.test(u) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    record.external.push(u);
    return route.abort('blockedbyclient');
  });
  const watch = (page) => {
    page.on('console', (m) => { if (m.type() === 'error') record.consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => record.pageErrors.push(String(e)));
    page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') record.consoleErrors.push(`worker: ${m.text()}`); }));
  };
  context.on('page', watch);
  const page = context.pages()[0] || (await context.newPage());
  watch(page);
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    url, context, page, record,
    async close() {
      await context.close();
      server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// The chapter opened at the desktop size the page tests read it at (1280 x 900): what open() returns, on the page.
export async function openChapter(options = {}) {
  const b = await open(options);
  await b.page.setViewportSize({ width: 1280, height: 900 });
  await b.page.goto(b.url);
  return b;
}

// Runs axe-core (from node_modules) on the page and returns its violations. The script is served from the page's
// own origin through a route, since the strict CSP refuses inline scripts (page.addScriptTag({path}) is inline).
const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));
export async function axeViolations(page, baseUrl, { impacts = ['serious', 'critical'] } = {}) {
  const axeUrl = new URL('__tests__/axe.min.js', baseUrl).href;
  await page.route(axeUrl, (route) => route.fulfill({ path: AXE, contentType: 'text/javascript; charset=utf-8' }));
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ url: axeUrl });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
  return found.filter((v) => impacts.includes(v.impact));
}

// Reads a PNG's signature and IHDR size from its bytes.
export function pngInfo(bytes) {
  const b = Buffer.from(bytes);
  const signature = b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  return { signature, chunk: b.subarray(12, 16).toString('latin1'), width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}
