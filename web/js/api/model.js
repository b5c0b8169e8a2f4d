// The model half of the lookback JS API: loadModel(source, { onProgress, signal }) and the Model it returns
// (encode, decode, tokens, forward, next, generate, stream, window, headScores, dispose), over the handle-based
// bindings of wasm/bindings/model.cpp (a window model's bundle gives the WindowModel of window-model.js instead;
// what both share is loaded-model.js). Resolves sources (a bundled model by name under the API's base URL, a URL
// or path, or bytes) into files, which the core's one loader (modelLoad) tells apart by format, and passes plain
// arrays in and out. Not here: knowing the formats (the core's modelFormats() lists them), reading files
// (files.js), the attention functions (index.js), any computation, the worker protocol (web/js/worker).
import { abortError, CODES, coded, throwIfAborted } from './errors.js';
import { canReadUrlParts, exists, IN_NODE, isBlob, locate, openParts, openUrlParts, progressOver, readBytes, tooLarge } from './files.js';
import { idList, numberArg, options } from './options.js';
import { badArgument, checked, LoadedModel } from './loaded-model.js';
import { WindowModel } from './window-model.js';

// a folder holds a bundle: model.safetensors, config.json, tokenizer.json
const BUNDLE_FILES = { weights: 'model.safetensors', config: 'config.json', tokenizer: 'tokenizer.json' };
// a sharded Hugging Face checkpoint's index (its weight_map names the shards, files beside it)
const INDEX = 'model.safetensors.index.json';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

// The folder of a bundled model: models/<name>/ under the API's base (web/, where the build copies them),
// else, in a source checkout, shared/models/<name>/.
async function bundledFolder(name, base) {
  const served = new URL(`models/${name}/`, base);
  if (!IN_NODE || (await exists(new URL(BUNDLE_FILES.config, served)))) return served;
  const source = new URL(`../shared/models/${name}/`, base);
  if (await exists(new URL(BUNDLE_FILES.config, source))) return source;
  throw coded(CODES.NOT_FOUND, `loadModel: no bundled model named "${name}" (looked in ${served.pathname} and ${source.pathname})`);
}

function asBytes(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw badArgument(`loadModel: ${what} must be bytes (Uint8Array or ArrayBuffer)`);
}

const decodeText = (bytes) => new TextDecoder().decode(bytes);

function asJsonText(x, what) {
  if (typeof x === 'string') return x;
  if (x instanceof Uint8Array || x instanceof ArrayBuffer) return new TextDecoder().decode(x);
  if (x && typeof x === 'object') return JSON.stringify(x);
  throw badArgument(`loadModel: ${what} must be JSON text, bytes or an object`);
}

// A tokenizer as the core reads it: bytes (a tokenizer .bin, or tokenizer.json's text, given as text, bytes or
// an object).
function tokenizerBytes(x) {
  if (x instanceof ArrayBuffer || ArrayBuffer.isView(x)) return asBytes(x, 'tokenizer');
  return new TextEncoder().encode(asJsonText(x, 'tokenizer'));
}

// A sharded checkpoint's weights as the core reads them: { index (text), shards: [{ name, bytes }] }. shards:
// [{ name, bytes }] or { name: bytes }.
function shardedWeights(index, shards) {
  const list = Array.isArray(shards) ? shards : shards && typeof shards === 'object' ? Object.entries(shards).map(([name, bytes]) => ({ name, bytes })) : null;
  if (!list?.length) throw badArgument('loadModel: shards must be a non-empty array of { name, bytes } or an object of name -> bytes');
  return {
    index: asJsonText(index, 'index'),
    shards: list.map((s) => ({ name: String(s?.name), bytes: isReader(s?.bytes) ? s.bytes : asBytes(s?.bytes, `shard ${s?.name}`) })),
  };
}

// The shard files an index names (its weight_map's values, each once), refused unless each is a plain file name
// beside the index.
function shardNames(indexText) {
  let map;
  try {
    map = JSON.parse(indexText).weight_map;
  } catch (e) {
    throw coded(CODES.BAD_MODEL, `loadModel: ${INDEX} is not well-formed JSON (${e.message})`, { cause: e });
  }
  if (!map || typeof map !== 'object') throw coded(CODES.BAD_MODEL, `loadModel: ${INDEX} has no "weight_map" object`);
  const names = [...new Set(Object.values(map))];
  const bad = names.find((n) => typeof n !== 'string' || !NAME.test(n));
  if (bad !== undefined || !names.length) {
    throw coded(CODES.BAD_MODEL, `loadModel: ${INDEX} names the shard ${JSON.stringify(bad)}; shards are file names beside it`);
  }
  return names;
}

