// The benchmark's record and its two views: gathers the targets the benchmarks wrote (.build/bench/results.json
// from core.bench.mjs, browser.json from browser.bench.mjs, trainer.json from trainer.bench.mjs, wllama.json from
// wllama.bench.mjs) into tests/bench/results/latest.json with the machine
// and the load average, and from that JSON alone writes the results table of web/docs/benchmarks.md (between its
// bench-results markers) and the plot web/docs/img/bench.svg: one bar per target, measured over target (so the
// target line is 1 for every row, and a bar past it is met), labelled with the figure and the target.
// `npm run bench` runs it at the end (.scripts/bench.mjs); `node .scripts/bench-report.mjs` redraws both views
// from latest.json. Not a benchmark.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const LATEST = `${root}tests/bench/results/latest.json`;
export const DOC = `${root}web/docs/benchmarks.md`;
export const SVG = `${root}web/docs/img/bench.svg`;
const PARTS = { core: `${root}.build/bench/results.json`, browser: `${root}.build/bench/browser.json`, trainer: `${root}.build/bench/trainer.json`,
  wllama: `${root}.build/bench/wllama.json` };

// latest.json from the parts this run wrote (a part older than the run's start is left out: not this run's).
export function gather({ started, load }) {
  const targets = [];
  const parts = {};
  for (const [name, path] of Object.entries(PARTS)) {
    if (!existsSync(path)) continue;
    const part = JSON.parse(readFileSync(path, 'utf8'));
    if (new Date(part.date) < started) continue;
    parts[name] = part.date;
    for (const t of part.targets ?? []) targets.push({ bench: name, name: t.name, value: t.value, target: t.target, unit: t.unit, below: !!t.below, met: t.met });
  }
  const core = existsSync(PARTS.core) && parts.core ? JSON.parse(readFileSync(PARTS.core, 'utf8')) : null;
  const trainer = parts.trainer ? JSON.parse(readFileSync(PARTS.trainer, 'utf8')) : null;
  return {
    date: started.toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.versions.node },
    load_average: load,
    simd128_peak_gflops: core?.peak?.highest_gflops ?? null,
    parts,
    targets,
    trainer_profile: trainer ? trainerProfile(trainer) : null,
  };
}

// What the docs show of the trainer's run: where a step's CPU time goes, per op, against the FMA peak loop the
// same program timed (per CPU second the threads ran, as the trainer's target is judged).
export function trainerProfile(m) {
  return {
    parameters: m.parameters, batch: m.batch, tokens: m.config?.max_seq_len ?? null, threads: m.threads, steps: m.steps,
    tokens_per_s_cpu: m.tokens_per_s_cpu, step_gflops_cpu: m.step_gflops_cpu,
    peak_gflops_cpu: m.peak_gflops_cpu, percent_of_peak_cpu: m.percent_of_peak_cpu,
    peak_gflops_cpu_one_thread: Math.max(0, ...(m.peaks ?? []).filter((q) => q.supported && q.threads === 1).map((q) => q.gflops_cpu)) || null,
    ops: m.ops.map((o) => ({ op: o.op, share: o.share, gflops_per_thread_cpu: o.gflops_per_thread_cpu || null })),
  };
}

export function profileTable(p) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const ops = [...p.ops].sort((a, b) => b.share - a.share);
  return [`Where a training step goes (\`lookback-train --bench --profile\` on Sprout's shape: ${p.parameters} parameters, `
    + `batch ${p.batch} x ${p.tokens} tokens, ${p.threads} threads, ${p.steps} steps): ${fmt(p.tokens_per_s_cpu)} tokens and `
    + `${fmt(p.step_gflops_cpu)} GFLOP/s per CPU second, ${fmt(p.percent_of_peak_cpu)}% of the FMA peak loop's `
    + `${fmt(p.peak_gflops_cpu)} GFLOP/s on ${p.threads} threads. Each op's share of the threads' CPU time, and its products per CPU second on one `
    + `thread where it does products${p.peak_gflops_cpu_one_thread ? ` (the peak loop on one thread: ${fmt(p.peak_gflops_cpu_one_thread)} GFLOP/s)` : ''}:`, '',
  '| op | share of the step | GFLOP/s per thread |', '|---|---|---|',
  ...ops.map((o) => `| ${o.op.replace(/\|/g, '\\|')} | ${pct(o.share)} | ${o.gflops_per_thread_cpu ? fmt(o.gflops_per_thread_cpu) : ''} |`)].join('\n');
}

const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const figure = (v, unit) => `${fmt(v)}${unit === 'x' || unit === '%' ? unit : unit ?? ''}`;
const need = (t) => `${t.below ? '<=' : '>='} ${figure(t.target, t.unit)}`;
// measured over target, oriented so that above 1 is met
export const score = (t) => (t.below ? t.target / t.value : t.value / t.target);

