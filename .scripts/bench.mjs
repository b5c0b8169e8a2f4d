// `npm run bench`: runs every benchmark, found by name as tests are: each tests/bench/*.bench.mjs file in
// name order, one after another in its own Node process, with the arguments given here passed on. A new
// benchmark is a new *.bench.mjs file; nothing else lists them. Then gathers their targets into
// tests/bench/results/latest.json and writes the results of web/docs/benchmarks.md and its plot from it
// (bench-report.mjs). Not a benchmark itself.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { gather, writeLatest, writeViews } from './bench-report.mjs';

const dir = fileURLToPath(new URL('../tests/bench/', import.meta.url));

export function benchFiles() {
  return readdirSync(dir).filter((f) => f.endsWith('.bench.mjs')).sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = 0;
  const started = new Date(), load0 = os.loadavg()[0];
  for (const f of benchFiles()) {
    console.log(`bench: ${f}`);
    const r = spawnSync(process.execPath, [`${dir}${f}`, ...process.argv.slice(2)], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`bench: ${f} failed (exit ${r.status ?? r.signal})`);
      failed += 1;
    }
  }
  const latest = gather({ started, load: { start: load0, end: os.loadavg()[0] } });
  if (latest.targets.length && process.argv.length === 2) {   // a full run, not a part chosen by arguments
    writeLatest(latest);
    writeViews(latest);
    console.log('bench: wrote tests/bench/results/latest.json, the results of web/docs/benchmarks.md and web/docs/img/bench.svg');
  }
  process.exit(failed ? 1 : 0);
}