// The format whose weights file a path names by its extension (the core's list), or undefined.
const formatOfPath = (formats, path) => formats.find((f) => path.toLowerCase().endsWith(f.weights));

// A Blob (a page's File) given for a file other than the weights, read: a config, a tokenizer, a shard.
const blobRead = async (x) => (isBlob(x) ? new Uint8Array(await x.arrayBuffer()) : x);

// The Blobs given for the weights: the source itself, its weights or checkpoint, or its shards' bytes.
function weightBlobs(source) {
  if (isBlob(source)) return [source];
  if (!source || typeof source !== 'object' || source instanceof URL || ArrayBuffer.isView(source) || source instanceof ArrayBuffer) return [];
  const shards = Array.isArray(source.shards) ? source.shards.map((sh) => sh?.bytes) : Object.values(source.shards ?? {});
  return [source.weights ?? source.checkpoint, ...shards].filter(isBlob);
}

// The readers of parts among the weights the core is given (one file, or a sharded checkpoint's shards).
const isReader = (x) => typeof x?.read === 'function' && typeof x?.size === 'number';
// The weights as the core is given them: bytes (one file, or shards) as readers of parts over those bytes, so a
// format that streams is read from where the bytes are and never copied whole into the module.
async function asParts(weights, signal) {
  const parts = (x, name) => (isReader(x) ? x : openParts(x, { signal, name }));
  if (!weights.shards) return parts(weights, 'the weights file');
  return { ...weights, shards: await Promise.all(weights.shards.map(async (s) => ({ ...s, bytes: await parts(s.bytes, `shard ${s.name}`) }))) };
}
const readersOf = (weights) => (isReader(weights) ? [weights] : (weights?.shards ?? []).map((s) => s?.bytes).filter(isReader));

