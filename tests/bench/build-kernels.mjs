// Builds the benchmark-only kernel module (.build/bench/lookback-kernels.{mjs,wasm}) straight from the
// kernel sources with em++ and the project's flags (-O3 -msimd128 -msse4.1), so that kernels can be timed
// without the bindings' copies and checks. Rebuilds only when a source is newer than the output.
// Returns the module path, or null (with the reason) when em++ is unavailable.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = `${root}.build/bench`;

// `flags`: extra compiler flags (e.g. -D overrides of the kernels' tuning constants) for a variant built into
// `dir` instead; for trying tuning choices side by side.
export function buildKernelModule({ flags = [], dir = out } = {}) {
  const kernelDir = `${root}wasm/src/kernels`;
  // only what the entry points use, so that other kernels' dependencies never matter here
  const sources = [`${root}tests/bench/kernels.cpp`, `${kernelDir}/gemm.cpp`, `${kernelDir}/attention.cpp`,
    `${kernelDir}/attention_few.cpp`, `${kernelDir}/dot.cpp`];
  const deps = [...sources, `${root}wasm/include/lookback/kernels.hpp`,
    ...readdirSync(kernelDir).filter((f) => f.endsWith('.hpp')).map((f) => `${kernelDir}/${f}`)];
  mkdirSync(dir, { recursive: true });
  const target = `${dir}/lookback-kernels.mjs`;
  const wasm = `${dir}/lookback-kernels.wasm`;
  if (!flags.length && existsSync(target) && existsSync(wasm)) {
    const built = statSync(wasm).mtimeMs;
    if (deps.every((f) => statSync(f).mtimeMs < built)) return { path: target };
  }
  // third-party headers through a private include folder (-I/usr/include breaks Emscripten's libc)
  const inc = `${out}/include`;
  mkdirSync(inc, { recursive: true });
  if (!existsSync(`${inc}/xsimd`)) symlinkSync('/usr/include/xsimd', `${inc}/xsimd`);
  const args = ['-std=c++17', '-O3', '-msimd128', '-msse4.1', '-fexceptions', `-I${root}wasm/include`,
    `-I${root}wasm/src`, '-isystem', inc, ...flags, ...sources, '-o', target,
    '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sEXPORT_NAME=createKernels', '-sENVIRONMENT=web',
    '-sALLOW_MEMORY_GROWTH=1', '-sEXPORTED_FUNCTIONS=_malloc,_free', '-sFILESYSTEM=0'];
  const r = spawnSync('em++', args, { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  if (r.error) return { path: null, reason: `em++ not runnable (${r.error.message})` };
  if (r.status !== 0) throw new Error(`building the kernel module failed:\n${r.stderr}`);
  return { path: target };
}
