// `npm run bench`: causal attention (T = 64, 256, 512; H = 6; D = 32, 64) and a QKV-shaped GEMM (M = 1, 8,
// 64, 256, 512; K = 192, 384, N = 3K) on lookback (public JS API, and its kernels alone), onnxruntime-web (wasm, 1 thread),
// TensorFlow.js wasm (SIMD, 1 thread) and plain JS, against a measured WebAssembly SIMD128 peak (the GEMM also with
// B kept resident in each of the three libraries: backends.mjs setupResident); then the model
// rows (model.mjs: a forward pass and a decoding step of Sprout and stories260K) and the model-level rows
// against llama2.c's run.c in WebAssembly (decode.mjs: load, decode tok/s, prefill 128/256, for Sprout,
// stories260K and random-weight stories15M/42M/110M shapes, in f32, f16, q8 and q4 weights). Backends are
// interleaved round by round (the order rotates) and medians reported, so machine load affects all alike.
// Every output is checked against a float64 reference; a wrong backend makes the run fail (exit 1).
// Prints one table per case and writes .build/bench/results.json. A benchmark, not a test.
//
// Options: --rounds N (15)  --min-sample-ms X (10: calls per sample are batched up to this)
//          --only attention|gemm|model|decode  --decode-rounds N (3)  --no-decode
//          --case attention:T:D | gemm:T:K (repeatable)  --backends a,b,...  --no-kernel  --json PATH
//          --tolerance X (1e-4)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { setupLookback, setupLookbackKernels, setupOrt, setupPlainJs, setupResident, setupTfjs, thdToHtd } from './backends.mjs';
import { buildKernelModule } from './build-kernels.mjs';
import { betweenCoreSpeeds, describeCores } from './cores.mjs';
import { benchDecode, printDecode } from './decode.mjs';
import { benchModels, printModels } from './model.mjs';
import { pairedSpeedup } from './paired.mjs';
import { loadPeak, PEAK_ACCUMULATORS } from './peak.mjs';
import { attentionRef, gemmRef, maxRelError } from './reference.mjs';
import { cpuMs, median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_TOLERANCE = 1e-4;  // max |x - ref| / max |ref|; float32 results sit near 1e-6

// ---- options ----------------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const values = (name) => argv.flatMap((a, i) => (a === name && i + 1 < argv.length ? [argv[i + 1]] : []));
const ROUNDS = Number(value('--rounds', 15));
const MIN_SAMPLE_MS = Number(value('--min-sample-ms', 10));
const ONLY = value('--only', null);
const JSON_PATH = value('--json', `${root}.build/bench/results.json`);
const WANT = value('--backends', null)?.split(',');
const TOLERANCE = Number(value('--tolerance', DEFAULT_TOLERANCE));

const HEADS = 6;
const THREADS = Math.min(8, os.availableParallelism());  // what loadLookback({ threads: 'auto' }) uses here
let cases = [];
for (const T of [64, 256, 512]) for (const D of [32, 64]) cases.push({ kind: 'attention', T, H: HEADS, D });
for (const K of [192, 384]) for (const T of [1, 8, 64, 256, 512]) cases.push({ kind: 'gemm', M: T, N: 3 * K, K });
if (values('--case').length) {
  cases = values('--case').map((s) => {
    const [kind, a, b] = s.split(':');
    return kind === 'gemm' ? { kind, M: +a, N: 3 * +b, K: +b } : { kind: 'attention', T: +a, H: HEADS, D: +b };
  });
}
if (ONLY) cases = cases.filter((c) => c.kind === ONLY);
const RUN_MODELS = (!ONLY || ONLY === 'model') && !values('--case').length;
const RUN_DECODE = (!ONLY || ONLY === 'decode') && !flag('--no-decode');  // also with --case: kernel rows beside
const DECODE_ROUNDS = Number(value('--decode-rounds', 3));

// ---- helpers ----------------------------------------------------------------------------------------------
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/).slice(0, 3).map(Number);
function rng(seed) {  // mulberry32, uniform in [-1, 1)
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 31 - 1;
  };
}
const randoms = (n, r) => Float32Array.from({ length: n }, r);
const call = (f) => {
  const r = f();
  return r && typeof r.then === 'function' ? r : null;
};
// ms per call, wall clock and this process's CPU time (which other processes' load inflates less)
async function timeCalls(run, reps) {
  const c0 = cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) {
    const p = call(run);
    if (p) await p;
  }
  return { wall: (performance.now() - t0) / reps, cpu: (cpuMs() - c0) / reps };
}
// Warm-up (at least 2 calls and 50 ms, at most 20 calls), then the number of calls that fill one sample.
async function warmAndCalibrate(run) {
  let calls = 0;
  const t0 = performance.now();
  while (calls < 2 || (performance.now() - t0 < 50 && calls < 20)) {
    await timeCalls(run, 1);
    calls++;
  }
  const one = (await timeCalls(run, 1)).wall;
  return Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(one, 1e-3)));
}
// rounds x entries, the order rotating each round; returns each entry's per-call samples (ms), wall and cpu
async function interleave(entries) {
  const samples = entries.map(() => ({ wall: [], cpu: [] }));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < entries.length; i++) {
      const j = (i + r) % entries.length;
      const t = await timeCalls(entries[j].run, entries[j].reps);
      samples[j].wall.push(t.wall);
      samples[j].cpu.push(t.cpu);
    }
  }
  return samples;
}