export function table(latest) {
  const { machine: m, load_average: l } = latest;
  const head = `\`npm run bench\` on ${latest.date.slice(0, 16).replace('T', ' ')} UTC, ${m.cpu}, ${m.cores} cores, Node ${m.node}; `
    + `load average ${l.start.toFixed(2)} at the start and ${l.end.toFixed(2)} at the end`
    + `${latest.simd128_peak_gflops ? `; SIMD128 peak loop ${latest.simd128_peak_gflops.toFixed(1)} GFLOP/s` : ''}. `
    + `${latest.targets.filter((t) => t.met).length} of ${latest.targets.length} targets met.`;
  const rows = latest.targets.map((t) => `| ${t.name.replace(/\|/g, '\\|')} | ${figure(t.value, t.unit)} | ${need(t)} | ${t.met ? 'met' : 'missed'} |`);
  const profile = latest.trainer_profile ? ['', profileTable(latest.trainer_profile)] : [];
  return [head, '', '![Each target: measured over target](img/bench.svg)', '',
    '| measure | measured | target | |', '|---|---|---|---|', ...rows, ...profile].join('\n');
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The plot: a bar per target, its length measured over target on a log scale from 1/4 to 8, the target line at 1.
export function svg(latest) {
  const row = 22, label = 520, plot = 300, top = 44, w = label + plot + 150;
  const h = top + row * latest.targets.length + 40;
  const lo = Math.log(0.25), hi = Math.log(8);
  const x = (r) => label + plot * (Math.min(hi, Math.max(lo, Math.log(r))) - lo) / (hi - lo);
  const short = (s) => (s.length > 78 ? `${s.slice(0, 76)}…` : s);
  const { machine: m, load_average: l } = latest;
  const bars = latest.targets.map((t, i) => {
    const y = top + i * row, r = score(t);
    return `<text x="${label - 8}" y="${y + 15}" text-anchor="end">${esc(short(t.name))}</text>`
      + `<rect x="${x(0.25)}" y="${y + 4}" width="${(x(r) - x(0.25)).toFixed(1)}" height="${row - 8}" class="${t.met ? 'met' : 'missed'}"/>`
      + `<text x="${(x(r) + 6).toFixed(1)}" y="${y + 15}">${esc(`${figure(t.value, t.unit)} (${need(t)})`)}</text>`;
  }).join('\n');
  const ticks = [0.25, 0.5, 1, 2, 4, 8].map((r) => `<text x="${x(r).toFixed(1)}" y="${h - 16}" text-anchor="middle" class="tick">${r}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif" font-size="12">
<title>lookback benchmark targets: measured over target (above 1 is met)</title>
<style>.met{fill:#2f5fd0}.missed{fill:#b03325}text{fill:#1d1d1f}.tick{fill:#55555f}.target{stroke:#1d1d1f;stroke-width:1.5;stroke-dasharray:4 3}</style>
<rect width="100%" height="100%" fill="#fdfcf8"/>
<text x="12" y="20" font-weight="600">${esc(`npm run bench, ${latest.date.slice(0, 10)}: ${m.cpu}, ${m.cores} cores, load average ${l.start.toFixed(2)} to ${l.end.toFixed(2)}`)}</text>
<text x="${x(1)}" y="36" text-anchor="middle" class="tick">target</text>
${bars}
<line x1="${x(1)}" x2="${x(1)}" y1="${top - 4}" y2="${h - 30}" class="target"/>
${ticks}
<text x="${label + plot / 2}" y="${h - 2}" text-anchor="middle" class="tick">measured over target, log scale (for a time, target over measured)</text>
</svg>
`;
}

const MARKERS = /(<!-- bench-results:start -->\n)[\s\S]*?(<!-- bench-results:end -->)/;

export function docWithTable(text, latest) {
  if (!MARKERS.test(text)) throw new Error('web/docs/benchmarks.md has no bench-results markers');
  return text.replace(MARKERS, (_, a, b) => `${a}${table(latest)}\n${b}`);
}

export function writeViews(latest) {
  writeFileSync(DOC, docWithTable(readFileSync(DOC, 'utf8'), latest));
  mkdirSync(new URL('../web/docs/img/', import.meta.url), { recursive: true });
  writeFileSync(SVG, svg(latest));
}

export function writeLatest(latest) {
  mkdirSync(new URL('../tests/bench/results/', import.meta.url), { recursive: true });
  writeFileSync(LATEST, `${JSON.stringify(latest, null, 1)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!existsSync(LATEST)) {
    console.error('bench-report: no tests/bench/results/latest.json yet; `npm run bench` writes it');
    process.exit(1);
  }
  writeViews(JSON.parse(readFileSync(LATEST, 'utf8')));
  console.log('bench-report: wrote web/docs/benchmarks.md (results) and web/docs/img/bench.svg');
}
