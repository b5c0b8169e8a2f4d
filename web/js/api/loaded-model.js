// What every loaded model of the JS API shares: its handle on the bindings, its info, the tokenizer's encode,
// decode and tokens, and freeing (now, or when the object is garbage-collected). Model (model.js) and
// WindowModel (window-model.js) extend it with their own predictions. Not here: finding the files, any
// computation (the WebAssembly core).
import { options } from './options.js';

export function checked(result) {
  if (result instanceof Error) throw result;
  return result;
}

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ M, free, handle }) => M[free](handle))
  : null;

export class LoadedModel {
  #handle;
  #info;
  #names;

  // names: the module's functions for this kind of model: { encode, decode, tokens, dispose }
  constructor(M, info, names) {
    this.M = M;
    this.#handle = info.handle;
    this.#info = { config: info.config, tokenizer: info.tokenizer, parameters: info.parameters };
    this.#names = names;
    Object.defineProperty(this, 'M', { enumerable: false });
    finalizer?.register(this, { M, free: names.dispose, handle: info.handle }, this);
  }

  /** the handle for a call of `fn`, or an Error once disposed */
  live(fn) {
    if (this.#handle === null) throw new Error(`${fn}: this model was disposed`);
    return this.#handle;
  }

  /** ids of a text (with the start mark when bos), or the ids as given */
  ids(fn, input, bos = true) {
    if (typeof input === 'string') return checked(this.M[this.#names.encode](this.live(fn), input, bos));
    return input;
  }

  /** config.json fields, tokenizer kind ("byte-bpe" | "llama2c") and parameter count */
  get info() {
    return { ...this.#info, config: { ...this.#info.config } };
  }

  encode(text, opts) {
    const o = options('encode', opts, { bos: true });
    if (typeof text !== 'string') throw new TypeError('encode: text must be a string');
    return Array.from(this.ids('encode', text, !!o.bos));
  }

  decode(ids) {
    return checked(this.M[this.#names.decode](this.live('decode'), ids));
  }

  tokens(textOrIds, opts) {
    const o = options('tokens', opts, { bos: true });
    const ids = Array.from(this.ids('tokens', textOrIds, !!o.bos));
    const texts = checked(this.M[this.#names.tokens](this.live('tokens'), ids));
    return ids.map((id, i) => ({ id, text: texts[i] }));
  }

  /** frees the model's memory now (it is also freed when the object is garbage-collected) */
  dispose() {
    if (this.#handle === null) return;
    finalizer?.unregister(this);
    this.M[this.#names.dispose](this.#handle);
    this.#handle = null;
  }
}