function prepare(c, r) {
  if (c.kind === 'attention') {
    const { H, T, D } = c;
    const n = H * T * D;
    const q = randoms(n, r), k = randoms(n, r), v = randoms(n, r);
    const toThd = (x) => {  // [H,T,D] -> [T,H,D], the layout of lookback's API
      const y = new Float32Array(n);
      for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) y.set(x.subarray((h * T + t) * D, (h * T + t + 1) * D), (t * H + h) * D);
      return y;
    };
    const maskAdd = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) maskAdd[i * T + j] = -1e9;
    return {
      ...c, q, k, v, qT: toThd(q), kT: toThd(k), vT: toThd(v), maskAdd,
      ref: attentionRef(q, k, v, H, T, D),
      flops: 4 * H * D * (T * (T + 1)) / 2,  // QKᵀ and P·V over the visible (causal) pairs
      label: `causal attention  T=${T} H=${H} D=${D}`,
    };
  }
  const { M, N, K } = c;
  const a = randoms(M * K, r), b = randoms(K * N, r);
  return { ...c, a, b, ref: gemmRef(a, b, M, N, K), flops: 2 * M * N * K, label: `gemm  M=${M} N=${N} K=${K}` };
}

// ---- peak -------------------------------------------------------------------------------------------------
// One call of the peak loop sized to about a sample: { run, flops } (flops per call).
async function peakRunner(acc) {
  const p = await loadPeak(acc);
  p.run(1000);
  const t0 = performance.now();
  p.run(100000);
  const perIter = (performance.now() - t0) / 100000;
  const iters = Math.max(1000, Math.round(MIN_SAMPLE_MS / perIter));
  return { acc, run: () => p.run(iters), reps: 1, flops: iters * p.flopsPerIter };
}

// Every accumulator count, interleaved; the best median is the peak.
async function measurePeak() {
  const entries = [];
  for (const acc of PEAK_ACCUMULATORS) entries.push(await peakRunner(acc));
  for (const e of entries) await timeCalls(e.run, 3);
  const samples = await interleave(entries);
  const variants = entries.map((e, i) => {
    const ms = median(samples[i].wall), cpu = median(samples[i].cpu);
    return { accumulators: e.acc, median_ms: ms, gflops: e.flops / ms / 1e6, cpu_gflops: e.flops / cpu / 1e6 };
  });
  const best = variants.reduce((a, b) => (b.gflops > a.gflops ? b : a));
  return { gflops: best.gflops, cpu_gflops: Math.max(...variants.map((v) => v.cpu_gflops)), accumulators: best.accumulators, variants };
}

// ---- main -------------------------------------------------------------------------------------------------
const PEAK = 'simd128-peak';

