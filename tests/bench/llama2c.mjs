// The llama2.c peer of the model rows: builds llama2c/harness.c (run.c unmodified, MIT) with
// `emcc -O3 -msimd128 -ffast-math`, one thread, into .build/bench/llama2c-run.{mjs,wasm} (rebuilt only when a
// source is newer), and wraps it: load a checkpoint from bytes, greedy decoding, logits of one step.
// Not lookback code, not a test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = `${root}.build/bench`;
export const RUNC_FLAGS = ['-O3', '-msimd128', '-ffast-math'];

// { path } of the built module, or { path: null, reason } when emcc is unavailable.
export function buildRunC() {
  const dir = `${root}tests/bench/llama2c`;
  const sources = [`${dir}/harness.c`, `${dir}/run.c`];
  const target = `${out}/llama2c-run.mjs`, wasm = `${out}/llama2c-run.wasm`;
  mkdirSync(out, { recursive: true });
  if (existsSync(target) && existsSync(wasm) && sources.every((f) => statSync(f).mtimeMs < statSync(wasm).mtimeMs)) {
    return { path: target };
  }
  const args = [...RUNC_FLAGS, `${dir}/harness.c`, '-o', target, '-sMODULARIZE=1', '-sEXPORT_ES6=1',
    '-sEXPORT_NAME=createRunC', '-sENVIRONMENT=web', '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB',
    '-sEXPORTED_FUNCTIONS=_malloc,_free', '-sFILESYSTEM=0'];
  const r = spawnSync('emcc', args, { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  if (r.error) return { path: null, reason: `emcc not runnable (${r.error.message})` };
  if (r.status !== 0) throw new Error(`building run.c failed:\n${r.stderr}`);
  return { path: target };
}

// A fresh module instance (its own memory) per checkpoint, so that a large model's heap goes with it.
export async function loadRunC(modulePath, checkpoint) {
  const { default: create } = await import(modulePath);
  const M = await create({ wasmBinary: await readFile(modulePath.replace(/\.mjs$/, '.wasm')) });
  const t0 = performance.now();
  const p = M._malloc(checkpoint.length);
  M.HEAPU8.set(checkpoint, p);
  const t = M._rc_load(p, checkpoint.length);
  const loadMs = performance.now() - t0;
  if (!t) throw new Error('run.c: the checkpoint is too small');
  const vocab = M._rc_vocab(t), seqLen = M._rc_seq_len(t);
  const ints = M._malloc(4 * seqLen);
  return {
    loadMs, vocab, seqLen,
    greedy(token, steps) {  // -> Int32Array of the chosen tokens
      M._rc_greedy(t, token, steps, ints);
      return new Int32Array(M.HEAP32.buffer, ints, steps).slice();
    },
    logits(token, pos) {
      const p = M._rc_forward(t, token, pos);
      return new Float32Array(M.HEAPF32.buffer, p, vocab).slice();
    },
    dispose() {
      M._free(ints);
      M._rc_free(t);
    },
  };
}
