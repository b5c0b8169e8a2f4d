// The model half of the lookback JS API: loadModel(source) and the Model it returns (encode, decode, tokens,
// forward, next, generate, window, dispose), over the handle-based bindings of wasm/bindings/model.cpp (a
// window model's bundle gives the WindowModel of window-model.js instead).
// Finds files (a bundled model by name, a URL or path, or bytes), passes plain arrays in and out, and turns
// the bindings' returned Error objects into throws. Not here: the attention functions (index.js), any
// computation (the WebAssembly core), the worker protocol (web/js/worker).
import { options } from './options.js';
import { LoadedModel, checked } from './loaded-model.js';
import { WindowModel, isWindowConfig } from './window-model.js';

const IN_NODE = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined'
  && typeof WorkerGlobalScope === 'undefined';

const BUNDLE_FILES = { weights: 'model.safetensors', config: 'config.json', tokenizer: 'tokenizer.json' };
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

// ---- finding and reading files -------------------------------------------------------------------------

// A URL for a string or URL: absolute URLs as they are; in Node a plain string is a file path.
async function locate(where) {
  if (where instanceof URL) return where;
  if (typeof where !== 'string' || where === '') throw new TypeError('loadModel: a location must be a non-empty string or URL');
  if (/^[a-z][a-z0-9+.-]*:/i.test(where) && !/^[a-z]:[\\/]/i.test(where)) return new URL(where);
  if (IN_NODE) {
    const { pathToFileURL } = await import('node:url');
    const { resolve } = await import('node:path');
    const { statSync } = await import('node:fs');
    let dir = false;
    try {
      dir = statSync(where).isDirectory();
    } catch { /* missing: reported when read */ }
    return pathToFileURL(resolve(where) + (dir ? '/' : ''));
  }
  return new URL(where, globalThis.document?.baseURI ?? globalThis.location?.href);
}

