// The operations the worker answers: every function of the JS API object by its own name (so a new API
// function needs no edit here), plus the tables registered by registerOps (the model's, model-ops.js).
// Not the API itself (web/js/api) and not the message loop (worker.js).

// API functions that answer live objects (a Model, a Weight, a training run), which cannot cross to the page:
// models go through model-ops.js by handle, training runs through train-ops.js by handle; a Weight stays a
// local-only API object.
const LIVE_RESULTS = new Set(['loadModel', 'weight', 'train']);

const opsOf = new WeakMap();  // API object -> its operations (the object is frozen: found once)

// The API functions a page may call through the worker, by name.
export function coreOps(lb) {
  if (!opsOf.has(lb)) opsOf.set(lb, Object.keys(lb).filter((name) => typeof lb[name] === 'function' && !LIVE_RESULTS.has(name)));
  return opsOf.get(lb);
}

const extraOps = new Map();

// Registers more operations (e.g. the model's), each (lb, ...args) => result or promise, called with `this`
// the request's context { signal (AbortSignal), progress (value => void, or undefined) }.
export function registerOps(table) {
  for (const [name, fn] of Object.entries(table)) extraOps.set(name, fn);
}

export async function runOp(lb, op, args, ctx = {}) {
  if (extraOps.has(op)) return extraOps.get(op).call(ctx, lb, ...args);
  if (!coreOps(lb).includes(op)) throw new Error(`worker: unknown operation "${op}"`);
  return lb[op](...args);
}

// The ArrayBuffers inside a result (typed arrays at any depth), moved rather than copied to the page.
export function transferables(result, found = new Set()) {
  if (ArrayBuffer.isView(result)) found.add(result.buffer);
  else if (result && typeof result === 'object') for (const v of Object.values(result)) transferables(v, found);
  return [...found];
}
