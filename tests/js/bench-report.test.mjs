// The benchmark's views come from its JSON alone: web/docs/benchmarks.md's results table and web/docs/img/bench.svg
// are what .scripts/bench-report.mjs draws from tests/bench/results/latest.json (when a run is recorded), and the
// drawing has a row and a bar per target, the target line, the machine and the load average.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { DOC, LATEST, SVG, docWithTable, profileTable, score, svg, table, trainerProfile } from '../../.scripts/bench-report.mjs';

const sample = {
  date: '2030-01-02T03:04:05.000Z', machine: { cpu: 'Test CPU', cores: 2, node: '20.0.0' },
  load_average: { start: 1.25, end: 0.5 }, simd128_peak_gflops: 40, parts: {},
  targets: [
    { bench: 'core', name: 'attention vs ort-web', value: 3, target: 2, unit: 'x', below: false, met: true },
    { bench: 'core', name: 'gemm % of peak', value: 50, target: 70, unit: '%', below: false, met: false },
    { bench: 'browser', name: 'first widget, median', value: 1000, target: 1500, unit: ' ms', below: true, met: true },
  ],
};

test('the table has the machine, the load average and one row per target', () => {
  const t = table(sample);
  assert.match(t, /Test CPU, 2 cores/);
  assert.match(t, /load average 1\.25 at the start and 0\.50 at the end/);
  assert.match(t, /2 of 3 targets met/);
  assert.match(t, /\| attention vs ort-web \| 3\.00x \| >= 2\.00x \| met \|/);
  assert.match(t, /\| gemm % of peak \| 50\.0% \| >= 70\.0% \| missed \|/);
  assert.match(t, /\| first widget, median \| 1000 ms \| <= 1500 ms \| met \|/);
});

test('the trainer\'s profile: every op with its share, largest first, and the peak it is measured against', () => {
  const run = {
    parameters: 100, batch: 4, config: { max_seq_len: 32 }, threads: 2, steps: 3, tokens_per_s_cpu: 5000,
    step_gflops_cpu: 200, peak_gflops_cpu: 400, percent_of_peak_cpu: 50,
    peaks: [{ isa: 'avx512', threads: 1, supported: true, gflops_cpu: 210 }, { isa: 'avx2', threads: 1, supported: true, gflops_cpu: 100 }],
    ops: [{ op: 'rmsnorm', share: 0.1, gflops_per_thread_cpu: 0 }, { op: 'gemm: MLP (fwd)', share: 0.9, gflops_per_thread_cpu: 140 }],
  };
  const p = trainerProfile(run);
  assert.equal(p.peak_gflops_cpu_one_thread, 210);
  const t = profileTable(p);
  assert.match(t, /50\.0% of the FMA peak loop's 400 GFLOP\/s on 2 threads/);
  assert.match(t, /the peak loop on one thread: 210 GFLOP\/s/);
  const rows = t.split('\n').filter((l) => /^\| (gemm|rmsnorm)/.test(l));
  assert.deepEqual(rows, ['| gemm: MLP (fwd) | 90.0% | 140 |', '| rmsnorm | 10.0% |  |']);
  assert.match(table({ ...sample, trainer_profile: p }), /Where a training step goes/);
  assert.doesNotMatch(table(sample), /Where a training step goes/);
});

test('the plot has one bar per target, coloured by met, and the target line', () => {
  const s = svg(sample);
  assert.equal((s.match(/<rect [^>]*class="(met|missed)"/g) ?? []).length, 3);
  assert.equal((s.match(/class="missed"/g) ?? []).length, 1);
  assert.match(s, /class="target"\/>/);
  assert.match(s, /load average 1\.25 to 0\.50/);
  assert.equal(score(sample.targets[2]), 1.5);   // a time under its target scores above 1
});

test('benchmarks.md and bench.svg are what the recorded run draws', () => {
  const doc = readFileSync(DOC, 'utf8');
  if (!existsSync(LATEST)) {
    assert.match(doc, /No run is recorded in `tests\/bench\/results\/latest.json` yet/);
    return;
  }
  const latest = JSON.parse(readFileSync(LATEST, 'utf8'));
  assert.equal(doc, docWithTable(doc, latest), 'run `node .scripts/bench-report.mjs`');
  assert.equal(readFileSync(SVG, 'utf8'), svg(latest));
});
