// The window model of the JS API: what loadModel returns for a bundle whose config.json says "arch": "window"
// (the chapter's baseline, which sees only the last few tokens). Its next(), over the bindings of
// wasm/bindings/window_model.cpp; encode, decode, tokens and dispose are every model's (loaded-model.js).
// Not here: finding the files or the transformer (model.js), any computation (the WebAssembly core).
import { options } from './options.js';
import { LoadedModel, checked } from './loaded-model.js';

export class WindowModel extends LoadedModel {
  constructor(M, info) {
    super(M, info, {
      encode: 'windowEncode', encodeTail: 'windowEncodeTail', decode: 'windowDecode', tokens: 'windowTokens', dispose: 'windowDispose',
    });
  }

  /** the most tokens a prediction looks at: the window */
  get context() {
    return this.info.config.window;
  }

  /** the topK most probable next tokens; a text of any length (only the last `window` tokens count, so only
   * the text's end is encoded) */
  next(textOrIds, opts) {
    const o = options('next', opts, { topK: 10, temperature: 1 });
    const ids = this._ids('next', textOrIds, { window: true });
    return checked(this.M.windowNext(this._live('next'), ids, {
      topK: Math.min(o.topK, this.info.config.vocab_size), temperature: o.temperature,
    }));
  }
}