async function main() {
  const load0 = loadavg();
  const started = new Date();
  console.log(`bench: ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.versions.node} (V8 ${process.versions.v8})`);
  console.log(`bench: load average at start ${load0.join(' ')} (1, 5, 15 min); ${ROUNDS} interleaved rounds per case, samples >= ${MIN_SAMPLE_MS} ms`);
  const backends = await setupBackends();
  const peakStart = await measurePeak();
  const showPeak = (p) => p.variants.map((v) => `${v.accumulators} acc ${v.gflops.toFixed(1)}`).join(', ');
  console.log(`bench: WebAssembly SIMD128 peak (f32x4 mul+add, 2 flops per lane): ${showPeak(peakStart)} GFLOP/s`);
  // the best loop also runs in every case's rounds, so that % of peak compares like with like under load
  const peakEntry = await peakRunner(peakStart.accumulators);
  const { results, failures } = await runCases(backends, peakEntry);
  const models = RUN_MODELS ? await benchModels({ rounds: ROUNDS }) : null;
  const decode = RUN_DECODE ? await benchDecode({ rounds: DECODE_ROUNDS }) : null;
  const peakEnd = await measurePeak();
  const load1 = loadavg();
  const { targets, globalPeak } = printReport({ results, models, decode, peakStart, peakEnd, load0, load1 });
  writeReport({ started, load0, load1, backends, globalPeak, peakStart, peakEnd, results, models, decode, targets, failures });
  if (failures.length) {
    console.error(`\nbench: FAILED: ${failures.length} wrong result(s):\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
}

// The backends measured side by side (onnxruntime-web always: the ratios are against it).
async function setupBackends() {
  const setups = [['ort-web', setupOrt], ['tfjs-wasm', setupTfjs], ['plain-js', setupPlainJs], ['lookback', () => setupLookback(1)],
    ['lookback-threads', () => setupLookback('auto')]];
  if (!flag('--no-kernel')) {
    const built = buildKernelModule();
    if (built.path) setups.push(['lookback-kernel', () => setupLookbackKernels(built.path)]);
    else console.log(`bench: skipping lookback-kernel: ${built.reason}`);
  }
  const backends = [];
  for (const [name, setup] of setups) {
    if (WANT && name !== 'ort-web' && !WANT.includes(name)) continue;  // ort stays: the ratios are against it
    backends.push(await setup());
  }
  if (!WANT || WANT.some((w) => w.endsWith('-resident'))) {
    const ort = await import('onnxruntime-web'), tf = await import('@tensorflow/tfjs-core');
    const { loadLookback } = await import('../../web/js/api/index.js');
    backends.push(...await setupResident({ ort, tf, lb: await loadLookback({ threads: 1 }) }));
  }
  for (const b of backends) console.log(`bench: ${b.name}: ${JSON.stringify(b.info)}`);

  return backends;
}

// Every kernel case on every backend, interleaved rounds; wrong results are collected, not thrown.
async function runCases(backends, peakEntry) {
  const r = rng(20240607);
  const results = [];
  const failures = [];
  for (const c of cases) {
    const pc = prepare(c, r);
    const entries = [];
    for (const b of backends) {
      const runner = await b[c.kind](pc);
      if (!runner) continue;
      const reps = await warmAndCalibrate(runner.run);
      const err = maxRelError(runner.result(), pc.ref);
      const ok = err <= TOLERANCE;
      if (!ok) {
        failures.push(`${pc.label}: ${b.name} max rel error ${err}`);
        console.error(`bench: WRONG RESULT: ${pc.label}: ${b.name} max rel error ${err} > ${TOLERANCE}`);
      }
      entries.push({ name: b.name, run: runner.run, reps, err, ok, runner });
    }
    entries.push({ name: PEAK, run: peakEntry.run, reps: 1, err: null, ok: true });
    const samples = await interleave(entries);
    // the threaded module against the one-thread module, also in back-to-back pairs (drift between rounds cancels)
    const one = entries.find((e) => e.name === 'lookback'), many = entries.find((e) => e.name === 'lookback-threads');
    if (one && many) pc.threads = await betweenCoreSpeeds(() => pairedSpeedup(one, many, { pairs: ROUNDS }));
    // the API's cost per call over the kernel alone, in back-to-back pairs too: the rounds put other libraries'
    // samples (and their garbage and cache traffic) between the two, pairs only each other
    const kernel = entries.find((e) => e.name === 'lookback-kernel');
    if (one && kernel && c.kind === 'attention') pc.apiCost = await pairedSpeedup(one, kernel, { pairs: ROUNDS });
    for (const e of entries) await e.runner?.dispose?.();
    const rows = entries.map((e, i) => ({
      name: e.name, reps: e.reps, err: e.err, ok: e.ok, samples: samples[i],
      ms: median(samples[i].wall), cpu: median(samples[i].cpu),
    }));
    const peak = rows.find((e) => e.name === PEAK);
    pc.peak = { gflops: peakEntry.flops / peak.ms / 1e6, cpu_gflops: peakEntry.flops / peak.cpu / 1e6 };
    pc.entries = rows.filter((e) => e.name !== PEAK);
    delete pc.ref;
    results.push(pc);
    const lb = pc.entries.find((e) => e.name === 'lookback'), ort = pc.entries.find((e) => e.name === 'ort-web');
    console.log(`bench: ${pc.label.padEnd(30)} ort-web ${ort.ms.toFixed(3)} ms${lb ? `, lookback ${lb.ms.toFixed(3)} ms (${(ort.ms / lb.ms).toFixed(2)}x)` : ''}`);
  }

  return { results, failures };
}

// The tables, the peak and load lines and the targets, on the console.
function printReport({ results, models, decode, peakStart, peakEnd, load0, load1 }) {
  console.log(`\nmedian ms: median over ${ROUNDS} interleaved rounds of wall-clock ms per call; cpu ms: the same in this process's CPU time;` +
    '\nvs ort: ort-web median / backend median; GFLOP/s: from the median; % peak: of the SIMD128 peak loop timed in the same rounds;' +
    '\nmax rel err: max |x - ref| / max |ref| against float64. cpu ms counts all threads of this process (background GC of any backend may land in any sample).\nlookback = public JS API (copies in and out, checks);' +
    '\nlookback-kernel = the same kernels called on buffers already in the module\'s heap.');
  for (const c of results) printCase(c);
  if (models) printModels(models);
  if (decode) printDecode(decode);
  const globalPeak = Math.max(peakStart.gflops, peakEnd.gflops, ...results.map((c) => c.peak.gflops));
  console.log(`\nbench: SIMD128 peak (${peakStart.accumulators} accumulators) at start ${peakStart.gflops.toFixed(1)}, at end ` +
    `${peakEnd.gflops.toFixed(1)}, highest ${globalPeak.toFixed(1)} GFLOP/s (by CPU time: ${Math.max(peakStart.cpu_gflops, peakEnd.cpu_gflops).toFixed(1)})`);
  console.log(`bench: load average at start ${load0.join(' ')}, at end ${load1.join(' ')} (1, 5, 15 min; ${os.cpus().length} cores)`);

  const targets = [...evaluateTargets(results), ...(models?.targets ?? []), ...(decode?.targets ?? [])];
  console.log('\ntargets (medians of wall time; % of peak against the peak loop run in the same rounds):');
  for (const t of targets) console.log(`  ${t.met ? 'MET    ' : 'MISSED '} ${t.name}: ${t.value.toFixed(2)}${t.unit} (target ${t.below ? '<=' : '>='} ${t.target}${t.unit}; by CPU time ${t.cpu_value.toFixed(2)}${t.unit})`);

  return { targets, globalPeak };
}

// The JSON report (tests/bench/results/...), with the method beside the numbers.
function writeReport({ started, load0, load1, backends, globalPeak, peakStart, peakEnd, results, models, decode, targets, failures }) {
  const json = {
    date: started.toISOString(),
    machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.versions.node, v8: process.versions.v8 },
    load_average: { start: load0, end: load1 },
    method: {
      rounds: ROUNDS, min_sample_ms: MIN_SAMPLE_MS,
      statistic: 'median over interleaved rounds (the order rotates each round) of ms per call; wall clock, and this process\'s CPU time',
      error: 'max |x - ref| / max |ref| against a float64 reference', tolerance: TOLERANCE,
      attention_flops: '4*H*D*T(T+1)/2 (QK^T and PV over the visible causal pairs), the same count for every backend',
      ratio_vs_ort: 'ort-web median / backend median (above 1 = faster than onnxruntime-web)',
      pct_peak: 'backend GFLOP/s / GFLOP/s of the SIMD128 peak loop timed in the same rounds',
    },
    backends: Object.fromEntries(backends.map((b) => [b.name, b.info])),
    peak: { highest_gflops: globalPeak, start: peakStart, end: peakEnd },
    cases: results.map((c) => {
      const ort = c.entries.find((e) => e.name === 'ort-web');
      return {
        kind: c.kind, label: c.label,
        shape: c.kind === 'attention' ? { T: c.T, H: c.H, D: c.D, causal: true } : { M: c.M, N: c.N, K: c.K },
        flops: c.flops, peak_gflops: c.peak.gflops, peak_cpu_gflops: c.peak.cpu_gflops, threads_paired: c.threads ?? null,
        backends: c.entries.map((e) => ({
          name: e.name, median_ms: e.ms, median_cpu_ms: e.cpu, ratio_vs_ort: ort.ms / e.ms, ratio_vs_ort_cpu: ort.cpu / e.cpu,
          gflops: c.flops / e.ms / 1e6, pct_peak: (100 * c.flops / e.ms / 1e6) / c.peak.gflops,
          pct_peak_cpu: (100 * c.flops / e.cpu / 1e6) / c.peak.cpu_gflops,
          max_rel_err: e.err, ok: e.ok, calls_per_sample: e.reps, samples_ms: e.samples.wall, samples_cpu_ms: e.samples.cpu,
        })),
      };
    }),
    models: models?.rows ?? null,
    attention_cost: models?.attention ?? null,
    decode: decode?.rows ?? null,
    targets,
    failures,
  };
  mkdirSync(dirname(JSON_PATH), { recursive: true });
  writeFileSync(JSON_PATH, `${JSON.stringify(json, null, 1)}\n`);
  console.log(`\nbench: wrote ${JSON_PATH}`);
}

