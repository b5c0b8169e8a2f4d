// The benchmark's backends. Each `setup*` loads one library once and returns { name, attention(c), gemm(c) };
// those take a prepared case (inputs in both layouts, see core.bench.mjs) and return { run, result } (or null when
// the backend has no such case: the resident-weight backends do only gemm): `run()` is the
// timed call (copies in and out included, as a user would call it; may return a promise), `result()` gives the
// last output as [H,T,D] (attention) or [M,N] (gemm) for the check. Single thread everywhere.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';

import { attentionModel, gemmConstModel, gemmModel } from './onnx-graphs.mjs';

const require = createRequire(import.meta.url);

// [T,H,D] <-> [H,T,D]
export function thdToHtd(x, T, H, D) {
  const y = new Float32Array(x.length);
  for (let t = 0; t < T; t++) for (let h = 0; h < H; h++) y.set(x.subarray((t * H + h) * D, (t * H + h + 1) * D), (h * T + t) * D);
  return y;
}

// Runs f while noting the .wasm files read through node:fs (to show which build a library loads).
async function wasmFilesRead(f) {
  const fs = require('node:fs');
  const seen = [];
  const { readFileSync } = fs;
  fs.readFileSync = function (p, ...rest) {
    if (String(p).endsWith('.wasm')) seen.push(String(p).replace(/^.*node_modules\//, ''));
    return readFileSync.call(this, p, ...rest);
  };
  try {
    await f();
  } finally {
    fs.readFileSync = readFileSync;
  }
  return seen;
}

// ---- onnxruntime-web, WebAssembly execution provider ------------------------------------------------
export async function setupOrt() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  // the runtime loads on the first session: a tiny one, to see which binary it reads
  const binary = await wasmFilesRead(async () => (await ort.InferenceSession.create(gemmModel(1, 1, 1), opts)).release());
  const version = ort.env.versions?.web;
  return {
    name: 'ort-web',
    info: { version, binary: binary.join(', '), numThreads: ort.env.wasm.numThreads, executionProvider: 'wasm',
      graphOptimizationLevel: 'all' },
    async attention(c) {
      const { H, T, D } = c;
      const session = await ort.InferenceSession.create(attentionModel(H, T, D), opts);
      let last = null;
      const run = async () => {
        const feeds = {
          q: new ort.Tensor('float32', c.q, [H, T, D]),
          k: new ort.Tensor('float32', c.k, [H, T, D]),
          v: new ort.Tensor('float32', c.v, [H, T, D]),
        };
        last = (await session.run(feeds)).out.data;
      };
      return { run, result: () => last, dispose: () => session.release() };
    },
    async gemm(c) {
      const { M, N, K } = c;
      const session = await ort.InferenceSession.create(gemmModel(M, N, K), opts);
      let last = null;
      const run = async () => {
        const feeds = { a: new ort.Tensor('float32', c.a, [M, K]), b: new ort.Tensor('float32', c.b, [K, N]) };
        last = (await session.run(feeds)).c.data;
      };
      return { run, result: () => last, dispose: () => session.release() };
    },
  };
}

// ---- the same three libraries with the GEMM's B kept resident (made once per case, outside the timing) -------
// onnxruntime-web: B as a graph initializer; tfjs: a tensor made once; lookback: lb.weight (packed once).
export async function setupResident(libs) {
  const { ort, tf, lb } = libs;
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const backend = (name, info, gemm) => ({ name, info, attention: () => null, gemm });
  return [
    backend('ort-web-resident', { note: 'B as an initializer of the graph' }, async (c) => {
      const { M, N, K } = c;
      const session = await ort.InferenceSession.create(gemmConstModel(M, N, K, c.b), opts);
      let last = null;
      const run = async () => {
        last = (await session.run({ a: new ort.Tensor('float32', c.a, [M, K]) })).c.data;
      };
      return { run, result: () => last, dispose: () => session.release() };
    }),
    backend('tfjs-resident', { note: 'B as a tensor made once' }, (c) => {
      const { M, N, K } = c;
      const b = tf.tensor2d(c.b, [K, N]);
      let last = null;
      const run = () => {
        const out = tf.tidy(() => tf.matMul(tf.tensor2d(c.a, [M, K]), b));
        last = out.dataSync();
        out.dispose();
      };
      return { run, result: () => last, dispose: () => b.dispose() };
    }),
    backend('lookback-resident', { path: 'public JS API: lb.weight(b) once, then weight.gemm(a, { out }) into one reused array' }, (c) => {
      const { M, N, K } = c;
      const w = lb.weight(c.b, { K, N });
      const out = new Float32Array(M * N);
      let last = null;
      const run = () => {
        last = w.gemm(c.a, { M, out });
      };
      return { run, result: () => last, dispose: () => w.dispose() };
    }),
  ];
}

// ---- TensorFlow.js, WebAssembly backend (XNNPACK), SIMD build without threads ------------------------------
export async function setupTfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const tfwasm = await import('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // the non-threaded build, tfjs-backend-wasm-simd.wasm
  tfwasm.setThreadsCount(1);
  const loaded = await wasmFilesRead(async () => {
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
    await tf.ready();
  });
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  if (!simd || !loaded.some((p) => p.endsWith('tfjs-backend-wasm-simd.wasm'))) {
    throw new Error(`tfjs: expected the SIMD build, loaded ${loaded.join(', ') || 'nothing'} (SIMD support: ${simd})`);
  }
  const version = tfwasm.version_wasm;
  return {
    name: 'tfjs-wasm',
    info: { version, binary: loaded.join(', '), threads: tfwasm.getThreadsCount(), simd },
    attention(c) {
      const { H, T, D } = c;
      const mask = tf.tensor2d(c.maskAdd, [T, T]);
      const scale = tf.scalar(1 / Math.sqrt(D));
      let last = null;
      const run = () => {
        const out = tf.tidy(() => {
          const q = tf.tensor3d(c.q, [H, T, D]);
          const k = tf.tensor3d(c.k, [H, T, D]);
          const v = tf.tensor3d(c.v, [H, T, D]);
          const s = tf.add(tf.mul(tf.matMul(q, k, false, true), scale), mask);
          return tf.matMul(tf.softmax(s), v);
        });
        last = out.dataSync();
        out.dispose();
      };
      return { run, result: () => last, dispose: () => tf.dispose([mask, scale]) };
    },
    gemm(c) {
      const { M, N, K } = c;
      let last = null;
      const run = () => {
        const out = tf.tidy(() => tf.matMul(tf.tensor2d(c.a, [M, K]), tf.tensor2d(c.b, [K, N])));
        last = out.dataSync();
        out.dispose();
      };
      return { run, result: () => last, dispose: () => {} };
    },
  };
}

// ---- plain JavaScript: Float32Array and straightforward loops ------------------------------------------
export function setupPlainJs() {
  return {
    name: 'plain-js',
    info: { note: 'causal loops skip hidden keys; gemm loop order i-k-j' },
    attention(c) {
      const { H, T, D, q, k, v } = c;
      const scale = 1 / Math.sqrt(D);
      let last = null;
      const run = () => {
        const out = new Float32Array(H * T * D);
        const s = new Float32Array(T);
        for (let h = 0; h < H; h++) {
          const base = h * T * D;
          for (let t = 0; t < T; t++) {
            let mx = -Infinity;
            for (let j = 0; j <= t; j++) {
              let acc = 0;
              for (let d = 0; d < D; d++) acc += q[base + t * D + d] * k[base + j * D + d];
              s[j] = acc * scale;
              if (s[j] > mx) mx = s[j];
            }
            let sum = 0;
            for (let j = 0; j <= t; j++) sum += s[j] = Math.exp(s[j] - mx);
            const o = base + t * D;
            for (let j = 0; j <= t; j++) {
              const w = s[j] / sum;
              for (let d = 0; d < D; d++) out[o + d] += w * v[base + j * D + d];
            }
          }
        }
        last = out;
      };
      return { run, result: () => last, dispose: () => {} };
    },
    gemm(c) {
      const { M, N, K, a, b } = c;
      let last = null;
      const run = () => {
        const out = new Float32Array(M * N);
        for (let i = 0; i < M; i++) {
          for (let p = 0; p < K; p++) {
            const x = a[i * K + p];
            for (let j = 0; j < N; j++) out[i * N + j] += x * b[p * N + j];
          }
        }
        last = out;
      };
      return { run, result: () => last, dispose: () => {} };
    },
  };
}

// ---- lookback through its public JS API (copies in and out, argument checks) ------------------------------
// threads: 1 (the one-thread module, as every peer runs) or 'auto' (the threaded module on every core).
export async function setupLookback(threads = 1) {
  const { loadLookback } = await import('../../web/js/api/index.js');
  const lb = await loadLookback({ threads });
  return {
    name: threads === 1 ? 'lookback' : 'lookback-threads',
    info: { path: 'public JS API (lb.attention weights:false, lb.gemm; each with an output array reused: out)', simdWidth: lb.simdWidth(), threads: lb.threads() },
    attention(c) {
      const { H, T, D } = c;
      const out = new Float32Array(T * H * D);
      let last = null;
      const run = () => {
        last = lb.attention(c.qT, c.kT, c.vT, { T, heads: H, d: D, causal: true, weights: false, out }).output;
      };
      return { run, result: () => last && thdToHtd(last, T, H, D), dispose: () => {} };
    },
    gemm(c) {
      const { M, N, K } = c;
      const out = new Float32Array(M * N);
      let last = null;
      const run = () => {
        last = lb.gemm(c.a, c.b, { M, N, K, out });
      };
      return { run, result: () => last, dispose: () => {} };
    },
  };
}

// ---- lookback kernels alone (benchmark-only module: buffers stay in the heap, no copies, no checks) --------
export async function setupLookbackKernels(modulePath) {
  const { default: create } = await import(modulePath);
  const M = await create({ wasmBinary: await readFile(modulePath.replace(/\.mjs$/, '.wasm')) });
  const alloc = (n) => M._malloc(4 * n);
  const view = (p, n) => new Float32Array(M.HEAPF32.buffer, p, n);  // re-made after every allocation
  return {
    name: 'lookback-kernel',
    info: { path: 'kernels called directly on heap buffers (benchmark-only module)', simdWidth: M._bench_simd_width() },
    attention(c) {
      const { H, T, D } = c;
      const n = T * H * D;
      const [pq, pk, pv, po] = [alloc(n), alloc(n), alloc(n), alloc(n)];
      view(pq, n).set(c.qT);
      view(pk, n).set(c.kT);
      view(pv, n).set(c.vT);
      const run = () => { M._bench_attention(pq, pk, pv, po, T, H, D, 1); };  // (a returned number would count as units)
      return {
        run,
        result: () => thdToHtd(view(po, n).slice(), T, H, D),
        dispose: () => [pq, pk, pv, po].forEach((p) => M._free(p)),
      };
    },
    gemm(c) {
      const { M: m, N, K } = c;
      const [pa, pb, pc] = [alloc(m * K), alloc(K * N), alloc(m * N)];
      view(pa, m * K).set(c.a);
      view(pb, K * N).set(c.b);
      const run = () => M._bench_gemm(m, N, K, pa, pb, pc, 0);
      return { run, result: () => view(pc, m * N).slice(), dispose: () => [pa, pb, pc].forEach((p) => M._free(p)) };
    },
  };
}
