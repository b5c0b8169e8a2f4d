// The native suite and the fuzz campaign under AddressSanitizer and UBSan (`npm run sanitize`): configures and builds
// .build/asan (-DLOOKBACK_SANITIZE=ON), runs the whole doctest suite (core_tests), then the fuzzers (fuzz_tests) with
// LOOKBACK_FUZZ_ITERATIONS inputs per case (default 3000), LOOKBACK_FUZZ_SEED and LOOKBACK_FUZZ_BUDGET_MS per input,
// and records what the runs printed in tests/cpp/sanitize-results.json; from that JSON alone it writes the results
// section of web/docs/reliability.md (between its sanitize-results markers). `--fuzz` runs only the fuzzers,
// `--suite` only the suite, `--report` only rewrites the section. Not part of `npm test` (a sanitizer build is
// slow); not the fuzzers themselves (tests/cpp/native/test_fuzz_*.cpp).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS = `${root}tests/cpp/sanitize-results.json`;
export const DOC = `${root}web/docs/reliability.md`;
const BUILD = '.build/asan';
const jobs = process.env.LOOKBACK_JOBS || '2';

function run(cmd, args, env = process.env) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 << 20 });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  return { status: r.status, signal: r.signal, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, seconds: (Date.now() - t0) / 1000 };
}

function build(targets) {
  for (const [cmd, args] of [['cmake', ['-S', '.', '-B', BUILD, '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DLOOKBACK_SANITIZE=ON', '--log-level=WARNING']],
    ['cmake', ['--build', BUILD, '-j', jobs, '--target', ...targets]]]) {
    const r = run(cmd, args);
    if (r.status !== 0) {
      console.error(`sanitize: ${cmd} ${args.join(' ')} failed`);
      process.exit(1);
    }
  }
}

// doctest's closing counts and any sanitizer report in a run's output.
function summary(r) {
  const counts = (what) => {
    const m = r.out.match(new RegExp(`\\[doctest\\] ${what}:\\s*(\\d+) \\|\\s*(\\d+) passed \\|\\s*(\\d+) failed`));
    return m ? { total: Number(m[1]), passed: Number(m[2]), failed: Number(m[3]) } : null;
  };
  const reports = r.out.split('\n').filter((l) => /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/.test(l));
  return { exit: r.status ?? r.signal, seconds: Math.round(r.seconds), testCases: counts('test cases'), assertions: counts('assertions'),
    status: /\[doctest\] Status: SUCCESS!/.test(r.out) ? 'SUCCESS' : 'FAILURE', sanitizerReports: reports.slice(0, 20) };
}

// Each fuzz case's own line ("MESSAGE: ...") and time (doctest --duration), by test case.
function fuzzCases(out) {
  const cases = [];
  let current = null;
  for (const line of out.split('\n')) {
    const name = line.match(/^TEST CASE:\s+(.*)$/);
    if (name) current = name[1].trim();
    const message = line.match(/MESSAGE: (.*)$/);
    if (message && current) cases.push({ name: current, message: message[1].trim() });
    const time = line.match(/^(\d+\.\d+) s: (.*)$/);
    if (time) {
      const c = cases.find((x) => x.name === time[2].trim());
      if (c) c.seconds = Number(time[1]);
    }
  }
  return cases;
}

function runSuite() {
  build(['core_tests']);
  return summary(run(`${BUILD}/core_tests`, ['--no-colors=true']));
}

function runFuzz() {
  build(['fuzz_tests']);
  const settings = { iterations: Number(process.env.LOOKBACK_FUZZ_ITERATIONS || 3000), seed: Number(process.env.LOOKBACK_FUZZ_SEED || 0),
    budgetMs: Number(process.env.LOOKBACK_FUZZ_BUDGET_MS || 2000), maxInputBytes: 1 << 20 };
  const env = { ...process.env, LOOKBACK_FUZZ_ITERATIONS: String(settings.iterations), LOOKBACK_FUZZ_SEED: String(settings.seed),
    LOOKBACK_FUZZ_BUDGET_MS: String(settings.budgetMs) };
  // every fuzz case prints its counts as a MESSAGE; the hostile-input tests built with them run too
  const r = run(`${BUILD}/fuzz_tests`, ['--no-colors=true', '--duration=true'], env);
  const cases = fuzzCases(r.out);
  const fuzzers = cases.filter((c) => /^fuzz: /.test(c.name));
  return { ...summary(r), settings, cases, inputs: fuzzers.length * settings.iterations };
}

const n = (v) => Number(v).toLocaleString('en-US');

// The section of reliability.md, from the JSON alone.
export function section(res) {
  const lines = [`Last run: ${res.date.slice(0, 10)}, \`npm run sanitize\` on ${res.machine}.`, ''];
  if (res.suite) {
    const s = res.suite;
    lines.push(`- The native doctest suite under ASan+UBSan: ${n(s.testCases?.passed ?? 0)} of ${n(s.testCases?.total ?? 0)} test cases passed, `
      + `${n(s.assertions?.passed ?? 0)} of ${n(s.assertions?.total ?? 0)} checks, ${s.sanitizerReports.length} sanitizer reports, ${n(s.seconds)} s (${s.status}).`);
  }
  if (res.fuzz) {
    const f = res.fuzz;
    lines.push(`- The fuzz campaign: ${n(f.cases.filter((c) => /^fuzz: /.test(c.name)).length)} fuzzers, ${n(f.settings.iterations)} inputs each `
      + `(seed ${f.settings.seed}, each input cut to ${n(f.settings.maxInputBytes)} bytes, ${n(f.settings.budgetMs)} ms per input where the case `
      + `sets a budget): ${n(f.inputs)} inputs run, ${n(f.assertions?.failed ?? 0)} failed checks, ${f.sanitizerReports.length} sanitizer reports, `
      + `${n(f.seconds)} s (${f.status}).`, '', '| fuzzer | what it printed | seconds |', '|---|---|---|');
    for (const c of f.cases) lines.push(`| ${c.name.replace(/^fuzz: /, '')} | ${c.message.replace(/\|/g, '\\|')} | ${c.seconds === undefined ? '' : c.seconds.toFixed(1)} |`);
  }
  return lines.join('\n');
}

export function docWithResults(text, res) {
  const start = '<!-- sanitize-results:start -->', end = '<!-- sanitize-results:end -->';
  const [a, rest] = text.split(start);
  if (rest === undefined) throw new Error(`${DOC} has no ${start} marker`);
  return `${a}${start}\n${section(res)}\n${end}${rest.split(end)[1]}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = (flag) => process.argv.includes(flag);
  let res = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
  if (!only('--report')) {
    res = { ...res, date: new Date().toISOString(), machine: `${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores` };
    if (!only('--fuzz')) res.suite = runSuite();
    if (!only('--suite')) res.fuzz = runFuzz();
    writeFileSync(RESULTS, `${JSON.stringify(res, null, 2)}\n`);
  }
  writeFileSync(DOC, docWithResults(readFileSync(DOC, 'utf8'), res));
  const failed = [res.suite, res.fuzz].some((s) => s && (s.status !== 'SUCCESS' || s.sanitizerReports.length));
  process.exit(failed ? 1 : 0);
}