function printCase(c) {
  const ort = c.entries.find((e) => e.name === 'ort-web');
  console.log(`\n${c.label}   (${(c.flops / 1e6).toFixed(1)} MFLOP${c.kind === 'attention' ? ' counting causal pairs only' : ''}; ` +
    `SIMD128 peak in these rounds ${c.peak.gflops.toFixed(1)} GFLOP/s)`);
  console.log('  backend           median ms    cpu ms   vs ort   GFLOP/s   % peak   max rel err');
  for (const e of c.entries) {
    const gf = c.flops / e.ms / 1e6;
    console.log(`  ${e.name.padEnd(16)} ${e.ms.toFixed(3).padStart(10)} ${e.cpu.toFixed(3).padStart(9)} ${(ort.ms / e.ms).toFixed(2).padStart(7)}x ` +
      `${gf.toFixed(2).padStart(9)} ${(100 * gf / c.peak.gflops).toFixed(1).padStart(7)}%   ${e.err.toExponential(1)}${e.ok ? '' : '  <-- WRONG'}`);
  }
  if (c.apiCost) console.log(`  lookback (the API) against lookback-kernel in ${c.apiCost.pairs} back-to-back pairs: median time ratio ` +
    `${c.apiCost.speedup.toFixed(2)}x (${c.apiCost.base_ms.toFixed(3)} / ${c.apiCost.fast_ms.toFixed(3)} ms)`);
  if (c.threads) console.log(`  lookback-threads vs lookback in ${c.threads.pairs} back-to-back pairs: median ratio ${c.threads.speedup.toFixed(2)}x ` +
    `(${c.threads.base_ms.toFixed(3)} / ${c.threads.fast_ms.toFixed(3)} ms; CPU ${c.threads.cpu_speedup.toFixed(2)}x)\n    ${describeCores(c.threads.cores.before, c.threads.cores.after)}`);
}

