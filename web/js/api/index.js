// The lookback JS API: loads the WebAssembly core in Node or a browser page/module worker and exposes attention
// functions on plain Float32Arrays. The only JS that touches the Emscripten module; callers never call .delete().
// Not here: the worker protocol (web/js/worker) or anything drawn (web/js/widgets).
import { modelApi } from './model.js';
import { trainApi } from './train.js';
import { f32, options, REQUIRED, scaleFor, u8 } from './options.js';

const IN_NODE = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined'
  && typeof WorkerGlobalScope === 'undefined';

let loading = null;

// Loads the module once per realm (later calls share it). `wasmBinary` (bytes) or `wasmUrl` override the
// default location, the lookback-core.wasm beside this package's web/build/.
export function loadLookback(config = {}) {
  if (!loading || config.wasmBinary || config.wasmUrl) {
    const p = instantiate(config).then(makeApi);
    if (config.wasmBinary || config.wasmUrl) return p;
    loading = p.catch((e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

// One of the two WebAssembly modules in web/build/: lookback-core (always) or lookback-train (on first training).
async function instantiate({ wasmBinary, wasmUrl } = {}, name = 'lookback-core') {
  const moduleUrl = new URL(`../../build/${name}.mjs`, import.meta.url);
  const wasmLocation = wasmUrl ? new URL(wasmUrl, moduleUrl) : new URL(`../../build/${name}.wasm`, import.meta.url);
  let create;
  try {
    ({ default: create } = await import(moduleUrl.href));
  } catch (e) {
    throw new Error(`lookback: cannot load ${moduleUrl.href} (${e.message}); build it with \`npm run build\``);
  }
  const args = {};
  if (wasmBinary) {
    args.wasmBinary = wasmBinary;
  } else if (IN_NODE) {
    const { readFile } = await import('node:fs/promises');
    args.wasmBinary = await readFile(wasmLocation);
  } else {
    args.locateFile = (path) => (path.endsWith('.wasm') ? wasmLocation.href : new URL(path, moduleUrl).href);
  }
  return create(args);
}

// Results of the bindings are either values or Error objects (returned, so that C++ cleans up); throw those.
function checked(result) {
  if (result instanceof Error) throw result;
  return result;
}

function makeApi(M) {
  const api = {
    /** floats per SIMD vector in this build (4 in WebAssembly) */
    simdWidth: () => M.simdWidth(),

    scores(q, k, opts) {
      const o = options('scores', opts, { T: REQUIRED, S: undefined, heads: 1, d: REQUIRED, scale: true });
      return checked(M.scores(f32(q), f32(k), o.T, o.S ?? o.T, o.heads, o.d, scaleFor('scores', o.scale, o.d)));
    },

    causalMask(T, S = T) {
      return checked(M.causalMask(T, S));
    },

    paddingMask(T, S, valid) {
      return checked(M.paddingMask(T, S, valid));
    },

    softmax(x, opts) {
      const o = options('softmax', opts, { rows: 1, cols: undefined, mask: null, temperature: 1 });
      const data = f32(x);
      const cols = o.cols ?? (data?.length ?? 0) / o.rows;
      return checked(M.softmax(data, o.rows, cols, o.temperature, u8(o.mask)));
    },

    blend(weights, v, opts) {
      const o = options('blend', opts, { T: REQUIRED, S: undefined, heads: 1, d: REQUIRED });
      return checked(M.blend(f32(weights), f32(v), o.T, o.S ?? o.T, o.heads, o.d));
    },

    attention(q, k, v, opts) {
      const o = options('attention', opts, {
        T: REQUIRED, S: undefined, heads: 1, kvHeads: undefined, d: REQUIRED, causal: false, mask: null,
        scale: true, temperature: 1, weights: true,
      });
      return checked(M.attention(f32(q), f32(k), f32(v), {
        T: o.T, S: o.S ?? o.T, heads: o.heads, kvHeads: o.kvHeads ?? o.heads, d: o.d,
        scale: scaleFor('attention', o.scale, o.d), temperature: o.temperature, causal: !!o.causal,
        mask: u8(o.mask), weights: !!o.weights,
      }));
    },

    gemm(a, b, opts) {
      const o = options('gemm', opts, { M: REQUIRED, N: REQUIRED, K: REQUIRED, transB: false });
      return checked(M.gemm(f32(a), f32(b), o.M, o.N, o.K, !!o.transB));
    },

    dot(a, b) {
      return checked(M.dot(f32(a), f32(b)));
    },

    /** bytes of WebAssembly memory in use by the heap (for leak checks) */
    heapBytes: () => M.HEAP8.length,

    ...modelApi(M),
  };
  // the training module loads on the first lb.train call, once per realm
  let trainModule = null;
  const loadTrain = () => (trainModule ??= instantiate({}, 'lookback-train').catch((e) => {
    trainModule = null;
    throw e;
  }));
  Object.assign(api, trainApi(loadTrain, api));
  return Object.freeze(api);
}
