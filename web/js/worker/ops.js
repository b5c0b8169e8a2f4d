// The operations the worker answers: op name -> a call on the JS API. One table, so a new API function is
// one new line here. Not the API itself (web/js/api) and not the message loop (worker.js).

const CORE_OPS = ['simdWidth', 'scores', 'causalMask', 'paddingMask', 'softmax', 'blend', 'attention', 'attentionRow', 'gemm',
  'dot'];

const extraOps = new Map();

// Registers more operations (e.g. the model's), each (lb, ...args) => result or promise, called with `this`
// the request's context { signal (AbortSignal), progress (value => void, or undefined) }.
export function registerOps(table) {
  for (const [name, fn] of Object.entries(table)) extraOps.set(name, fn);
}

export async function runOp(lb, op, args, ctx = {}) {
  if (extraOps.has(op)) return extraOps.get(op).call(ctx, lb, ...args);
  if (!CORE_OPS.includes(op)) throw new Error(`worker: unknown operation "${op}"`);
  return lb[op](...args);
}

// The ArrayBuffers inside a result (typed arrays at any depth), moved rather than copied to the page.
export function transferables(result, found = new Set()) {
  if (ArrayBuffer.isView(result)) found.add(result.buffer);
  else if (result && typeof result === 'object') for (const v of Object.values(result)) transferables(v, found);
  return [...found];
}