function evaluateTargets(results) {
  const find = (pred) => results.find(pred);
  const entry = (c, name) => c?.entries.find((e) => e.name === name);
  const ratio = (c, name, k) => entry(c, 'ort-web')[k] / entry(c, name)[k];
  const pct = (c, name, k) => (100 * c.flops / entry(c, name)[k] / 1e6) / (k === 'ms' ? c.peak.gflops : c.peak.cpu_gflops);
  const out = [];
  const a512 = find((c) => c.kind === 'attention' && c.T === 512 && c.D === 64);
  const a64 = find((c) => c.kind === 'attention' && c.T === 64 && c.D === 64);
  const g = find((c) => c.kind === 'gemm' && c.M === 512 && c.K === 384);
  const add = (name, c, f, target, unit, below = false) => out.push({ name, value: f(c, 'ms'), cpu_value: f(c, 'cpu'), target, unit, below });
  for (const name of ['lookback', 'lookback-kernel']) {
    const tag = name === 'lookback' ? 'public API' : 'kernel alone';
    if (entry(a512, name)) add(`attention T=512 H=6 D=64, speed-up vs ort-web (${tag})`, a512, (c, k) => ratio(c, name, k), 2, 'x');
    if (entry(a64, name)) add(`attention T=64 H=6 D=64, speed-up vs ort-web (${tag})`, a64, (c, k) => ratio(c, name, k), 1.5, 'x');
    if (entry(g, name)) {
      add(`gemm 512x384x1152, % of SIMD128 peak (${tag})`, g, (c, k) => pct(c, name, k), 70, '%');
      add(`gemm 512x384x1152, speed-up vs ort-web (${tag})`, g, (c, k) => ratio(c, name, k), 1.3, 'x');
    }
  }
  // a weight kept resident (lb.weight) against the peers given theirs the same way, and attention T=64 at 2x
  const g64 = find((c) => c.kind === 'gemm' && c.M === 64 && c.K === 384);
  const vs = (peer, name) => (c, k) => entry(c, peer)[k] / entry(c, name)[k];
  if (entry(g64, 'lookback-resident')) {
    for (const [peer, target] of [['ort-web-resident', 1.3], ['tfjs-resident', 1.1], ['ort-web', 1.3]])
      if (entry(g64, peer)) add(`gemm 64x384x1152 resident weight (lb.weight), speed-up vs ${peer}`, g64, vs(peer, 'lookback-resident'), target, 'x');
  }
  if (entry(a64, 'lookback')) add('attention T=64 H=6 D=64 through the API, speed-up vs ort-web', a64, (c, k) => ratio(c, 'lookback', k), 2, 'x');
  // the API's own cost per call: attention T=64 through the API against the same kernel alone on heap buffers, by
  // the back-to-back pairs (the ratio of the rounds' medians beside it)
  if (a64?.apiCost) {
    const medians = entry(a64, 'lookback').ms / entry(a64, 'lookback-kernel').ms;
    out.push({ name: `attention T=64 H=6 D=64 through the API, time against the kernel alone (median of ${a64.apiCost.pairs} back-to-back pairs; ratio of the rounds' medians ${medians.toFixed(2)}x)`,
      value: a64.apiCost.speedup, cpu_value: a64.apiCost.cpu_speedup, target: 1.2, unit: 'x', below: true, ratio_of_medians: medians });
  }
  // the threaded module against the one-thread module (CPU time counts every thread, so only wall time is a
  // speed-up): the median of back-to-back pairs' ratios (paired.mjs), the ratio of the rounds' medians beside it
  for (const c of [a512, g]) {
    if (c?.threads && entry(c, 'lookback-threads') && entry(c, 'lookback')) {
      const medians = entry(c, 'lookback').ms / entry(c, 'lookback-threads').ms;
      out.push({ name: `${c.label} on ${THREADS} threads, speed-up vs one thread (public API; median of ${c.threads.pairs} back-to-back pairs, ratio of the rounds' medians ${medians.toFixed(2)}x; ${describeCores(c.threads.cores.before, c.threads.cores.after)})`,
        value: c.threads.speedup, cpu_value: c.threads.cpu_speedup, target: 1.7, unit: 'x', ratio_of_medians: medians });
    }
  }
  return out.map((t) => ({ ...t, met: t.below ? t.value <= t.target : t.value >= t.target }));
}

main().catch((e) => {
  console.error('bench: error:', e);
  process.exit(1);
});
