// Browser benchmark of the chapter (not a test: it prints a table and fails nothing). In headless Debian chromium
// on the chapter's own localhost server: time from navigation until the first widget is interactive, input-to-
// display latency of a drag on qkv-plane and of toggles on mask-builder (performance.mark at input, measure when
// the widget's display has been updated with the core's answer), and the bytes transferred for the page without
// the model; and how long the training widget's default run takes to grow an induction head.
// Run: node tests/bench/browser.mjs [--runs N]
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../.scripts/serve.mjs';

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const TARGETS = { interactive: 1500, update: 16, transfer: 1.5e6 };

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

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
  return { n: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1] };
};

// Milliseconds from navigation start until a widget has rendered its first computed numbers.
async function timeToReady(page, address, tag) {
  await page.goto('about:blank');
  await page.goto(address);
  await page.waitForFunction((t) => performance.getEntriesByName(`lookback:ready:${t}`).length > 0, tag, { timeout: 20000 });
  return page.evaluate(() => {
    const ready = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('lookback:ready:'));
    return Object.fromEntries(ready.map((m) => [m.name.slice('lookback:ready:'.length), m.startTime]));
  });
}

async function measures(page, name) {
  return page.evaluate((n) => performance.getEntriesByName(n).map((m) => m.duration), name);
}

async function bytesFor(address, scroll) {
  const page = await context.newPage();
  const seen = new Map();
  page.on('requestfinished', async (req) => {
    const s = await req.sizes().catch(() => null);
    if (s) seen.set(req.url(), s.responseBodySize + s.responseHeadersSize);
  });
  await page.goto(address);
  await page.waitForLoadState('networkidle');
  if (scroll) {
    for (let y = 0; y < (await page.evaluate(() => document.documentElement.scrollHeight)); y += 700) {
      await page.evaluate((v) => scrollTo(0, v), y);
      await page.waitForTimeout(60);
    }
    await page.waitForLoadState('networkidle');
  }
  await page.waitForTimeout(300);
  await page.close();
  const all = [...seen.entries()].filter(([u]) => !new URL(u).pathname.startsWith('/models/'));
  const total = all.reduce((a, [, n]) => a + n, 0);
  const biggest = all.sort((a, b) => b[1] - a[1]).slice(0, 4).map(([u, n]) => `${new URL(u).pathname} ${(n / 1e3).toFixed(0)} kB`);
  return { total, count: all.length, biggest };
}

const rows = [];
const page = await context.newPage();

// 1. time to the first interactive widget: the chapter from the top, and opened at the qkv-plane (core-computed)
const top = [], plane = [], embed = [];
for (let i = 0; i < RUNS; i++) {
  const t = await timeToReady(page, url, 'lookback-window');
  top.push(Math.min(...Object.values(t)));
  plane.push((await timeToReady(page, `${url}#w-qkv-plane`, 'lookback-qkv-plane'))['lookback-qkv-plane']);
  embed.push((await timeToReady(page, `${url}embed.html`, 'lookback-qkv-plane'))['lookback-qkv-plane']);
}
const st = stats(top), sp = stats(plane), se = stats(embed);
rows.push(['first widget interactive, chapter from the top (ms)', st, TARGETS.interactive]);
rows.push(['qkv-plane computed by the core, chapter opened at the plane (ms)', sp, TARGETS.interactive]);
rows.push(['qkv-plane computed by the core, embed.html (ms)', se, TARGETS.interactive]);

// 2. drag on qkv-plane: one pointer move per frame; latency from the pointermove to the updated table and canvas
await page.goto(`${url}#w-qkv-plane`);
await page.waitForFunction(() => document.querySelector('lookback-qkv-plane')?.dataset.state === 'ready');
const canvas = page.locator('lookback-qkv-plane canvas');
await canvas.scrollIntoViewIfNeeded();
const box = await canvas.boundingBox();
const at = (x, y) => [box.x + box.width / 2 + (x / 3.5) * (box.width / 2), box.y + box.height / 2 - (y / 3.5) * (box.height / 2)];
await page.evaluate(() => performance.clearMeasures());
await page.mouse.move(...at(1.4, 0.7));
await page.mouse.down();
for (let i = 0; i <= 120; i++) {
  const a = (i / 120) * 2 * Math.PI;
  await page.mouse.move(...at(1.6 * Math.cos(a), 1.6 * Math.sin(a)));
  await page.evaluate(() => new Promise(requestAnimationFrame));
}
await page.mouse.up();
await page.waitForTimeout(100);
rows.push(['qkv-plane drag: input to display (ms)', stats(await measures(page, 'lookback:update:lookback-qkv-plane')), TARGETS.update]);

