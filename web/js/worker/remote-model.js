// The page's handle on a model that lives in the worker: loadRemoteModel(client, source, opts) resolves to an
// object with the loaded model's methods (those the worker names, model-ops.js methodsOf: for Sprout encode,
// decode, tokens, decodeTokens, window, forward, next, generate, headScores), each returning a promise, dispose, and
// the same info/context. model.keyed(key) gives a handle whose calls drop older queued calls made with the same key.
// loadRemoteModel takes onProgress ({loaded, total} bytes)
// and signal (AbortSignal) as loadModel does; generate takes onToken ({id, token, text} as each token comes)
// and signal, and then streams (Model.stream in the worker) and can be cancelled (AbortError).
// Not the model (web/js/api/model.js) nor the worker's side.
export async function loadRemoteModel(client, source, opts) {
  const { onProgress, signal, ...rest } = opts ?? {};
  const args = opts === undefined ? [source] : [source, rest];
  const { handle, info, context, methods } = await client.request('loadModel', args, { onProgress, signal });
  return new RemoteModel(client, { handle, info, context, methods });
}

class RemoteModel {
  #client;
  #handle;
  #key;
  #loaded;

  constructor(client, loaded, key) {
    this.#client = client;
    this.#loaded = loaded;
    this.#handle = loaded.handle;
    this.#key = key;
    this.info = loaded.info;
    this.context = loaded.context;
    for (const method of loaded.methods) {
      this[method] = (...args) => this.#client.request('modelCall', [this.#handle, method, args], { key: this.#key });
    }
    if (loaded.methods.includes('generate')) this.generate = (prompt, opts) => this.#generate(prompt, opts);
  }

  #generate(prompt, opts = {}) {
    const { onToken, signal, ...rest } = opts ?? {};
    if (onToken === undefined && signal === undefined) return this.#client.request('modelCall', [this.#handle, 'generate', [prompt, opts]], { key: this.#key });
    return this.#client.request('modelStream', [this.#handle, prompt, rest], { key: this.#key, onProgress: onToken ?? (() => {}), signal });
  }

  /** the same model, whose calls supersede older queued calls made with the same key */
  keyed(key) {
    return new RemoteModel(this.#client, this.#loaded, key);
  }

  dispose() {
    return this.#client.request('modelCall', [this.#handle, 'dispose']);
  }
}