// Any source -> the files the core's loader reads: { weights, config (text, or undefined), tokenizer (bytes) }.
// Which format they are is the core's to tell; here only which files to read. Weights given as a Blob (a page's
// File), a Node file of a format that streams and a GGUF at an http(s) URL that answers byte ranges (in Node and
// workers) go to the core as a reader of parts (files.js openParts, openUrlParts); bytes become one in loadModel.
async function resolveSource(source, opts, base, formats) {
  const { signal } = opts;
  const read = (url, track) => readBytes(url, { signal, onChunk: track?.(url.href) });
  // Blobs (a page's Files) for the weights, one file or shards, go to the core as readers of parts, their progress
  // reported as one; Blobs for the other files are read whole here
  const blobs = weightBlobs(source);
  const blobTrack = progressOver(blobs.length, opts.onProgress);
  const parts = (blob) => openParts(blob, { signal, onChunk: blobTrack(String(blobs.indexOf(blob))) });
  let weightsBlob = null;
  if (isBlob(source)) {
    weightsBlob = source;
    source = new Uint8Array(0);
  } else if (source && typeof source === 'object' && !(source instanceof URL) && !ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    const shardParts = (x) => (isBlob(x) ? parts(x) : x);
    const shards = Array.isArray(source.shards) ? await Promise.all(source.shards.map(async (sh) => ({ ...sh, bytes: await shardParts(sh?.bytes) })))
      : source.shards && typeof source.shards === 'object'
        ? Object.fromEntries(await Promise.all(Object.entries(source.shards).map(async ([k, v]) => [k, await shardParts(v)]))) : source.shards;
    source = {
      ...source, index: await blobRead(source.index), config: await blobRead(source.config),
      tokenizer: await blobRead(source.tokenizer), shards,
    };
    if (isBlob(source.weights ?? source.checkpoint)) {
      weightsBlob = source.weights ?? source.checkpoint;
      source = { ...source, weights: new Uint8Array(0), checkpoint: undefined };
    }
  }
  opts = { ...opts, tokenizer: await blobRead(opts.tokenizer), config: await blobRead(opts.config) };
  const inParts = async (f) => (weightsBlob ? { ...f, weights: await parts(weightsBlob) } : f);
  const extra = async (value, what, reader) => {
    if (value === undefined) return undefined;
    const isJson = typeof value === 'string' && value.trimStart().startsWith('{');
    return (typeof value === 'string' && !isJson) || value instanceof URL ? reader(await locate(value, what)) : value;
  };
  let tokenizer = await extra(opts.tokenizer, 'tokenizer', (u) => read(u));
  let config = await extra(opts.config, 'config', async (u) => decodeText(await read(u)));
  // bytes without a tokenizer: the core tells from them whether they hold their own (a GGUF) or need one
  const files = (weights, cfg, tok) => ({
    weights: weights.shards || isReader(weights) ? weights : asBytes(weights, 'the model'),
    config: cfg === undefined ? undefined : asJsonText(cfg, 'config'),
    tokenizer: tok === undefined ? new Uint8Array(0) : tokenizerBytes(tok),
    bytes: true,   // given as bytes: a file the format needs and the caller left out is an argument to pass
  });
  if (source && typeof source === 'object' && !(source instanceof URL) && !ArrayBuffer.isView(source) && !(source instanceof ArrayBuffer)) {
    const weights = source.shards !== undefined ? shardedWeights(source.index, source.shards) : source.weights ?? source.checkpoint;
    if (!weights) throw badArgument('loadModel: an object source needs { weights, config, tokenizer }, { index, shards, config, tokenizer } or { checkpoint, tokenizer }');
    return inParts(files(weights, source.config ?? config, source.tokenizer ?? tokenizer));
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return inParts(files(source, config, tokenizer));
  const named = typeof source === 'string' && NAME.test(source) && !formatOfPath(formats, source);
  const url = named ? await bundledFolder(source, base) : await locate(source, 'the model');
  // a weights file of a format (its config.json and tokenizer beside it, as the format has them), a sharded
  // checkpoint's index, else a bundle folder (sharded when it has an index and no model.safetensors)
  const format = formatOfPath(formats, url.pathname);
  const indexPath = url.pathname.endsWith(INDEX);
  const folder = format || indexPath ? new URL('./', url) : url.pathname.endsWith('/') ? url : new URL(`${url.href}/`);
  const sharded = indexPath || (!format && url.protocol === 'file:' && IN_NODE
    && !(await exists(new URL(BUNDLE_FILES.weights, folder))) && (await exists(new URL(INDEX, folder))));
  const weightsUrl = format ? url : new URL(sharded ? INDEX : BUNDLE_FILES.weights, folder);
  const tokenizerName = format ? format.tokenizer : BUNDLE_FILES.tokenizer;
  if (tokenizer === undefined && !tokenizerName) tokenizer = new Uint8Array(0);  // the weights file holds it
  if (tokenizer === undefined && format && !format.config && (!IN_NODE || !(await exists(new URL(tokenizerName, folder))))) {
    throw badArgument(`loadModel: a ${format.weights} checkpoint needs its tokenizer: pass { tokenizer } (the ${tokenizerName} beside it)`);
  }
  // read together, but report the first failure in file order (weights, config, tokenizer), whichever fails first
  const needConfig = (format ? format.config : true) && config === undefined, needTokenizer = tokenizer === undefined;
  const index = sharded ? decodeText(await read(weightsUrl)) : undefined;
  const shards = sharded ? shardNames(index) : [];
  const track = progressOver((sharded ? shards.length : 1) + needConfig + needTokenizer, opts.onProgress);
  const formatsOf = (u) => formats.filter((f) => u.pathname.toLowerCase().endsWith(f.weights));
  // in Node, a weights file whose extension a format that streams has is read in parts as the core asks
  const streams = (u) => IN_NODE && u.protocol === 'file:' && formatsOf(u).some((f) => f.streams);
  // in Node and in a worker, one at an http(s) URL whose server answers byte ranges is too (else it is fetched
  // whole), when its extension is a format that streams and no other's (a .safetensors may be a bundle, read
  // whole: fetched whole, its progress reported as it arrives)
  const onlyStreams = (u) => formatsOf(u).length > 0 && formatsOf(u).every((f) => f.streams);
  const rangeParts = async (u) => (onlyStreams(u) && canReadUrlParts(u)
    ? openUrlParts(u, { signal, onChunk: track(u.href) }) : null);
  const readWeights = async (u) => (streams(u) ? openParts(u, { signal, onChunk: track(u.href) }) : (await rangeParts(u)) ?? read(u, track));
  const readShards = async () => {
    const got = await Promise.allSettled(shards.map(async (name) => ({ name, bytes: await readWeights(new URL(name, folder)) })));
    const failed = got.find((r) => r.status === 'rejected');
    if (failed) {  // the shards opened in parts are closed again
      got.forEach((r) => r.value?.bytes?.close?.());
      throw failed.reason;
    }
    return { index, shards: got.map((r) => r.value) };
  };
  const settled = await Promise.allSettled([
    sharded ? readShards() : readWeights(weightsUrl),
    needConfig ? read(new URL(BUNDLE_FILES.config, folder), track).then(decodeText) : config,
    needTokenizer ? read(new URL(tokenizerName, folder), track) : tokenizer,
  ]);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed || signal?.aborted) readersOf(settled[0].value).forEach((r) => r.close());
  throwIfAborted(signal, 'loadModel');
  if (failed) throw failed.reason;
  const [weights, configText, tok] = settled.map((r) => r.value);
  return files(weights, configText, tok);
}

