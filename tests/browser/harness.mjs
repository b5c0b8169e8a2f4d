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

export async function open() {
  const { server, url } = await startServer({ port: 0 });
  const profile = mkdtempSync(join(tmpdir(), 'lookback-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    serviceWorkers: 'block',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
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
