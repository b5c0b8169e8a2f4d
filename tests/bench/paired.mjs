// The speed-up of one way of running a computation against another, measured in back-to-back pairs: each pair
// times one sample of each, one right after the other (which goes first alternates), and the speed-up is the
// median of the pairs' ratios. A change in the machine's speed between pairs (this machine's WebAssembly speed
// moves in blocks of about a second) then cancels, where a ratio of two medians taken seconds apart keeps it.
// Not a test and not the interleaved rounds of the other rows: a figure for the report.

import { cpuMs, median } from './stats.mjs';

// One sample: `reps` calls of run() (each returns the number of units it processed, anything else counts 1);
// ms per unit.
async function sample({ run, reps = 1 }) {
  const c0 = cpuMs(), t0 = performance.now();
  let units = 0;
  for (let i = 0; i < reps; i++) {
    let n = run();
    if (typeof n?.then === 'function') n = await n;  // only an asynchronous run costs a wait
    units += typeof n === 'number' ? n : 1;
  }
  return { wall: (performance.now() - t0) / units, cpu: (cpuMs() - c0) / units };
}

// base, fast: { run, reps }. Returns the median ratio base/fast of wall time (and of CPU time, which counts
// every thread of this process), the pairs' ratios, and each side's median ms per unit.
export async function pairedSpeedup(base, fast, { pairs = 15 } = {}) {
  await sample(base), await sample(fast);  // warm-up
  const wall = [], cpu = [], baseMs = [], fastMs = [];
  for (let p = 0; p < pairs; p++) {
    const [a, b] = p % 2 ? [await sample(fast), await sample(base)].reverse() : [await sample(base), await sample(fast)];
    wall.push(a.wall / b.wall), cpu.push(a.cpu / b.cpu), baseMs.push(a.wall), fastMs.push(b.wall);
  }
  return { speedup: median(wall), cpu_speedup: median(cpu), pairs, ratios: wall, base_ms: median(baseMs), fast_ms: median(fastMs) };
}
