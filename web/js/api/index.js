// The lookback JS API: loads the WebAssembly core in Node or a browser page/module worker and exposes attention
// functions on plain Float32Arrays. The only JS that touches the Emscripten module; callers never call .delete().
// The package's browser entry: it imports nothing from Node (web/js/api/node.js is the Node entry).
// Not here: the worker protocol (web/js/worker) or anything drawn (web/js/widgets).
import { CODES, coded } from './errors.js';
import { IN_NODE, nodeHost, readBytes } from './files.js';
import { modelApi } from './model.js';
import { f32, NUMBER, numberArg, options, outArray, REQUIRED, scaleFor, u8 } from './options.js';
import { stagedAttention } from './staged-attention.js';
import { trainApi } from './train.js';
import { weightApi } from './weight.js';

const HERE = import.meta.url;   // kept as a value: bundlers rewrite only new URL('literal', import.meta.url)
const loaded = new Map();  // base URL -> the promise of its API, shared by later calls

// The folder that holds build/ (loader and .wasm) and models/: web/ of this package, unless `baseUrl` says
// where they are served from (a bundled page, a CDN).
function webBase(baseUrl) {
  if (baseUrl === undefined) return new URL('../../', HERE);
  const cwd = IN_NODE ? `file://${encodeURI(process.cwd().replace(/\\/g, '/')).replace(/^\/?/, '/')}/` : undefined;
  const here = globalThis.document?.baseURI ?? globalThis.location?.href ?? cwd;
  const url = baseUrl instanceof URL ? baseUrl : new URL(String(baseUrl), here);
  return url.href.endsWith('/') ? url : new URL(`${url.href}/`);
}

// Loads the module once per realm, base URL and thread count (later calls share it). `baseUrl` relocates the
// loader, the .wasm and the models together; `wasmBinary` (bytes) or `wasmUrl` override the one-thread module's
// .wasm alone. `threads`: 'auto' (every core, at most 8, where threads are possible: always in Node, in pages
// only when cross-origin isolated) or a count; 1, or a page without isolation, loads the one-thread module.
export function loadLookback(config = {}) {
  const o = options('loadLookback', config, { baseUrl: undefined, wasmBinary: undefined, wasmUrl: undefined, threads: 'auto' },
    ['threads']);
  const base = webBase(o.baseUrl);
  const wanted = threadsWanted(o.threads);
  if (o.wasmBinary || o.wasmUrl) return instantiate(base, o).then((M) => makeApi(M, base, 1));
  const key = `${base.href} ${wanted}`;
  if (!loaded.has(key)) {
    loaded.set(key, start(base, wanted).catch((e) => {
      loaded.delete(key);
      throw e;
    }));
  }
  return loaded.get(key);
}

// The threads a `threads` option asks for: a whole number from 1 to 64, or 'auto'.
function threadsWanted(t) {
  if (t === 'auto') return 'auto';
  if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 64) {
    throw coded(CODES.BAD_ARGUMENT, `loadLookback: option "threads" must be 'auto' or a whole number from 1 to 64 (got ${typeof t === 'string' ? JSON.stringify(t) : String(t)})`, { type: TypeError });
  }
  return t;
}

// Threads are possible in Node and in cross-origin-isolated pages and workers (shared memory) whose own origin
// serves the module (the pool's Workers must be same-origin scripts; widgets from another origin run on one).
function canThread(base) {
  if (typeof SharedArrayBuffer !== 'function') return false;
  if (IN_NODE) return true;
  return globalThis.crossOriginIsolated === true && new URL(globalThis.location?.href ?? base.href).origin === base.origin;
}

async function cores() {
  const h = await nodeHost();
  return h ? h.cores() : (globalThis.navigator?.hardwareConcurrency || 1);
}

// The threaded module when threads are wanted and possible (its pool: threads - 1 Workers), else the one-thread
// module; the API's threads() says which.
async function start(base, wanted) {
  const n = wanted === 'auto' ? Math.min(8, await cores()) : wanted;
  if (n <= 1 || !canThread(base)) return makeApi(await instantiate(base), base, 1);
  let M;
  try {
    M = await instantiate(base, {}, 'lookback-core-mt', { lookbackWorkers: n - 1 });
  } catch {
    return makeApi(await instantiate(base), base, 1);  // no threaded module here (or no Workers): one thread
  }
  M.unrefWorkers();
  return makeApi(M, base, M.setThreads(n));
}

