// Each core's own speed: the SIMD128 peak loop (peak.mjs) run in a child process pinned to one core with taskset,
// one core after the other. A virtual machine's cores need not be equal (the host may share one with another
// guest, and it then runs at a fraction of the other's speed); no split of a call can then reach the thread
// count as a speed-up. The most a call split over every core can gain against one thread on the fastest core is
// the cores' summed speed over that core's. Linux with taskset and 2 to 8 cores only (null elsewhere). Not a
// test: a figure for the report, beside the threads rows.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

// The cores this process may run on (Linux: "Cpus_allowed_list: 0-3,8" in /proc/self/status), or null.
function allowedCores() {
  const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!m) return null;
  return m[1].split(',').flatMap((r) => {
    const [a, b = a] = r.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

// { cores: [ids], gflops: [per core], bound } with bound = sum / max, or null where cores cannot be pinned (and
// above 8 cores, the most the API's threads: 'auto' uses: which of them it runs on is not known).
export function coreSpeeds() {
  if (process.platform !== 'linux') return null;
  try {
    const cores = allowedCores();
    if (!cores || cores.length < 2 || cores.length > 8) return null;
    const gflops = cores.map(coreGflops);
    if (!gflops.every((g) => g > 0)) return null;
    return { cores, gflops, bound: gflops.reduce((a, b) => a + b) / Math.max(...gflops) };
  } catch {
    return null;  // no taskset, or pinning refused
  }
}

// The cores before and after a measurement, as one phrase for its report line.
export function describeCores(before, after) {
  if (!before || !after) return 'each core\'s speed not measured (needs Linux, taskset and 2 to 8 cores)';
  const show = (c) => `${c.gflops.map((g) => g.toFixed(1)).join(' / ')} GFLOP/s, at most ${c.bound.toFixed(2)}x`;
  return `each core alone before the pairs ${show(before)}, after them ${show(after)}`;
}

// Runs `measure` (an async function returning an object) between two readings of the cores: { ...result, cores }.
export async function betweenCoreSpeeds(measure) {
  const before = coreSpeeds();
  const result = await measure();
  return { ...result, cores: { before, after: coreSpeeds() } };
}
