// The browser of the benchmarks: the chapter's own server on a free localhost port and headless Debian chromium
// in a fresh profile, every request off localhost blocked. Used by browser.bench.mjs and learn.mjs; not the browser
// tests' harness (tests/browser/harness.mjs records errors and fails on them; this only measures).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../.scripts/serve.mjs';

/** { context, url, close() } */
export async function launchBench() {
  const { server, url } = await startServer({ port: 0 });
  const profile = mkdtempSync(join(tmpdir(), 'lookback-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1280, height: 900 },
  });
  const local = /^(https?):\/\/127\.0\.0\.1(:\d+)?\//;
  await context.route('**/*', (r) => (local.test(r.request().url()) ? r.continue() : r.abort('blockedbyclient')));
  return {
    context, url,
    async close() {
      await context.close();
      server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