// What to do when the core is missing depends on where this copy of the API lives.
function missingCoreAdvice(url) {
  if (url.protocol !== 'file:') return 'serve the folder that holds build/ beside the page, or pass { baseUrl } to loadLookback';
  if (/\/node_modules\//.test(url.pathname)) return 'the installed package is incomplete: reinstall it (npm install lookback)';
  return 'build it with `npm run build`';
}

// One of the WebAssembly modules in build/: lookback-core (always), lookback-core-mt (threaded; in Node its
// CommonJS loader in build/node/, whose Workers load it with require) or lookback-train (on first training).
async function instantiate(base, { wasmBinary, wasmUrl } = {}, name = 'lookback-core', extra = {}) {
  const threaded = name.endsWith('-mt');
  const moduleUrl = new URL(threaded && IN_NODE ? `build/node/${name}.js` : `build/${name}.mjs`, base);
  const wasmLocation = wasmUrl ? new URL(wasmUrl, moduleUrl) : new URL(`build/${name}.wasm`, base);
  let create;
  try {
    ({ default: create } = await import(/* webpackIgnore: true */ /* @vite-ignore */ moduleUrl.href));
  } catch (e) {
    throw coded(CODES.CORE_MISSING, `cannot load the WebAssembly core ${moduleUrl.href} (${e.message}); ${missingCoreAdvice(moduleUrl)}`, { cause: e });
  }
  const args = { ...extra };
  if (wasmBinary) {
    args.wasmBinary = wasmBinary;
  } else if (IN_NODE) {
    try {
      args.wasmBinary = await readBytes(wasmLocation, { what: 'loadLookback' });
    } catch (e) {
      throw coded(CODES.CORE_MISSING, `${e.message}; ${missingCoreAdvice(wasmLocation)}`, { cause: e });
    }
  } else {
    args.locateFile = (path) => (path.endsWith('.wasm') ? wasmLocation.href : new URL(path, moduleUrl).href);
  }
  try {
    return await create(args);
  } catch (e) {
    const what = wasmBinary ? 'the wasmBinary given' : wasmLocation.href;
    throw coded(CODES.CORE_MISSING, `the WebAssembly core (${what}) did not start (${e.message}); ${missingCoreAdvice(wasmLocation)}`, { cause: e });
  }
}

// Results of the bindings are either values or Error objects (returned, so that C++ cleans up); throw those.
function checked(result) {
  if (result instanceof Error) throw Object.assign(result, { code: result.code ?? CODES.BAD_ARGUMENT });
  return result;
}

// The options of an attention call (the shape's, plus those of `attention` or `attentionRow`), with what the
// bindings read for every such call: `shape` (a Float64Array [T, S, heads, kvHeads, d, scale, temperature, causal])
// and `mask` (bytes or null).
const SHAPE_OPTIONS = { T: REQUIRED, S: NUMBER, heads: 1, kvHeads: NUMBER, d: REQUIRED, causal: false, mask: null, scale: true, temperature: 1 };
const ATTENTION_OPTIONS = {
  attention: { ...SHAPE_OPTIONS, weights: true, out: null },
  attentionRow: { ...SHAPE_OPTIONS, head: 0, query: REQUIRED },
};
const UNTYPED_SCALE = ['scale'];

function attentionOptions(fn, opts) {
  const o = options(fn, opts, ATTENTION_OPTIONS[fn], UNTYPED_SCALE);
  // filled element by element into a new object (adding properties to `o`, and Float64Array.of on its fields,
  // cost more than the rest of the option handling: a few microseconds on a call that computes in 100)
  const shape = new Float64Array(8);
  shape[0] = o.T, shape[1] = o.S ?? o.T, shape[2] = o.heads, shape[3] = o.kvHeads ?? o.heads, shape[4] = o.d;
  shape[5] = scaleFor(fn, o.scale, o.d), shape[6] = o.temperature, shape[7] = o.causal ? 1 : 0;
  return { shape, mask: u8(o.mask), weights: o.weights, out: o.out, head: o.head, query: o.query };
}

// q, k, v of an attention call as Float32Arrays (any array-like of numbers converts), errors naming each.
function attentionArrays(fn, q, k, v) {
  return [f32(q, fn, 'q'), f32(k, fn, 'k'), f32(v, fn, 'v')];
}

function makeApi(M, base, threads) {
  const staged = stagedAttention(M, checked);
  const api = {
    /** floats per SIMD vector in this build (4 in WebAssembly) */
    simdWidth: () => M.simdWidth(),

    /** threads the core computes on (1: the one-thread module) */
    threads: () => threads,

    scores(q, k, opts) {
      const o = options('scores', opts, { T: REQUIRED, S: NUMBER, heads: 1, d: REQUIRED, scale: true }, ['scale']);
      return checked(M.scores(f32(q, 'scores', 'q'), f32(k, 'scores', 'k'), o.T, o.S ?? o.T, o.heads, o.d, scaleFor('scores', o.scale, o.d)));
    },

    causalMask(T, S = T) {
      return checked(M.causalMask(numberArg('causalMask', 'T', T), numberArg('causalMask', 'S', S)));
    },

    paddingMask(T, S, valid) {
      const n = (name, x) => numberArg('paddingMask', name, x);
      return checked(M.paddingMask(n('T', T), n('S', S), n('valid', valid)));
    },

    softmax(x, opts) {
      const o = options('softmax', opts, { rows: 1, cols: NUMBER, mask: null, temperature: 1 });
      const data = f32(x, 'softmax', 'x');
      const cols = o.cols ?? (data?.length ?? 0) / o.rows;
      return checked(M.softmax(data, o.rows, cols, o.temperature, u8(o.mask)));
    },

    blend(weights, v, opts) {
      const o = options('blend', opts, { T: REQUIRED, S: NUMBER, heads: 1, d: REQUIRED });
      return checked(M.blend(f32(weights, 'blend', 'weights'), f32(v, 'blend', 'v'), o.T, o.S ?? o.T, o.heads, o.d));
    },

    attention(q, k, v, opts) {
      const o = attentionOptions('attention', opts);
      const arrays = attentionArrays('attention', q, k, v);
      const fast = staged(...arrays, o);
      if (fast) return fast;
      const out = outArray(o.out);
      const r = checked(M.attention(...arrays, o.shape, o.mask, !!o.weights, out.value));
      return { ...r, output: out.finish(r.output) };
    },

    /** one (head, query) row of the scalar reference attention with every intermediate (float64): score
     * (-Infinity where hidden), max, e = exp(score - max), sum, weight, out; sees = false if nothing is visible */
    attentionRow(q, k, v, opts) {
      const o = attentionOptions('attentionRow', opts);
      return checked(M.attentionRow(...attentionArrays('attentionRow', q, k, v), o.shape, o.mask, o.head, o.query));
    },

    gemm(a, b, opts) {
      const o = options('gemm', opts, { M: REQUIRED, N: REQUIRED, K: REQUIRED, transB: false, out: null });
      const arrays = [f32(a, 'gemm', 'a'), f32(b, 'gemm', 'b')], out = outArray(o.out);
      return out.finish(checked(M.gemm(...arrays, o.M, o.N, o.K, !!o.transB, out.value)));
    },

    dot(a, b) {
      return checked(M.dot(f32(a, 'dot', 'a'), f32(b, 'dot', 'b')));
    },

    /** bytes of WebAssembly memory in use by the heap (for leak checks) */
    heapBytes: () => M.HEAP8.length,

    ...weightApi(M),
    ...modelApi(M, base),
  };
  // the training module loads on the first lb.train call, once per realm
  let trainModule = null;
  const loadTrain = () => (trainModule ??= instantiate(base, {}, 'lookback-train').catch((e) => {
    trainModule = null;
    throw e;
  }));
  Object.assign(api, trainApi(loadTrain, api));
  return Object.freeze(api);
}
