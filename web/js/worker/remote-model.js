// The page's handle on a model that lives in the worker: loadRemoteModel(client, source, opts) resolves to an
// object with the Model's methods (encode, decode, tokens, window, forward, next, generate, headScores,
// dispose), each returning a promise, and the same info/context. Calls may pass {key} as a last extra
// argument object via .keyed(key) so that stale requests are dropped. Not the model (web/js/api/model.js).

const METHODS = ['encode', 'decode', 'tokens', 'window', 'forward', 'next', 'generate', 'headScores'];

export async function loadRemoteModel(client, source, opts) {
  const { handle, info, context } = await client.request('loadModel', opts === undefined ? [source] : [source, opts]);
  return new RemoteModel(client, handle, info, context);
}

class RemoteModel {
  #client;
  #handle;
  #key;

  constructor(client, handle, info, context, key) {
    this.#client = client;
    this.#handle = handle;
    this.#key = key;
    this.info = info;
    this.context = context;
    for (const method of METHODS) {
      this[method] = (...args) => this.#client.request('modelCall', [this.#handle, method, args], { key: this.#key });
    }
  }

  /** the same model, whose calls supersede older queued calls made with the same key */
  keyed(key) {
    return new RemoteModel(this.#client, this.#handle, this.info, this.context, key);
  }

  dispose() {
    return this.#client.request('modelCall', [this.#handle, 'dispose']);
  }
}
