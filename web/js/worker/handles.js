// The worker's one handle table: live objects (models, training runs) stay in the worker and the page holds a
// number. Every table counts its handles from 1 and never reuses one. Not the operations on the objects
// (model-ops.js, train-ops.js) and not the bindings' own tables (wasm/bindings/handles.hpp).
export class Handles {
  #objects = new Map();
  #next = 1;
  #stale;

  /** stale: the message for a handle that holds nothing ("this model was disposed (or never loaded)") */
  constructor(stale) {
    this.#stale = stale;
  }

  /** keeps the object; its new handle */
  add(object) {
    const handle = this.#next++;
    this.#objects.set(handle, object);
    return handle;
  }

  /** the object of a handle, or an Error with the stale message */
  get(handle) {
    const object = this.#objects.get(handle);
    if (object === undefined) throw new Error(this.#stale);
    return object;
  }

  /** disposes the object (its dispose()) and forgets it; nothing for a handle that holds nothing */
  dispose(handle, dispose = (object) => object.dispose()) {
    const object = this.#objects.get(handle);
    this.#objects.delete(handle);
    if (object !== undefined) dispose(object);
    return null;
  }
}
