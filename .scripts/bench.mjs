// `npm run bench`: runs every benchmark, found by name as tests are: each tests/bench/*.bench.mjs file in
// name order, one after another in its own Node process, with the arguments given here passed on. A new
// benchmark is a new *.bench.mjs file; nothing else lists them. Not a benchmark itself.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../tests/bench/', import.meta.url));

export function benchFiles() {
  return readdirSync(dir).filter((f) => f.endsWith('.bench.mjs')).sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = 0;
  for (const f of benchFiles()) {
    console.log(`bench: ${f}`);
    const r = spawnSync(process.execPath, [`${dir}${f}`, ...process.argv.slice(2)], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`bench: ${f} failed (exit ${r.status ?? r.signal})`);
      failed += 1;
    }
  }
  process.exit(failed ? 1 : 0);
}
