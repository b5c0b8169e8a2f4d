// Browser benchmark of the chapter (not a test: it prints a table and fails nothing). In headless Debian chromium
// on the chapter's own localhost server: time from navigation until the first widget is interactive, input-to-
// display latency of a drag on qkv-plane and of toggles on mask-builder (performance.mark at input, measure when
// the widget's display has been updated with the core's answer), how long input waits while the next-token
// widget generates, and the bytes transferred for the page without the model. The model widgets: time from
// scrolling to the first of them (the model not loaded yet) until it shows the model's numbers, and the
// explorer's update after a keystroke and after a head change. And how long the training widget's default run takes
// to grow an induction head.
// Run: node tests/bench/browser.bench.mjs [--runs N]
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBench } from './bench-browser.mjs';
import { measureLearning } from './learn.mjs';

const BENCH_DIR = fileURLToPath(new URL('../../.build/bench/', import.meta.url));
const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const TARGETS = { interactive: 1500, update: 16, block: 50, transfer: 1.5e6, model: 2000, explorer: 50 };

const { context, url, close } = await launchBench();

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
  return { n: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1] };
};

// Milliseconds from navigation start until a widget has rendered its first computed numbers, for a reader new to
// the page: the progress an earlier load saved (the chapter then offers to continue further down, and the widgets
// at the top, off screen, wait) is forgotten first.
async function timeToReady(page, address, tag) {
  if (page.url().startsWith('http')) await page.evaluate(() => localStorage.clear());
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
const top = [], plane = [], embed = [], windowReady = [];
for (let i = 0; i < RUNS; i++) {
  const t = await timeToReady(page, url, 'lookback-window');
  top.push(Math.min(...Object.values(t)));
  await page.waitForFunction(() => performance.getEntriesByName('lookback:complete:lookback-window').length > 0, null, { timeout: 20000 });
  windowReady.push(await page.evaluate(() => performance.getEntriesByName('lookback:complete:lookback-window')[0].startTime));
  plane.push((await timeToReady(page, `${url}#w-qkv-plane`, 'lookback-qkv-plane'))['lookback-qkv-plane']);
  embed.push((await timeToReady(page, `${url}embed.html#embed-qkv-plane`, 'lookback-qkv-plane'))['lookback-qkv-plane']);
}
const st = stats(top), sp = stats(plane), se = stats(embed);
rows.push(['first widget interactive, chapter from the top (ms)', st, TARGETS.interactive]);
rows.push(['window widget, both models\' top 5, from the top (ms)', stats(windowReady), TARGETS.model]);
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

// 4. generation in the next-token widget while the reader types (a key press every 30 ms): the delay from each
// key press to its handler, the gaps between animation frames and the tasks of 50 ms or more (Long Tasks API),
// while generating and, as the baseline on this machine, for the same typing without generation
await page.goto(`${url}#w-next-token`);
await page.waitForFunction(() => document.querySelector('lookback-next-token')?.dataset.state === 'ready');
await page.evaluate(() => {
  const g = { on: null, delays: { typing: [], generating: [] }, gaps: { typing: [], generating: [] },
    long: { typing: [], generating: [] }, scripts: { typing: [], generating: [] }, tokens: 0, runs: 0, ms: 0 };
  window.genBench = g;
  new PerformanceObserver((list) => { if (g.on) g.long[g.on].push(...list.getEntries().map((e) => e.duration)); }).observe({ type: 'longtask' });
  // frames of 50 ms or more: how much of each was the page's own script (the rest is rendering or waiting for a core)
  new PerformanceObserver((list) => {
    if (g.on) g.scripts[g.on].push(...list.getEntries().map((e) => e.scripts.reduce((a, x) => a + x.duration, 0)));
  }).observe({ type: 'long-animation-frame' });
  document.addEventListener('keydown', (e) => { if (g.on) g.delays[g.on].push(performance.now() - e.timeStamp); }, true);
  let last = 0;
  const frame = (t) => {
    if (g.on && last) g.gaps[g.on].push(t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
});
const nt = page.locator('lookback-next-token').first();
await nt.evaluate((w) => w.setAttribute('tokens', '120'));
await nt.locator('textarea').focus();
await page.evaluate(() => { window.genBench.on = 'typing'; });
for (const t0 = Date.now(); Date.now() - t0 < 4000;) await page.keyboard.type(' a', { delay: 30 });
await page.evaluate(() => { window.genBench.on = null; });
for (let seed = 1; seed <= 8 && (await page.evaluate(() => window.genBench.ms)) < 6000; seed++) {
  await nt.locator('input.seed').fill(String(seed));
  await nt.locator('textarea').focus();
  await page.evaluate(() => {
    const w = document.querySelector('lookback-next-token');
    const g = window.genBench;
    g.on = 'generating';
    const t0 = performance.now();
    g.done = w.generate().then(() => {
      g.on = null;
      g.ms += performance.now() - t0;
      g.runs++;
      g.tokens += w.generated.ids.length;
    });
  });
  while (await page.evaluate(() => window.genBench.on)) await page.keyboard.type(' a', { delay: 30 });
  await page.evaluate(() => window.genBench.done);
}
const gen = await page.evaluate(() => window.genBench);
for (const phase of ['generating', 'typing']) {
  const what = phase === 'typing' ? 'typing alone' : 'generating';
  rows.push([`${what}: key press to handler (ms)`, stats(gen.delays[phase]), TARGETS.block, 'max']);
  rows.push([`${what}: gap between animation frames (ms)`, stats(gen.gaps[phase]), TARGETS.block, 'max']);
}
const longest = (xs) => `${xs.length}${xs.length ? ` (longest ${Math.max(...xs).toFixed(0)} ms)` : ''}`;
const genNote = `generation: ${gen.tokens} tokens in ${gen.runs} runs, ${(gen.ms / 1000).toFixed(1)} s (${(gen.tokens / (gen.ms / 1000)).toFixed(0)} tokens/s); `
  + `tasks of 50 ms or more: ${longest(gen.long.generating)} while generating, ${longest(gen.long.typing)} while typing alone; `
  + `script time in frames of 50 ms or more: at most ${Math.max(0, ...gen.scripts.generating).toFixed(0)} ms while generating, `
  + `${Math.max(0, ...gen.scripts.typing).toFixed(0)} ms typing alone`;
await page.close();

// 5. the first model widget: a page of this origin with one explorer below the fold (so nothing has loaded a
// model), scrolled to it; from the scroll to its first computed display. Each run is a fresh document and worker.
const firstModel = [];
const p = await context.newPage();
const lesson = `${url}bench/explorer-below.html`;
await p.route(lesson, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title>
    <script type="module" src="../lookback.js"></script></head><body><div style="height: 3000px"></div>
    <lookback-explorer></lookback-explorer></body></html>` }));
for (let i = 0; i < RUNS; i++) {
  await p.goto('about:blank');
  await p.goto(lesson);
  await p.waitForFunction(() => customElements.get('lookback-explorer') && document.querySelector('lookback-explorer').hasAttribute('data-paused'));
  await p.waitForTimeout(300);
  firstModel.push(await p.evaluate(() => new Promise((resolve) => {
    const el = document.querySelector('lookback-explorer');
    const t0 = performance.now();
    el.addEventListener('lookback-ready', () => resolve(performance.now() - t0), { once: true });
    el.scrollIntoView({ block: 'start' });
  })));
}
rows.push(['first model widget (explorer) after scrolling to it (ms)', stats(firstModel), TARGETS.model]);

// 6. explorer updates: keystrokes in its text (each recomputed in the worker, the cache keeping the start), and
// head and layer changes (no new computation); input to the updated strip and table
const ex = p;
await ex.goto('about:blank');
await ex.goto(`${url}#w-explorer`);
await ex.waitForFunction(() => document.querySelector('#w-explorer')?.dataset.state === 'ready', null, { timeout: 20000 });
const area = ex.locator('#w-explorer textarea');
await area.click();
await ex.keyboard.press('End');
await ex.evaluate(() => performance.clearMeasures());
for (const ch of ' Then Tom ran home with the apple, and he gave it to his sister.') {
  await ex.keyboard.type(ch);
  await ex.waitForTimeout(80);   // a quick typist: about 12 keys a second
}
await ex.waitForTimeout(200);
rows.push(['explorer update after a keystroke (ms)', stats(await measures(ex, 'lookback:update:lookback-explorer')), TARGETS.explorer]);
await ex.evaluate(() => performance.clearMeasures());
for (let i = 0; i < 48; i++) {
  await ex.locator(`#w-explorer select.${i % 2 ? 'head' : 'layer'}`).selectOption({ index: (i * 5) % 6 });
  await ex.evaluate(() => new Promise(requestAnimationFrame));
}
await ex.waitForTimeout(100);
rows.push(['explorer update after a head or layer change (ms)', stats(await measures(ex, 'lookback:update:lookback-explorer')), TARGETS.explorer]);
await ex.close();

// 7. watch a head learn: the training widget's default run, from the press of Train (tests/bench/learn.mjs)
const learning = await measureLearning(context, url, 3);

// 8. bytes transferred (response bodies and headers), without web/models/
const chapterBytes = await bytesFor(url, true);
const embedBytes = await bytesFor(`${url}embed.html`, true);

const ms = (x) => x.toFixed(1).padStart(7);
console.log('\nlookback browser benchmark (headless chromium, localhost; %d runs for load times)\n', RUNS);
console.log(`${'measure'.padEnd(58)} ${'n'.padStart(4)} ${'median'.padStart(7)} ${'p95'.padStart(7)} ${'max'.padStart(7)}  target`);
for (const [name, s, target, judged = 'median'] of rows) {
  console.log(`${name.padEnd(58)} ${String(s.n).padStart(4)} ${ms(s.median)} ${ms(s.p95)} ${ms(s.max)}  < ${target} ${s[judged] < target ? 'met' : 'MISSED'} (${judged})`);
}
console.log(genNote);
console.log(learning.lines.join('\n'));
for (const [name, r] of [['chapter (index.html), scrolled to the end', chapterBytes], ['embed.html, scrolled to the end', embedBytes]]) {
  const mb = (r.total / 1e6).toFixed(3);
  console.log(`${`transfer, ${name} (MB)`.padEnd(58)} ${String(r.count).padStart(4)} ${mb.padStart(7)}${''.padStart(16)}  < 1.5 ${r.total < TARGETS.transfer ? 'met' : 'MISSED'}`);
  console.log(`${''.padEnd(60)}largest: ${r.biggest.join(', ')}`);
}

// The targets as JSON beside the core's (.build/bench/), for .scripts/bench.mjs to gather into
// tests/bench/results/latest.json.
const targets = [
  ...rows.map(([name, st, target, judged = 'median']) => ({ name: `${name.replace(/ \(ms\)$/, '')}, ${judged}`, value: st[judged], target, unit: ' ms', below: true, met: st[judged] < target })),
  ...[['chapter', chapterBytes], ['embed.html', embedBytes]].map(([name, r]) => ({ name: `transfer of ${name} without the models`, value: r.total / 1e6, target: TARGETS.transfer / 1e6, unit: ' MB', below: true, met: r.total < TARGETS.transfer })),
];
mkdirSync(BENCH_DIR, { recursive: true });
writeFileSync(`${BENCH_DIR}browser.json`, `${JSON.stringify({ date: new Date().toISOString(), runs: RUNS, targets }, null, 1)}\n`);

await close();
