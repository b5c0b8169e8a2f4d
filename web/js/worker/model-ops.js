// The worker's model operations: loadModel keeps the Model in the worker and answers with a numeric handle,
// its info and the names of the methods a page may call on it (reporting bytes loaded as progress, stopped by
// the request's signal); modelCall runs one of those methods by handle; modelStream runs Model.stream, each
// token sent as progress. Registered by worker.js through registerOps.
// Not the model itself (web/js/api/model.js) and not the page's side (remote-model.js).

// The methods of a loaded model a page may call: its public methods, from its class and the classes it extends
// (a window model has fewer than Sprout), except dispose (handled apart), stream (modelStream) and names starting
// with "_" (the model classes' internal helpers).
export function methodsOf(model) {
  const names = new Set();
  for (let p = Object.getPrototypeOf(model); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, name);
      if (typeof d.value === 'function' && name !== 'constructor' && name !== 'dispose' && name !== 'stream' && !name.startsWith('_')) names.add(name);
    }
  }
  return [...names].sort();
}
import { Handles } from './handles.js';

const models = new Handles('this model was disposed (or never loaded)');  // { model, methods }: methods found once, at load
const byHandle = (handle) => models.get(handle);

export const modelOps = {
  async loadModel(lb, source, opts) {
    const { signal, progress } = this;
    const model = await lb.loadModel(source, { ...opts, signal, onProgress: progress });
    const methods = methodsOf(model);
    const handle = models.add({ model, methods });
    return { handle, info: model.info, context: model.context, methods };
  },

  async modelStream(lb, handle, prompt, opts) {
    const { signal, progress } = this;
    const { model } = byHandle(handle);
    if (typeof model.stream !== 'function') throw new Error('worker: this model has no method "stream"');
    const tokens = model.stream(prompt, { ...opts, signal });
    for (;;) {
      const { done, value } = await tokens.next();
      if (done) return value;
      progress?.(value);
    }
  },

  modelCall(lb, handle, method, args = []) {
    if (method === 'dispose') return models.dispose(handle, (entry) => entry.model.dispose());
    // names no model offers (Object's own, internal ones) are refused before the handle is looked up
    if (typeof method !== 'string' || method in Object.prototype || method.startsWith('_')) {
      throw new Error(`worker: a model has no method "${method}"`);
    }
    const { model, methods } = byHandle(handle);
    if (!methods.includes(method)) throw new Error(`worker: this model has no method "${method}"`);
    return model[method](...args);
  },
};
