// The page of the wllama comparison (wllama.bench.mjs): lookback (in its own module Worker, wllama-worker.js) and
// @wllama/wllama (llama.cpp in WebAssembly, its own Worker) on the same GGUF, both on 1 or 2 threads. Each side
// is opened under a name, and time(name, measure) runs one timed call from this page (wall clock, the message to
// the worker and back included on both sides). Loaded by the bench's page only; not part of the chapter.
import { Wllama } from './wllama/esm/index.js';
import { fetchParts } from './wllama-worker.js';

const PREFILL = 128;
const sides = new Map();

// The prompts: the start mark and one ordinary token for decoding (as decode.mjs), and two prompts of PREFILL
// ids that differ at position 1, so that consecutive prefills never share a cached prefix.
function prompts(V, bos) {
  let s = 777 + PREFILL;
  const pick = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return 3 + (s >>> 8) % (V - 3);
  };
  const base = [bos, ...Array.from({ length: PREFILL - 1 }, pick)];
  return { decode: [bos, Math.min(V - 1, 300)], prefill: [base, [bos, base[1] === 3 ? 4 : 3, ...base.slice(2)]] };
}

function lookbackWorker() {
  const w = new Worker(new URL('./wllama-worker.js', import.meta.url), { type: 'module' });
  let queue = Promise.resolve();
  const call = (op, arg) => (queue = queue.then(() => new Promise((resolve, reject) => {
    w.onmessage = ({ data }) => (data.error ? reject(new Error(data.error)) : resolve(data.ok));
    w.postMessage([op, arg]);
  })));
  return { call, terminate: () => w.terminate() };
}

// name: the side's key; kind: 'lookback' | 'wllama'; threads: 1 | 2; url: the GGUF; V, bos: the vocabulary;
// steps: greedy steps per decoding call.
export async function open({ name, kind, threads, url, V, bos, steps: STEPS }) {
  const p = prompts(V, bos);
  const t0 = performance.now();
  if (kind === 'lookback') {
    const w = lookbackWorker();
    const info = await w.call('load', { threads, url });
    let i = 0;
    sides.set(name, {
      info, p,
      decode: async () => (await w.call('decode', { prompt: p.decode, steps: STEPS })).passes,
      prefill: async () => (await w.call('prefill', { ids: p.prefill[i++ % 2] }), PREFILL),
      greedy: async (steps) => (await w.call('decode', { prompt: p.decode, steps })).ids,
      top: (ids, k) => w.call('prefill', { ids, top: k }),
      close: async () => (await w.call('dispose'), w.terminate()),
    });
  } else {
    const base = new URL('./wllama/esm/', import.meta.url).href;
    const wl = new Wllama({ 'single-thread/wllama.wasm': `${base}single-thread/wllama.wasm`, 'multi-thread/wllama.wasm': `${base}multi-thread/wllama.wasm` },
      { suppressNativeLog: true, logger: { debug() {}, log() {}, warn: console.warn, error: console.error } });
    const blob = await fetchParts(url);
    await wl.loadModel([blob], { n_threads: threads, n_ctx: 256, n_batch: PREFILL, seed: 1 });
    // llama.cpp's own timing loops (test_benchmark in wllama's glue): 'tg' decodes STEPS tokens one by one from
    // position 0, 'pp' one batch of PREFILL tokens with the last position's logits; each clears the cache first
    const bench = async (type, n) => {
      const r = await wl._testBenchmark(type, n);
      if (r.success === false) throw new Error(`wllama ${type}: ${r.message}`);
      return n;
    };
    // greedy steps through the ordinary API: decode() and the top token of the logits
    const greedy = async (steps) => {
      await wl.kvClear();
      await wl.decode(p.decode, {});
      const ids = [];
      for (let s = 0; s < steps; s++) {
        const [t] = await wl.getLogits(1);
        ids.push(t.token);
        await wl.decode([t.token], {});
      }
      return ids;
    };
    const top = async (ids, k) => {
      await wl.kvClear();
      await wl.decode(ids, {});
      return (await wl.getLogits(k)).map((t) => ({ id: t.token, p: t.p }));
    };
    sides.set(name, {
      info: { threads: wl.getNumThreads(), multithread: wl.isMultithread(), context: wl.getLoadedContextInfo() },
      p, decode: () => bench('tg', STEPS), prefill: () => bench('pp', PREFILL), greedy, top,
      close: () => wl.exit(),
    });
  }
  const s = sides.get(name);
  return { ...s.info, load_ms: performance.now() - t0 };
}

// One timed call: ms per token (wall clock in this page) and the tokens it processed.
export async function time(name, measure) {
  const t0 = performance.now();
  const n = await sides.get(name)[measure]();
  return { ms_per_token: (performance.now() - t0) / n, tokens: n };
}

// Greedy ids from the decoding prompt (and the ms per step they took, wllama's through its ordinary API: a
// message per decode() and per getLogits()), and the top tokens after the first prefill prompt.
export async function tokens(name, steps, k) {
  const s = sides.get(name);
  const t0 = performance.now();
  const greedy = await s.greedy(steps);
  return { greedy, greedy_ms_per_token: (performance.now() - t0) / steps, top: await s.top(s.p.prefill[0], k) };
}

export async function close(name) {
  await sides.get(name)?.close();
  sides.delete(name);
}
