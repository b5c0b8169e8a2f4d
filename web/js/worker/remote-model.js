// The page's handle on a model that lives in the worker: loadRemoteModel(client, source, opts) resolves to an
// object with the Model's methods (encode, decode, tokens, window, forward, next, generate, headScores,
// dispose), each returning a promise, and the same info/context. model.keyed(key) gives a handle whose calls
// drop older queued calls made with the same key. Not the model (web/js/api/model.js) nor the worker's side.
import { MODEL_METHODS } from './model-ops.js';

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
    for (const method of MODEL_METHODS) {
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
