// Runs every lookback test suite in order and prints each suite's counts, then one closing total:
// native doctest (ctest), the same doctest in WebAssembly under Node (ctest), node:test on the API and tools
// (tests/js), and the browser tests in headless chromium (tests/browser). Exits non-zero if any suite fails
// or runs no test. Not a builder: `npm test` builds first (.scripts/build.mjs).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jobs = process.env.LOOKBACK_JOBS || '2';
const testFiles = (dir) => readdirSync(`${root}${dir}`).filter((f) => f.endsWith('.test.mjs')).map((f) => `${dir}/${f}`);

const suites = [
  { name: 'native doctest', cmd: 'ctest', args: ['--test-dir', '.build/native', '-j', jobs, '--output-on-failure'], parse: ctestCounts },
  { name: 'wasm doctest (Node)', cmd: 'ctest', args: ['--test-dir', '.build/wasm', '-j', jobs, '--output-on-failure'], parse: ctestCounts },
  { name: 'node:test API', cmd: 'node', args: ['--test', '--test-concurrency=1', ...testFiles('tests/js')], parse: nodeCounts },
  { name: 'browser (chromium)', cmd: 'node', args: ['--test', '--test-concurrency=1', ...testFiles('tests/browser')], parse: nodeCounts },
];

function ctestCounts(out) {
  const m = out.match(/(\d+)% tests passed, (\d+) tests? failed out of (\d+)/);
  return m ? { passed: Number(m[3]) - Number(m[2]), failed: Number(m[2]), skipped: 0 } : null;
}

function nodeCounts(out) {
  const n = (k) => Number((out.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1] || 0);
  return /^# tests \d+$/m.test(out) ? { passed: n('pass'), failed: n('fail') + n('cancelled'), skipped: n('skipped') } : null;
}

function run({ cmd, args }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: process.env });
    let out = '';
    for (const s of [child.stdout, child.stderr]) {
      s.on('data', (d) => {
        out += d;
        process.stdout.write(d);
      });
    }
    child.on('close', (code) => resolve({ code, out }));
  });
}

const results = [];
for (const suite of suites) {
  console.log(`\n=== ${suite.name} ===`);
  const { code, out } = await run(suite);
  const counts = suite.parse(out) || { passed: 0, failed: 1, skipped: 0 };
  const ok = code === 0 && counts.failed === 0 && counts.passed > 0;
  results.push({ name: suite.name, ok, ...counts });
}

console.log('\n=== summary ===');
for (const r of results) {
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`);
}
const total = (k) => results.reduce((a, r) => a + r[k], 0);
const skipped = total('skipped');
console.log(`total: ${total('passed')} passed, ${total('failed')} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
