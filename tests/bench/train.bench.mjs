// The training rows of `npm run bench`: optimiser steps per second of the training widget's default model
// (2 layers x 2 heads, width 64, attention only, 32 tokens, batch 16, the induction task) through lb.train in
// WebAssembly (Node, one thread) and through the native tool lookback-live (one thread), medians over rounds
// that alternate between the two. Not a test: it reports, never asserts. Run: node tests/bench/train.bench.mjs [--rounds N]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../../web/js/api/index.js';
import { median } from './stats.mjs';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const STEPS = 200;  // per round
const root = fileURLToPath(new URL('../..', import.meta.url));
const NATIVE = `${root}.build/native/lookback-live`;

const lb = await loadLookback();
const load0 = os.loadavg().map((x) => x.toFixed(2));
const wasm = [], native = [];
for (let r = 0; r < ROUNDS; r++) {
  const run = await lb.train({}, { task: 'induction', steps: STEPS, seed: r + 1 });
  run.step(5);  // buffers sized, caches warm
  const t0 = performance.now();
  run.step(STEPS - 5);
  wasm.push((STEPS - 5) / ((performance.now() - t0) / 1000));
  run.dispose();
  if (existsSync(NATIVE)) {
    const out = spawnSync(NATIVE, ['--task', 'induction', '--steps', String(STEPS), '--seed', String(r + 1)], { encoding: 'utf8' });
    if (out.status === 0) native.push(JSON.parse(out.stdout).steps_per_s);
  }
}
const load1 = os.loadavg().map((x) => x.toFixed(2));
const w = median(wasm), n = native.length ? median(native) : null;
const run = await lb.train();
const parameters = run.info.parameters;
run.dispose();
console.log(`\nlive training, the widget's default model (${parameters} parameters; batch 16 x 32 tokens), steps per second, median of ${ROUNDS} rounds:`);
console.log(`  WebAssembly (lb.train, Node, one thread) ${w.toFixed(1)} steps/s (${(w * 16 * 32).toFixed(0)} tokens/s)`);
console.log(n === null ? `  native: ${NATIVE} is not built` : `  native (lookback-live, one thread)       ${n.toFixed(1)} steps/s; WebAssembly runs at ${(w / n).toFixed(2)}x native`);
console.log(`  load average at start ${load0.join(' ')}, at end ${load1.join(' ')} (${os.cpus().length} cores)`);
mkdirSync(`${root}.build/bench`, { recursive: true });
writeFileSync(`${root}.build/bench/train.json`, `${JSON.stringify({ date: new Date().toISOString(), parameters, rounds: ROUNDS,
  steps_per_round: STEPS, wasm_steps_per_s: wasm, native_steps_per_s: native, median: { wasm: w, native: n },
  load_average: { start: load0, end: load1 } }, null, 1)}\n`);