async function readBytes(url) {
  if (url.protocol === 'file:' && IN_NODE) {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    try {
      return new Uint8Array(await readFile(fileURLToPath(url)));
    } catch (e) {
      throw new Error(`loadModel: cannot read ${fileURLToPath(url)} (${e.code || e.message})`);
    }
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`loadModel: cannot fetch ${url.href} (${e.message})`);
  }
  if (!response.ok) throw new Error(`loadModel: cannot fetch ${url.href} (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

const readText = async (url) => new TextDecoder().decode(await readBytes(url));

async function exists(url) {
  if (url.protocol === 'file:' && IN_NODE) {
    const { existsSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    return existsSync(fileURLToPath(url));
  }
  return true;  // over the network, the first fetch says
}

// The folder of a bundled model: web/models/<name>/ (copied there by the build), else shared/models/<name>/.
async function bundledFolder(name) {
  const served = new URL(`../../models/${name}/`, import.meta.url);
  if (!IN_NODE || (await exists(new URL(BUNDLE_FILES.config, served)))) return served;
  const source = new URL(`../../../shared/models/${name}/`, import.meta.url);
  if (await exists(new URL(BUNDLE_FILES.config, source))) return source;
  throw new Error(`loadModel: no bundled model named "${name}" (looked in web/models/${name}/ and shared/models/${name}/)`);
}

function asBytes(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError(`loadModel: ${what} must be bytes (Uint8Array or ArrayBuffer)`);
}

function asJsonText(x, what) {
  if (typeof x === 'string') return x;
  if (x instanceof Uint8Array || x instanceof ArrayBuffer) return new TextDecoder().decode(x);
  if (x && typeof x === 'object') return JSON.stringify(x);
  throw new TypeError(`loadModel: ${what} must be JSON text, bytes or an object`);
}

// safetensors files start with an 8-byte header length and then '{'.
function looksLikeSafetensors(bytes) {
  return bytes.length > 9 && bytes[8] === 0x7b && bytes[6] === 0 && bytes[7] === 0;
}

// Any source -> the files a binding needs: { kind: 'bundle', weights, config, tokenizer } or
// { kind: 'llama2c', checkpoint, tokenizer }.
async function resolveSource(source, opts) {
  const extra = async (value, what, reader) => {
    if (value === undefined) return undefined;
    const isJson = typeof value === 'string' && value.trimStart().startsWith('{');
    return (typeof value === 'string' && !isJson) || value instanceof URL ? reader(await locate(value)) : value;
  };
  let tokenizer = await extra(opts.tokenizer, 'tokenizer', readBytes);
  const config = await extra(opts.config, 'config', readText);
  if (source && typeof source === 'object' && !(source instanceof URL) && !ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    if (source.checkpoint) return { kind: 'llama2c', checkpoint: asBytes(source.checkpoint, 'checkpoint'), tokenizer: asBytes(source.tokenizer ?? tokenizer, 'tokenizer') };
    if (source.weights) return { kind: 'bundle', weights: asBytes(source.weights, 'weights'), config: asJsonText(source.config ?? config, 'config'), tokenizer: asJsonText(source.tokenizer ?? tokenizer, 'tokenizer') };
    throw new TypeError('loadModel: an object source needs { weights, config, tokenizer } or { checkpoint, tokenizer }');
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const bytes = asBytes(source, 'the model');
    if (tokenizer === undefined) throw new TypeError('loadModel: with model bytes, pass { tokenizer } too (and { config } for safetensors)');
    if (looksLikeSafetensors(bytes)) {
      if (config === undefined) throw new TypeError('loadModel: safetensors bytes need { config } (config.json) too');
      return { kind: 'bundle', weights: bytes, config: asJsonText(config, 'config'), tokenizer: asJsonText(tokenizer, 'tokenizer') };
    }
    return { kind: 'llama2c', checkpoint: bytes, tokenizer: asBytes(tokenizer, 'tokenizer') };
  }
  const isName = typeof source === 'string' && NAME.test(source) && !/\.(bin|safetensors)$/i.test(source);
  const url = isName ? await bundledFolder(source) : await locate(source);
  if (/\.bin$/i.test(url.pathname)) {
    if (tokenizer === undefined) {
      const beside = new URL('tokenizer.bin', url);
      if (!IN_NODE || !(await exists(beside))) {
        throw new TypeError('loadModel: a llama2.c checkpoint needs its tokenizer: pass { tokenizer } (the tokenizer .bin)');
      }
      tokenizer = await readBytes(beside);
    }
    return { kind: 'llama2c', checkpoint: await readBytes(url), tokenizer: asBytes(tokenizer, 'tokenizer') };
  }
  // a .safetensors file (config.json and tokenizer.json beside it), else a bundle folder
  const lone = /\.safetensors$/i.test(url.pathname);
  const folder = lone ? new URL('./', url) : url.pathname.endsWith('/') ? url : new URL(`${url.href}/`);
  const weightsUrl = lone ? url : new URL(BUNDLE_FILES.weights, folder);
  // read together, but report the first failure in file order (weights, config, tokenizer), whichever fails first
  const settled = await Promise.allSettled([
    readBytes(weightsUrl),
    config !== undefined ? asJsonText(config, 'config') : readText(new URL(BUNDLE_FILES.config, folder)),
    tokenizer !== undefined ? asJsonText(tokenizer, 'tokenizer') : readText(new URL(BUNDLE_FILES.tokenizer, folder)),
  ]);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [weights, configText, tokText] = settled.map((r) => r.value);
  return { kind: 'bundle', weights, config: configText, tokenizer: tokText };
}

// ---- the model ------------------------------------------------------------------------------------------

class Model extends LoadedModel {
  constructor(M, info) {
    super(M, info, { encode: 'modelEncode', decode: 'modelDecode', tokens: 'modelTokens', dispose: 'modelDispose' });
  }

  /** the context: the most tokens one call can look at */
  get context() {
    return this.info.config.max_seq_len;
  }

  window(ids, size = this.context) {
    return Array.from(checked(this.M.modelWindow(this.live('window'), ids, size)));
  }

  forward(textOrIds, opts) {
    const o = options('forward', opts, { attention: false, positions: true, residuals: false, window: false });
    const r = checked(this.M.modelForward(this.live('forward'), this.ids('forward', textOrIds), {
      attention: !!o.attention, positions: !!o.positions, residuals: !!o.residuals, window: !!o.window,
    }));
    return { ...r, ids: Array.from(r.ids) };
  }

  next(textOrIds, opts) {
    const o = options('next', opts, { topK: 10, temperature: 1, positions: true, window: false });
    return checked(this.M.modelNext(this.live('next'), this.ids('next', textOrIds), {
      topK: Math.min(o.topK, this.info.config.vocab_size), temperature: o.temperature, positions: !!o.positions,
      window: !!o.window,
    }));
  }

  generate(prompt, opts) {
    const o = options('generate', opts, { maxTokens: 64, temperature: 0.8, topP: 0.95, seed: 1, window: false, positions: true });
    const r = checked(this.M.modelGenerate(this.live('generate'), this.ids('generate', prompt), {
      maxTokens: o.maxTokens, temperature: o.temperature, topP: o.topP, seed: o.seed, window: !!o.window,
      positions: !!o.positions,
    }));
    return { ...r, ids: Array.from(r.ids) };
  }

  /** measured habits of every head: weight on the previous token, the start mark and 4+ back over the
   * texts, the induction score over random sequences repeated twice, and the weights on the start mark and on
   * the previous token while reading such a sequence the first time; each beside an even spread's */
  headScores(texts, opts) {
    const half = Math.floor((this.context - 1) / 2);
    const o = options('headScores', opts, { repeats: 4, repeatLength: Math.min(50, half), seed: 1, best: 3 });
    if (!Array.isArray(texts)) throw new TypeError('headScores: texts must be an array of texts or id arrays');
    const ids = texts.map((t) => this.ids('headScores', t));
    const r = checked(this.M.modelHeadScores(this.live('headScores'), ids, {
      repeats: o.repeats, repeatLength: o.repeatLength, seed: o.seed,
    }));
    const H = r.heads;
    const habit = ({ score, even, count }) => {
      const order = [...score.keys()].sort((a, b) => score[b] - score[a] || a - b);
      return {
        byLayer: Array.from({ length: r.layers }, (_, l) => Array.from(score.subarray(l * H, (l + 1) * H))),
        even, count,
        best: order.slice(0, o.best).map((i) => ({ layer: Math.floor(i / H), head: i % H, score: score[i] })),
      };
    };
    return {
      layers: r.layers, heads: H, previous: habit(r.previous), first: habit(r.first), far: habit(r.far),
      induction: habit(r.induction), firstOnRandom: habit(r.firstRandom), previousOnRandom: habit(r.previousRandom),
    };
  }
}

// The model functions added to the API object of one loaded module M.
export function modelApi(M) {
  return {
    /** a model by bundled name ("sprout", "window"), URL or path (bundle folder, .safetensors, llama2.c .bin),
     * or bytes; a bundle whose config.json says "arch": "window" gives a WindowModel (window-model.js) */
    async loadModel(source, opts) {
      const o = options('loadModel', opts, { tokenizer: undefined, config: undefined });
      const files = await resolveSource(source, o);
      if (files.kind === 'bundle' && isWindowConfig(files.config)) {
        return new WindowModel(M, checked(M.windowLoad(files.weights, files.config, files.tokenizer)));
      }
      const info = files.kind === 'bundle'
        ? M.modelLoadBundle(files.weights, files.config, files.tokenizer)
        : M.modelLoadLlama2c(files.checkpoint, files.tokenizer);
      return new Model(M, checked(info));
    },

    /** a safetensors file of random weights for a config (for tests and demos) */
    randomWeights(config, opts) {
      const o = options('randomWeights', opts, { seed: 1, f16: false });
      return checked(M.modelRandomWeights(asJsonText(config, 'config'), o.seed, !!o.f16));
    },
  };
}
