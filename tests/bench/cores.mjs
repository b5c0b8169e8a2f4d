// Each core's own speed: the SIMD128 peak loop (peak.mjs) run in a child process pinned to one core with taskset,
// one core after the other. A virtual machine's cores need not be equal (the host may share one with another
// guest, and it then runs at a fraction of the other's speed); no split of a call can then reach the thread
// count as a speed-up. The most a call split over every core can gain against one thread on the fastest core is
// the cores' summed speed over that core's. Linux with taskset only (null elsewhere). Not a test: a figure for the
// report, beside the threads rows.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

const PEAK_URL = new URL('./peak.mjs', import.meta.url).href;
const ACCUMULATORS = 12;  // one of peak.mjs's variants, near the best on this machine
const SAMPLES = 5;        // the best of these, each about 20 ms

// The child: calibrates the loop to ~20 ms, then prints the best GFLOP/s of SAMPLES runs.
const CHILD = `
import { loadPeak } from ${JSON.stringify(PEAK_URL)};
const p = await loadPeak(${ACCUMULATORS});
let n = 1000;
for (let t = 0; t < 20; n *= 2) { const t0 = performance.now(); p.run(n); t = performance.now() - t0; }
let best = 0;
for (let i = 0; i < ${SAMPLES}; i++) {
  const t0 = performance.now(); p.run(n); const ms = performance.now() - t0;
  best = Math.max(best, p.flopsPerIter * n / ms / 1e6);
}
console.log(best);`;

function coreGflops(core) {
  const out = execFileSync('taskset', ['-c', String(core), process.execPath, '--input-type=module', '-e', CHILD],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30000 });
  return Number(out.trim());
}

// { gflops: [per core], bound } with bound = sum / max, or null where cores cannot be pinned.
export function coreSpeeds(cores = os.availableParallelism()) {
  if (process.platform !== 'linux' || cores < 2) return null;
  try {
    const gflops = Array.from({ length: cores }, (_, i) => coreGflops(i));
    if (!gflops.every((g) => g > 0)) return null;
    return { gflops, bound: gflops.reduce((a, b) => a + b) / Math.max(...gflops) };
  } catch {
    return null;  // no taskset, or pinning refused
  }
}

// The cores before and after a measurement, as one phrase for its report line.
export function describeCores(before, after) {
  if (!before || !after) return 'each core\'s speed not measured (needs Linux and taskset)';
  const show = (c) => `${c.gflops.map((g) => g.toFixed(1)).join(' / ')} GFLOP/s, at most ${c.bound.toFixed(2)}x`;
  return `each core alone before the pairs ${show(before)}, after them ${show(after)}`;
}

// Runs `measure` (an async function returning an object) between two readings of the cores: { ...result, cores }.
export async function betweenCoreSpeeds(measure) {
  const before = coreSpeeds();
  const result = await measure();
  return { ...result, cores: { before, after: coreSpeeds() } };
}