// 3. mask-builder toggles: click a cell, wait a frame, repeat
await page.goto(`${url}#w-mask-builder`);
await page.waitForFunction(() => document.querySelector('lookback-mask-builder')?.dataset.state === 'ready');
await page.evaluate(() => performance.clearMeasures());
const cells = ['[data-i="0"][data-j="3"]', '[data-i="1"][data-j="2"]', '[data-i="2"][data-j="0"]', '[data-i="3"][data-j="3"]'];
for (let i = 0; i < 60; i++) {
  await page.locator(`lookback-mask-builder table.grid button${cells[i % cells.length]}`).click();
  await page.evaluate(() => new Promise(requestAnimationFrame));
}
await page.waitForTimeout(100);
rows.push(['mask-builder toggle: input to display (ms)', stats(await measures(page, 'lookback:update:lookback-mask-builder')), TARGETS.update]);
await page.close();

// 4. watch a head learn: the training widget's default run (induction task), from the press of Train until the best
// head's induction score passes 0.5 (from below 0.1 at step 0) with the repeated half's held-out loss at least
// 2 nats below its value at step 0; also how far that loss fell from its plateau (the last snapshot with every
// induction score below 0.1). Median of TRAIN_RUNS runs, each given up to 90 s.
const TRAIN_RUNS = 3;
const learn = [];
for (let i = 0; i < TRAIN_RUNS; i++) {
  const p = await context.newPage();
  await p.goto(`${url}#watch-learn`);
  const w = p.locator('lookback-training');
  await w.scrollIntoViewIfNeeded();
  await p.waitForFunction(() => document.querySelector('lookback-training')?.dataset.state === 'ready', null, { timeout: 30000 });
  const t0 = Date.now();
  await w.locator('button[name=play]').click();
  let r = null;
  while (Date.now() - t0 < 90000) {
    r = await w.evaluate((el) => {
      const s = el.snapshots;
      const bestInd = (x) => Math.max(...x.induction);
      let plateau = s[0];
      for (const x of s) if (bestInd(x) < 0.1) plateau = x;
      const last = s.at(-1);
      return { step: last.step, start: bestInd(s[0]), ind: bestInd(last), loss0: s[0].task, loss: last.task,
        plateauLoss: plateau.task, plateauStep: plateau.step };
    });
    r.seconds = (Date.now() - t0) / 1000;
    if (r.start < 0.1 && r.ind > 0.5 && r.loss0 - r.loss >= 2) break;
    await p.waitForTimeout(250);
  }
  learn.push(r);
  await p.close();
}
const met = learn.filter((r) => r.start < 0.1 && r.ind > 0.5 && r.loss0 - r.loss >= 2);
const secs = learn.map((r) => (met.includes(r) ? r.seconds : Infinity));

// 5. bytes transferred (response bodies and headers), without web/models/
const chapterBytes = await bytesFor(url, true);
const embedBytes = await bytesFor(`${url}embed.html`, true);

const ms = (x) => x.toFixed(1).padStart(7);
console.log('\nlookback browser benchmark (headless chromium, localhost; %d runs for load times)\n', RUNS);
console.log(`${'measure'.padEnd(58)} ${'n'.padStart(4)} ${'median'.padStart(7)} ${'p95'.padStart(7)} ${'max'.padStart(7)}  target`);
for (const [name, s, target] of rows) {
  console.log(`${name.padEnd(58)} ${String(s.n).padStart(4)} ${ms(s.median)} ${ms(s.p95)} ${ms(s.max)}  < ${target} ${s.median < target ? 'met (median)' : 'MISSED (median)'}`);
}
console.log(`${'watch a head learn: train pressed to induction > 0.5, loss -2 (s)'.padEnd(58)} ${String(TRAIN_RUNS).padStart(4)} ${ms(stats(secs).median)}${''.padStart(16)}  < 60 ${stats(secs).median < 60 ? 'met (median)' : 'MISSED (median)'}`);
for (const r of learn) {
  console.log(`${''.padEnd(60)}${r.seconds.toFixed(1)} s, step ${r.step}: best induction ${r.start.toFixed(2)} -> ${r.ind.toFixed(2)}; repeated half ${r.loss0.toFixed(2)} -> ${r.loss.toFixed(2)} nats (plateau ${r.plateauLoss.toFixed(2)} at step ${r.plateauStep})`);
}
for (const [name, r] of [['chapter (index.html), scrolled to the end', chapterBytes], ['embed.html, scrolled to the end', embedBytes]]) {
  const mb = (r.total / 1e6).toFixed(3);
  console.log(`${`transfer, ${name} (MB)`.padEnd(58)} ${String(r.count).padStart(4)} ${mb.padStart(7)}${''.padStart(16)}  < 1.5 ${r.total < TARGETS.transfer ? 'met' : 'MISSED'}`);
  console.log(`${''.padEnd(60)}largest: ${r.biggest.join(', ')}`);
}

await context.close();
server.close();
rmSync(profile, { recursive: true, force: true });