// ---- the model ------------------------------------------------------------------------------------------

class Model extends LoadedModel {
  constructor(M, info) {
    super(M, info, {
      encode: 'modelEncode', encodeTail: 'modelEncodeTail', decode: 'modelDecode', tokens: 'modelTokens', dispose: 'modelDispose',
    });
  }

  /** the context: the most tokens one call can look at */
  get context() {
    return this.info.config.max_seq_len;
  }

  window(ids, size = this.context) {
    const list = idList('window', ids);
    return Array.from(checked(this.M.modelWindow(this._live('window'), list, numberArg('window', 'size', size))));
  }

  forward(textOrIds, opts) {
    const o = options('forward', opts, { attention: false, positions: true, residuals: false, window: false });
    const ids = this._ids('forward', textOrIds, o);
    const r = checked(this.M.modelForward(this._live('forward'), ids, {
      attention: !!o.attention, positions: !!o.positions, residuals: !!o.residuals, window: !!o.window,
    }));
    return { ...r, ids: Array.from(r.ids) };
  }

  next(textOrIds, opts) {
    const o = options('next', opts, { topK: 10, temperature: 1, positions: true, window: false });
    const ids = this._ids('next', textOrIds, o);
    return checked(this.M.modelNext(this._live('next'), ids, {
      topK: Math.min(o.topK, this.info.config.vocab_size), temperature: o.temperature, positions: !!o.positions,
      window: !!o.window,
    }));
  }

  generate(prompt, opts) {
    const o = options('generate', opts, { maxTokens: 64, temperature: 0.8, topP: 0.95, seed: 1, window: false, positions: true });
    const ids = this._ids('generate', prompt, o);
    const r = checked(this.M.modelGenerate(this._live('generate'), ids, {
      maxTokens: o.maxTokens, temperature: o.temperature, topP: o.topP, seed: o.seed, window: !!o.window,
      positions: !!o.positions,
    }));
    return { ...r, ids: Array.from(r.ids) };
  }

  /** the same generation as generate(), one token at a time: an async iterator of { id, token, text } (text:
   * everything generated so far) whose return value is generate()'s { ids, text, stop }. It waits a macrotask
   * between tokens, so a page stays responsive and `signal` (an AbortSignal) can stop it (AbortError, code
   * LOOKBACK_ABORTED); leaving the loop early (break) stops it too. Streams on one model run side by side, each
   * with its own state: each gets the tokens it would get alone. */
  async* stream(prompt, opts) {
    const { signal, ...rest } = opts ?? {};
    const o = options('stream', rest, { maxTokens: 64, temperature: 0.8, topP: 0.95, seed: 1, window: false, positions: true });
    const start = this._ids('stream', prompt, o);
    const stream = checked(this.M.modelGenerateStart(this._live('stream'), start, {
      maxTokens: o.maxTokens, temperature: o.temperature, topP: o.topP, seed: o.seed, window: !!o.window,
      positions: !!o.positions,
    }));
    // each stream has its own state in the core (two streams on one model each get their own tokens); a loop
    // left early (break, abort, an error) frees it
    let stop = '';
    try {
      const ids = [];
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (signal?.aborted) throw abortError(signal, 'generate');
        const r = checked(this.M.modelGenerateStep(this._live('stream'), stream, 1));
        stop = r.stop;
        for (const id of r.ids) {
          ids.push(id);
          yield { id, token: checked(this.M.modelTokens(this._live('stream'), [id])).texts[0], text: r.text };
        }
        if (r.stop) return { ids, text: r.text, stop: r.stop };
      }
    } finally {
      if (!stop && this._handle !== null) this.M.modelGenerateEnd(this._handle, stream);  // (disposed: freed with it)
    }
  }

  /** measured habits of every head: weight on the previous token, the start mark and 4+ back over the
   * texts, the induction score over random sequences repeated twice, and the weights on the start mark and on
   * the previous token while reading such a sequence the first time; each beside an even spread's */
  headScores(texts, opts) {
    const half = Math.floor((this.context - 1) / 2);
    const LH = this.info.config.n_layers * this.info.config.n_heads;
    const o = options('headScores', opts, { repeats: 4, repeatLength: Math.min(50, half), seed: 1, best: Math.min(3, LH) });
    if (!Array.isArray(texts)) throw badArgument('headScores: texts must be an array of texts or id arrays');
    if (!Number.isInteger(o.best) || o.best < 0 || o.best > LH) {
      throw coded(CODES.BAD_ARGUMENT, `headScores: best must be an integer in [0, ${LH}] (got ${o.best})`, { type: RangeError });
    }
    const ids = texts.map((t) => this._ids('headScores', t));
    const r = checked(this.M.modelHeadScores(this._live('headScores'), ids, {
      repeats: o.repeats, repeatLength: o.repeatLength, seed: o.seed, best: o.best,
    }));
    const H = r.heads;
    // the ranking is the core's (ranked_heads); here only the [L*H] scores become rows per layer
    const habit = ({ score, even, count, best }) => ({
      byLayer: Array.from({ length: r.layers }, (_, l) => Array.from(score.subarray(l * H, (l + 1) * H))),
      even, count, best,
    });
    return {
      layers: r.layers, heads: H, previousToken: habit(r.previousToken), startMark: habit(r.startMark),
      fourOrMoreBack: habit(r.fourOrMoreBack), induction: habit(r.induction),
      startMarkOnRandomTokens: habit(r.startMarkOnRandomTokens), previousTokenOnRandomTokens: habit(r.previousTokenOnRandomTokens),
    };
  }
}

