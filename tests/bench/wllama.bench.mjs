// `npm run bench`: lookback against @wllama/wllama (llama.cpp compiled to WebAssembly, from its npm package's own
// .wasm files, served from this machine) on the same GGUF files, in one headless chromium page (bench-browser.mjs):
// random-weight llama GGUFs of the stories15M and stories42M shapes in Q8_0, F16 and Q4_K, written at bench time by
// the tests' GGUF writer (tests/js/gguf-writer.mjs; kept in .build/bench/gguf/, never committed), each side on 1
// and 2 threads. Decoding speed (128 greedy steps with the cache) and prefill of 128 tokens, rounds interleaved
// with the order rotating, medians; the greedy tokens of both on the same file are compared and printed. Writes
// .build/bench/wllama.json for bench-report.mjs. Not a test: the figures are reported against targets, never asserted.
// Run: node tests/bench/wllama.bench.mjs [--rounds N] [--decode-steps N] [--shapes stories15M,...] [--types Q8_0,...]
//      [--threads 1,2]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../../web/js/api/index.js';
import { modelGguf, rowType } from '../js/gguf-writer.mjs';
import { launchBench } from './bench-browser.mjs';
import { llamaConfig, SHAPES } from './decode.mjs';
import { median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const OUT = `${root}.build/bench/`;
const GGUF_DIR = `${OUT}gguf/`;
const WLLAMA = `${root}node_modules/@wllama/wllama/`;
const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const ROUNDS = Number(arg('--rounds', 5));
const STEPS = Number(arg('--decode-steps', 128));
const SHAPE_NAMES = arg('--shapes', 'stories15M,stories42M').split(',');
const TYPES = arg('--types', 'Q8_0,F16,Q4_K').split(',');
const THREADS = arg('--threads', '1,2').split(',').map(Number);
const TARGET = 1.5;        // lookback tok/s over wllama tok/s, every type, thread count and measure
const GREEDY = 32;         // greedy steps compared
const PART = 16 << 20;     // bytes per answer when the page fetches a GGUF
const load = () => os.loadavg().map((x) => +x.toFixed(2));

// The GGUF of a shape in a type, written once per version of the writer (its hash in the name).
async function ggufFile(shape, type) {
  const writer = readFileSync(`${root}tests/js/gguf-writer.mjs`);
  const tag = createHash('sha256').update(writer).digest('hex').slice(0, 8);
  const file = `${GGUF_DIR}${shape}-${type}-seed1-${tag}.gguf`;
  const config = llamaConfig(SHAPES[shape]);
  if (!existsSync(file)) {
    mkdirSync(GGUF_DIR, { recursive: true });
    const t0 = performance.now();
    // a module instance of its own writes the weights, so that its heap goes away with it
    const lb = await loadLookback({ wasmBinary: readFileSync(`${root}web/build/lookback-core.wasm`) });
    writeFileSync(file, modelGguf('llama', config, lb.randomWeights(config, { seed: 1 }), type));
    console.log(`wllama: wrote ${file.slice(root.length)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  return { file, name: file.slice(GGUF_DIR.length), config, bytes: readFileSync(file).length };
}

// Share of the matrices' values held in the file's type (Q4_K: rows that are not whole blocks of 256 are Q8_0).
function typeShare(config, type) {
  const { dim: d, hidden_dim: h, n_layers: L, vocab_size: V } = config;
  const mats = [[V, d], ...Array.from({ length: L }, () => [[d, d], [d, d], [d, d], [d, d], [h, d], [h, d], [d, h]]).flat()];
  const all = mats.reduce((n, [r, c]) => n + r * c, 0);
  return mats.filter(([, c]) => rowType(type, c) === type).reduce((n, [r, c]) => n + r * c, 0) / all;
}

// The page's own files and wllama's package, answered from disk with the headers of an isolated page.
const ISOLATED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin' };
const TYPES_BY_EXT = { '.js': 'text/javascript', '.html': 'text/html; charset=utf-8', '.wasm': 'application/wasm' };
async function routes(context, url) {
  const serve = (route, file) => route.fulfill({ status: 200, headers: { ...ISOLATED, 'content-type': TYPES_BY_EXT[extname(file)] ?? 'application/octet-stream' }, body: readFileSync(file) });
  await context.route(`${url}bench/wllama/**`, (route) => {
    const file = normalize(join(WLLAMA, decodeURIComponent(new URL(route.request().url()).pathname.slice('/bench/wllama/'.length))));
    return file.startsWith(WLLAMA) && existsSync(file) ? serve(route, file) : route.fulfill({ status: 404, headers: ISOLATED, body: 'not found' });
  });
  // a GGUF in parts of PART bytes (?part=i; the answer's x-parts header says how many): a body of 80 MB would not
  // fit the pipe between chromium and this process
  await context.route(`${url}bench/gguf/**`, (route) => {
    const u = new URL(route.request().url());
    const bytes = readFileSync(join(GGUF_DIR, decodeURIComponent(u.pathname.slice('/bench/gguf/'.length))));
    const i = Number(u.searchParams.get('part') ?? 0);
    return route.fulfill({ status: 200, headers: { ...ISOLATED, 'content-type': 'application/octet-stream', 'x-parts': String(Math.ceil(bytes.length / PART)),
      'access-control-expose-headers': 'x-parts' }, body: bytes.subarray(i * PART, (i + 1) * PART) });
  });
  for (const f of ['wllama-page.js', 'wllama-worker.js']) await context.route(`${url}bench/${f}`, (route) => serve(route, `${root}tests/bench/${f}`));
  await context.route(`${url}bench/wllama.html`, (route) => route.fulfill({ status: 200, headers: { ...ISOLATED, 'content-type': 'text/html; charset=utf-8' },
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lookback and wllama</title></head><body>'
      + '<script type="module">import * as bench from "./wllama-page.js"; window.bench = bench;</script></body></html>' }));
}

let opening = '';  // what the page was doing, named if it crashes
const same = (a, b) => {
  let n = 0;
  while (n < Math.min(a.length, b.length) && a[n] === b[n]) n++;
  return n;
};

async function benchFile(page, gguf, ggufUrl, type) {
  const sides = THREADS.flatMap((t) => ['lookback', 'wllama'].map((kind) => ({ name: `${kind} ${t}t`, kind, threads: t })));
  const info = {};
  for (const s of sides) {
    opening = `opening ${s.name} on ${gguf.name}`;
    info[s.name] = await page.evaluate((a) => window.bench.open(a), { ...s, url: ggufUrl, V: gguf.config.vocab_size, bos: gguf.config.bos_id, steps: STEPS });
  }
  // the same file, the same tokens: greedy steps after the decoding prompt, and the top 5 after a 128-token prompt
  const tokens = {};
  for (const s of sides) tokens[s.name] = await page.evaluate(([n, k]) => window.bench.tokens(n, k, 5), [s.name, GREEDY]);
  const agreement = THREADS.map((t) => {
    const a = tokens[`lookback ${t}t`], b = tokens[`wllama ${t}t`];
    return { threads: t, greedy_same: same(a.greedy, b.greedy), steps: GREEDY, lookback: a.greedy, wllama: b.greedy,
      greedy_ms_per_token: { lookback: a.greedy_ms_per_token, wllama: b.greedy_ms_per_token },
      top_lookback: a.top, top_wllama: b.top, top1_same: a.top[0].id === b.top[0].id };
  });
  const entries = sides.flatMap((s) => ['decode', 'prefill'].map((measure) => ({ side: s.name, measure })));
  for (const e of entries) await page.evaluate(([n, m]) => window.bench.time(n, m), [e.side, e.measure]);  // warm-up
  const samples = Object.fromEntries(entries.map((e) => [`${e.side}|${e.measure}`, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < entries.length; i++) {
      const e = entries[(i + r) % entries.length];
      samples[`${e.side}|${e.measure}`].push((await page.evaluate(([n, m]) => window.bench.time(n, m), [e.side, e.measure])).ms_per_token);
    }
  }
  for (const s of sides) await page.evaluate((n) => window.bench.close(n), s.name);
  const cells = entries.map((e) => {
    const ms = samples[`${e.side}|${e.measure}`];
    return { side: e.side, measure: e.measure, tok_s: 1000 / median(ms), samples_ms_per_token: ms };
  });
  return { file: gguf.name, type, bytes: gguf.bytes, type_share: typeShare(gguf.config, type), info, agreement, cells };
}

function targets(rows) {
  const out = [];
  for (const r of rows) {
    for (const t of THREADS) {
      for (const [measure, label] of [['decode', 'decode'], ['prefill', 'prefill 128']]) {
        const a = r.cells.find((c) => c.side === `lookback ${t}t` && c.measure === measure);
        const b = r.cells.find((c) => c.side === `wllama ${t}t` && c.measure === measure);
        const value = a.tok_s / b.tok_s;
        out.push({ name: `${label} ${r.shape} (random) ${r.type}, ${t} thread${t > 1 ? 's' : ''}: lookback vs wllama (${a.tok_s.toFixed(0)} / ${b.tok_s.toFixed(0)} tok/s)`,
          value, target: TARGET, unit: 'x', met: value >= TARGET });
      }
    }
  }
  return out;
}

function print(rows, load0, load1) {
  console.log(`\nlookback vs @wllama/wllama (llama.cpp in WebAssembly), headless chromium, same GGUF; tok/s from the median of ${ROUNDS} interleaved rounds`
    + `\n(decode: ${STEPS} greedy steps; prefill: one call on 128 tokens; each side in its own Worker, timed from the page)`);
  console.log('  file                                   threads   lookback decode   wllama decode   ratio   lookback prefill   wllama prefill   ratio');
  for (const r of rows) {
    for (const t of THREADS) {
      const c = (side, m) => r.cells.find((x) => x.side === `${side} ${t}t` && x.measure === m).tok_s;
      console.log(`  ${r.file.padEnd(38)} ${String(t).padStart(7)} ${c('lookback', 'decode').toFixed(0).padStart(17)} ${c('wllama', 'decode').toFixed(0).padStart(15)} `
        + `${(c('lookback', 'decode') / c('wllama', 'decode')).toFixed(2).padStart(6)}x ${c('lookback', 'prefill').toFixed(0).padStart(18)} ${c('wllama', 'prefill').toFixed(0).padStart(16)} `
        + `${(c('lookback', 'prefill') / c('wllama', 'prefill')).toFixed(2).padStart(6)}x`);
    }
    const held = r.info['lookback 1t'];
    console.log(`    ${r.type}: ${(100 * r.type_share).toFixed(0)}% of the matrices' values in ${r.type}${r.type_share < 1 ? ' (the rest Q8_0: rows that are not whole blocks of 256)' : ''}; lookback holds them as ${held.weights}; `
      + `threads: ${Object.entries(r.info).map(([n, i]) => `${n} ${i.threads}${i.multithread === false ? ' (one-thread wasm)' : i.multithread ? ' (multi-thread wasm)' : ''}`).join(', ')}`);
    for (const a of r.agreement) {
      console.log(`    ${a.threads} thread(s): greedy tokens of lookback and wllama agree on the first ${a.greedy_same} of ${a.steps}${a.greedy_same < a.steps ? ' (DISAGREE)' : ''}: `
        + `lookback ${a.lookback.slice(0, 8).join(' ')} ..., wllama ${a.wllama.slice(0, 8).join(' ')} ... `
        + `(ms per step of this check: lookback ${a.greedy_ms_per_token.lookback.toFixed(2)}, wllama through decode() and getLogits() ${a.greedy_ms_per_token.wllama.toFixed(2)})`);
      const top = (xs) => xs.map((x) => `${x.id} ${x.p.toFixed(4)}`).join(', ');
      console.log(`      top 5 after a 128-token prompt: lookback ${top(a.top_lookback)}; wllama ${top(a.top_wllama)}${a.top1_same ? '' : ' (DISAGREE)'}`);
    }
  }
  console.log(`  load average at start ${load0.join(' ')}, at end ${load1.join(' ')} (1, 5, 15 min; ${os.cpus().length} cores)`);
}

const load0 = load();
const started = new Date();
const { context, url, close } = await launchBench();
const rows = [];
try {
  await routes(context, url);
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log(`wllama: page ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => console.log(`wllama: page error: ${e.message}`));
  page.on('crash', () => console.log(`wllama: the page crashed (${opening})`));
  await page.goto(`${url}bench/wllama.html`);
  await page.waitForFunction(() => window.bench);
  if (!(await page.evaluate(() => globalThis.crossOriginIsolated))) throw new Error('wllama: the page is not cross-origin isolated (2 threads need it)');
  for (const shape of SHAPE_NAMES) {
    for (const type of TYPES) {
      const gguf = await ggufFile(shape, type);
      const row = await benchFile(page, gguf, `${url}bench/gguf/${gguf.name}`, type);
      rows.push({ shape, ...row });
      console.log(`wllama: ${gguf.name}: ${row.cells.map((c) => `${c.side} ${c.measure} ${c.tok_s.toFixed(0)}`).join(', ')} tok/s`);
    }
  }
} finally {
  await close();
}
const load1 = load();
print(rows, load0, load1);
const t = targets(rows);
for (const x of t) console.log(`  ${x.met ? 'MET    ' : 'MISSED '} ${x.name}: ${x.value.toFixed(2)}x (target >= ${x.target}x)`);
mkdirSync(OUT, { recursive: true });
writeFileSync(`${OUT}wllama.json`, `${JSON.stringify({ date: started.toISOString(), load_average: { start: load0, end: load1 }, rounds: ROUNDS, decode_steps: STEPS,
  wllama: JSON.parse(readFileSync(`${WLLAMA}package.json`, 'utf8')).version, rows, targets: t }, null, 1)}\n`);
console.log(`\nwllama: wrote ${OUT}wllama.json`);
