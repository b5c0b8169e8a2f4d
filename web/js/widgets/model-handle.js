// A widget's way to a model that lives in the controller's worker, through compute events only: the model for
// a source (a bundled name such as "sprout") is loaded once per document and shared by every widget asking for
// it; callModel runs one of its methods. Not the model (web/js/api/model.js) nor the worker's side (model-ops.js).
const loaded = new WeakMap();  // document -> Map(source -> Promise<{ handle, info, context }>)

export function modelFor(widget, source = 'sprout') {
  const doc = widget.ownerDocument;
  if (!loaded.has(doc)) loaded.set(doc, new Map());
  const models = loaded.get(doc);
  if (!models.has(source)) {
    const p = widget.ask('loadModel', [source], `load-${source}`, { keep: true });
    p.catch(() => models.delete(source));  // a failed load is tried again next time
    models.set(source, p);
  }
  return models.get(source);
}

// One method of a loaded model; like widget.ask, the answer is dropped if a newer computation started.
export function callModel(widget, model, method, args, name = method) {
  return widget.ask('modelCall', [model.handle, method, args], name);
}
