// The window model of the JS API: what loadModel returns for a bundle whose config.json says "arch": "window"
// (the chapter's baseline, which sees only the last few tokens). encode, decode, tokens, next and dispose,
// over the bindings of wasm/bindings/window_model.cpp. Not here: finding the files (model.js), the
// transformer (model.js), any computation (the WebAssembly core).
import { options } from './options.js';

function checked(result) {
  if (result instanceof Error) throw result;
  return result;
}

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ M, handle }) => M.windowDispose(handle))
  : null;

export class WindowModel {
  #M;
  #handle;
  #info;

  constructor(M, info) {
    this.#M = M;
    this.#handle = info.handle;
    this.#info = { config: info.config, tokenizer: info.tokenizer, parameters: info.parameters };
    finalizer?.register(this, { M, handle: info.handle }, this);
  }

  #live(fn) {
    if (this.#handle === null) throw new Error(`${fn}: this model was disposed`);
    return this.#handle;
  }

  /** config.json fields (arch "window", window, embed_dim, hidden_dim, ...), tokenizer kind, parameter count */
  get info() {
    return { ...this.#info, config: { ...this.#info.config } };
  }

  /** the most tokens a prediction looks at: the window */
  get context() {
    return this.#info.config.window;
  }

  encode(text, opts) {
    const o = options('encode', opts, { bos: true });
    if (typeof text !== 'string') throw new TypeError('encode: text must be a string');
    return Array.from(checked(this.#M.windowEncode(this.#live('encode'), text, !!o.bos)));
  }

  decode(ids) {
    return checked(this.#M.windowDecode(this.#live('decode'), ids));
  }

  tokens(textOrIds, opts) {
    const o = options('tokens', opts, { bos: true });
    const ids = typeof textOrIds === 'string' ? this.encode(textOrIds, { bos: !!o.bos }) : Array.from(textOrIds);
    const texts = checked(this.#M.windowTokens(this.#live('tokens'), ids));
    return ids.map((id, i) => ({ id, text: texts[i] }));
  }

  /** the topK most probable next tokens; a text of any length (only the last `window` tokens count) */
  next(textOrIds, opts) {
    const o = options('next', opts, { topK: 10, temperature: 1 });
    const ids = typeof textOrIds === 'string' ? this.encode(textOrIds) : textOrIds;
    return checked(this.#M.windowNext(this.#live('next'), ids, {
      topK: Math.min(o.topK, this.#info.config.vocab_size), temperature: o.temperature,
    }));
  }

  /** frees the model's memory now (it is also freed when the object is garbage-collected) */
  dispose() {
    if (this.#handle === null) return;
    finalizer?.unregister(this);
    this.#M.windowDispose(this.#handle);
    this.#handle = null;
  }
}

// Whether config.json text describes a window model.
export function isWindowConfig(text) {
  try {
    return JSON.parse(text)?.arch === 'window';
  } catch {
    return false;  // the transformer loader reports malformed JSON
  }
}
