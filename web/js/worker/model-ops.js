// The worker's model operations: loadModel keeps the Model in the worker and answers with a numeric handle
// and its info (reporting bytes loaded as progress, stopped by the request's signal); modelCall runs one Model
// method by handle; modelStream runs Model.stream, each token sent as progress. Registered by worker.js through
// registerOps.
// Not the model itself (web/js/api/model.js) and not the page's side (remote-model.js).

// The Model methods a page may call (dispose is handled apart); a window model has only some of them.
export const MODEL_METHODS = ['encode', 'decode', 'tokens', 'window', 'forward', 'next', 'generate', 'headScores'];
const METHODS = new Set(MODEL_METHODS);
const models = new Map();
let nextHandle = 1;

function byHandle(handle) {
  const model = models.get(handle);
  if (!model) throw new Error('this model was disposed (or never loaded)');
  return model;
}

export const modelOps = {
  async loadModel(lb, source, opts) {
    const { signal, progress } = this;
    const model = await lb.loadModel(source, { ...opts, signal, onProgress: progress });
    const handle = nextHandle++;
    models.set(handle, model);
    return { handle, info: model.info, context: model.context };
  },

  async modelStream(lb, handle, prompt, opts) {
    const { signal, progress } = this;
    const tokens = byHandle(handle).stream(prompt, { ...opts, signal });
    for (;;) {
      const { done, value } = await tokens.next();
      if (done) return value;
      progress?.(value);
    }
  },

  modelCall(lb, handle, method, args = []) {
    if (method === 'dispose') {
      models.get(handle)?.dispose();
      models.delete(handle);
      return null;
    }
    if (!METHODS.has(method)) throw new Error(`worker: a model has no method "${method}"`);
    const model = byHandle(handle);
    if (typeof model[method] !== 'function') throw new Error(`worker: this model has no method "${method}"`);
    return model[method](...args);
  },
};
