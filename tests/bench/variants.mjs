// Tuning aid (not part of `npm run bench`): builds the kernel module once per set of compiler flags, usually
// -D overrides of the kernels' tuning constants, and times the benchmark's kernels side by side.
//   node tests/bench/variants.mjs '{"mr5":[],"mr4":["-DLOOKBACK_GEMM_MR=4"]}' [--case gemm:512:384 ...]
// Variants are interleaved call by call and timed by this process's CPU time (the lower quartile of the
// samples), which the machine's other load inflates less than wall time; outputs must agree with the first
// variant's. Builds go to .build/bench/variants/<name>/.
import { fileURLToPath } from 'node:url';

import { setupLookbackKernels } from './backends.mjs';
import { buildKernelModule } from './build-kernels.mjs';
import { cpuMs } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const argv = process.argv.slice(2);
if (!argv[0] || argv[0].startsWith('--')) {
  console.error('usage: node tests/bench/variants.mjs \'{"name": ["-Dflag", ...], ...}\' [--case attention:T:D | gemm:M:K ...] [--ms 2500]');
  process.exit(2);
}
const specs = JSON.parse(argv[0]);
const opt = (name) => argv.flatMap((a, i) => (a === name && i + 1 < argv.length ? [argv[i + 1]] : []));
const budget = Number(opt('--ms')[0] ?? 2500);
let cases = opt('--case').map((s) => s.split(':'));
if (!cases.length) cases = [['gemm', 64, 192], ['gemm', 512, 384], ['attention', 64, 64], ['attention', 512, 64]];

const names = Object.keys(specs);
const modules = [];
for (const n of names) {
  const built = buildKernelModule({ flags: specs[n], dir: `${root}.build/bench/variants/${n}` });
  if (!built.path) throw new Error(built.reason);
  modules.push(await setupLookbackKernels(built.path));
}

let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 1073741824) - 1;
const randoms = (n) => Float32Array.from({ length: n }, rand);

for (const [kind, x, y] of cases) {
  let c, flops, label;
  if (kind === 'gemm') {
    const M = +x, K = +y, N = 3 * K;
    c = { M, N, K, a: randoms(M * K), b: randoms(K * N) };
    flops = 2 * M * N * K;
    label = `gemm ${M}x${N}x${K}`;
  } else {
    const T = +x, D = +y, H = 6, n = T * H * D;
    c = { T, H, D, qT: randoms(n), kT: randoms(n), vT: randoms(n) };
    flops = 4 * H * D * T * (T + 1) / 2;
    label = `attention T=${T} H=${H} D=${D}`;
  }
  const runs = modules.map((m) => m[kind](c));
  const t0 = cpuMs();
  for (let i = 0; i < 3; i++) runs[0].run();
  const reps = Math.max(1, Math.ceil(8 / Math.max((cpuMs() - t0) / 3, 0.01)));
  const samples = runs.map(() => []);
  const start = performance.now();
  for (let round = 0; round < 5 || (performance.now() - start < budget && round < 200); round++) {
    runs.forEach((r, i) => {
      const c0 = cpuMs();
      for (let j = 0; j < reps; j++) r.run();
      samples[i].push((cpuMs() - c0) / reps);
    });
  }
  const first = runs[0].result();
  const cells = runs.map((r, i) => {
    const s = samples[i].sort((a, b) => a - b);
    const ms = s[Math.floor(s.length / 4)];
    const out = r.result();
    let err = 0, scale = 0;
    for (let j = 0; j < out.length; j++) {
      err = Math.max(err, Math.abs(out[j] - first[j]));
      scale = Math.max(scale, Math.abs(first[j]));
    }
    const differs = !(err / scale <= 1e-5) ? ` DIFFERS (${(err / scale).toExponential(1)})` : '';
    return `${names[i]} ${ms.toFixed(3)} ms ${(flops / ms / 1e6).toFixed(1)} GFLOP/s${differs}`;
  });
  console.log(`${label.padEnd(26)} ${cells.join(' | ')}`);
  runs.forEach((r) => r.dispose());
}
