// What every loaded model of the JS API shares: its handle on the bindings, its info, the tokenizer's encode,
// decode, tokens and the last two at once (ids checked as ids; with a sliding window to come, only a long text's
// end encoded), the bindings' Errors given a code, and freeing (now, or after garbage collection). Model
// (model.js) and WindowModel (window-model.js) extend it with their own predictions. Not here: finding the files,
// any computation (the WebAssembly core).
import { CODES, coded } from './errors.js';
import { idList, options } from './options.js';

// The bindings return their Errors (so that C++ cleans up): bad input, given a code here.
export function checked(result) {
  if (result instanceof Error) throw Object.assign(result, { code: result.code ?? CODES.BAD_ARGUMENT });
  return result;
}

export const badArgument = (message) => coded(CODES.BAD_ARGUMENT, message, { type: TypeError });

// Lifetime: dispose() frees a model at once. A model dropped without dispose() is freed by this registry's
// callback, which runs in a task after the JS engine has garbage-collected the model object. The engine collects
// when it needs JS memory and cannot see the WebAssembly memory a model holds (Sprout: about 22 MB), so dropped
// models can pile up before a collection; and WebAssembly memory, once grown, never shrinks (freed memory is
// reused by the next models). Call dispose().
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ M, free, handle }) => M[free](handle))
  : null;

export class LoadedModel {
  #handle;
  #info;
  #names;

  // names: the module's functions for this kind of model: { encode, encodeTail, decode, tokens, dispose }
  constructor(M, info, names) {
    this.M = M;
    this.#handle = info.handle;
    this.#info = { config: info.config, tokenizer: info.tokenizer, parameters: info.parameters, format: info.format };
    if (info.weights !== undefined) this.#info.weights = info.weights;
    if (info.normalize) this.#info.normalize = info.normalize;
    this.#names = names;
    Object.defineProperty(this, 'M', { enumerable: false });
    finalizer?.register(this, { M, free: names.dispose, handle: info.handle }, this);
  }

  /** the handle, or null once disposed */
  get _handle() {
    return this.#handle;
  }

  /** the handle for a call of `fn`, or an Error once disposed */
  _live(fn) {
    if (this.#handle === null) throw coded(CODES.DISPOSED, `${fn}: this model was disposed`);
    return this.#handle;
  }

  /** ids of a text (with the start mark when bos), or the ids given as a plain Float64Array (see idList). Every
   * method takes its ids first and the handle (_live) after: converting ids runs no code while the core is in a
   * call, and a model disposed by a getter during the conversion is this Error, never a freed model. With a sliding
   * window to come, only the end of a text is encoded: the start mark and the last `context` tokens, the same ids
   * the window keeps of the full encoding. */
  _ids(fn, input, { bos = true, window = false } = {}) {
    if (typeof input === 'string') {
      // a normalization the tokenizer names (NFC) and the core leaves to its caller
      if (this.#info.normalize) input = input.normalize(this.#info.normalize);
      return checked(window ? this.M[this.#names.encodeTail](this._live(fn), input, bos, this.context)
        : this.M[this.#names.encode](this._live(fn), input, bos));
    }
    return idList(fn, input);
  }

  /** config.json fields, tokenizer kind ("byte-bpe" | "llama2c"), parameter count (and a transformer's weight
   * format) */
  get info() {
    return { ...this.#info, config: { ...this.#info.config } };
  }

  encode(text, opts) {
    const o = options('encode', opts, { bos: true });
    if (typeof text !== 'string') throw badArgument('encode: text must be a string');
    return Array.from(this._ids('encode', text, { bos: o.bos }));
  }

  decode(ids) {
    const list = idList('decode', ids);
    return checked(this.M[this.#names.decode](this._live('decode'), list));
  }

  /** each id with its display text and its place { start, end } in decode(ids) (UTF-16 units), from one decoding
   * in the core: a token's place runs from the start of the character its first byte falls in to the end of the
   * character its last byte falls in (a byte of a longer character reaches that character's end); a token's text may
   * depend on the one before (sentencepiece's start mark drops the next piece's space). */
  tokens(textOrIds, opts) {
    return this._tokens('tokens', textOrIds, opts).tokens;
  }

  /** { text: decode(ids), tokens: tokens(ids) } from the one decoding both come from */
  decodeTokens(textOrIds, opts) {
    return this._tokens('decodeTokens', textOrIds, opts);
  }

  _tokens(fn, textOrIds, opts) {
    const o = options(fn, opts, { bos: true });
    const ids = Array.from(this._ids(fn, textOrIds, { bos: o.bos }));
    const { text, texts, places } = checked(this.M[this.#names.tokens](this._live(fn), ids));
    return { text, tokens: ids.map((id, i) => ({ id, text: texts[i], start: places[2 * i], end: places[2 * i + 1] })) };
  }

  /** frees the model's memory now (otherwise only after the JS engine garbage-collects this object; see above) */
  dispose() {
    if (this.#handle === null) return;
    finalizer?.unregister(this);
    this.M[this.#names.dispose](this.#handle);
    this.#handle = null;
  }
}