// The model functions added to the API object of one loaded module M.
export function modelApi(M, base) {
  const { formats, weights: storages, supported } = M.modelFormats();
  const storageList = storages.map((w) => `'${w}'`).join(', ').replace(/, ([^,]*)$/, ' or $1');
  return {
    /** the formats the core reads ({ name, files, weights, config, tokenizer }) and the weight storages, the one
     * list (the core's), and every format's files in words */
    modelFormats() {
      return { formats: formats.map((f) => ({ ...f })), weights: [...storages], supported };
    },

    /** a model by bundled name ("sprout"), URL or path (bundle folder, or a weights file of any format), or bytes */
    async loadModel(source, opts) {
      const o = options('loadModel', opts, { tokenizer: undefined, config: undefined, weights: undefined, onProgress: undefined, signal: undefined });
      if (o.weights !== undefined && !storages.includes(o.weights)) {
        throw badArgument(`loadModel: weights must be ${storageList} (got ${JSON.stringify(o.weights)})`);
      }
      if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw badArgument('loadModel: onProgress must be a function');
      if (o.signal !== undefined && typeof o.signal?.aborted !== 'boolean') throw badArgument('loadModel: signal must be an AbortSignal');
      const files = await resolveSource(source, o, base, formats);
      try {
        files.weights = await asParts(files.weights, o.signal);
      } catch (e) {  // aborted: the readers already open are closed
        readersOf(files.weights).forEach((r) => r.close());
        throw e;
      }
      const readers = readersOf(files.weights);
      let info;
      try {
        throwIfAborted(o.signal, 'loadModel');
        info = M.modelLoad(files.weights, files.config, files.tokenizer, o.weights ?? null);
      } finally {
        readers.forEach((r) => r.close());
      }
      const failure = readers.find((r) => r.failure)?.failure;
      if (info instanceof Error && failure) throw failure;
      if (info instanceof Error && info.tooLarge) throw tooLarge('loadModel', readers[0]?.name ?? 'the weights file', info.tooLarge);
      if (info instanceof Error) {
        // the core names the file that did not come (info.missing: "config.json" or "tokenizer"); with bytes the
        // caller passes it as an option
        if (files.bytes && info.missing) {
          throw coded(CODES.BAD_ARGUMENT, `loadModel: ${info.message}. With model bytes, pass { tokenizer } too (and { config } when the format has one)`, { cause: info });
        }
        throw coded(info.unsupported ? CODES.UNSUPPORTED_FORMAT : CODES.BAD_MODEL, info.message, { cause: info });
      }
      return info.format === 'window' ? new WindowModel(M, info) : new Model(M, info);
    },

    /** a safetensors file (or, with format 'llama2c', a llama2.c checkpoint) of random weights for a config */
    randomWeights(config, opts) {
      const o = options('randomWeights', opts, { seed: 1, f16: false, format: 'safetensors' });
      if (o.format !== 'safetensors' && o.format !== 'llama2c') {
        throw badArgument(`randomWeights: format must be 'safetensors' or 'llama2c' (got ${JSON.stringify(o.format)})`);
      }
      return checked(M.modelRandomWeights(asJsonText(config, 'config'), o.seed, !!o.f16, o.format === 'llama2c'));
    },
  };
}
