// The two message formats between lookback's browser layers, in one place: the `lookback-compute` event a widget
// dispatches and a controller answers (widgets -> chapter/compute.js), and the messages between the page and the
// worker (worker/client.js <-> worker/worker.js), with the protocol's version. Only names, types and the
// version check: no behaviour. Imported by every side; imports nothing.

/** Bumped whenever a message below changes shape; the worker refuses a page of another version. */
export const PROTOCOL_VERSION = 1;

/** The event a widget dispatches (bubbling, composed) to ask for a computation. */
export const COMPUTE_EVENT = 'lookback-compute';

/**
 * The detail of a `lookback-compute` event.
 * @typedef {object} ComputeRequest
 * @property {string} op       an operation: a model op (MODEL_OPS) or one the controller forwards to the worker
 *                             (FORWARDED_OPS), called with `args` as the API takes them (index.d.ts)
 * @property {unknown[]} [args]
 * @property {string} [key]    a newer request with the same key supersedes an older queued one (AbortError)
 * @property {(value: unknown) => void} [progress]  what the operation reports on the way
 * @property {(err: Error | null, result?: unknown) => void} reply  called once with the answer
 * @property {boolean} claimed set true by the controller that answers; false afterwards means nobody did
 */

/**
 * The model operations the controller answers itself (chapter/models.js), with their args.
 * @type {Record<string, string>}
 */
export const MODEL_OPS = Object.freeze({
  model: '[name, method, args]: one method of the named model (sprout, window, current), as the worker offers it',
  modelInfo: '[name]: { name, label, custom, info, context }',
  modelCard: '[name]: the bundled model\'s card.json, or null',
  useModel: '[source, label]: makes `source` the current model (null: Sprout again)',
});

/**
 * The worker operations the controller forwards for widgets, and no other (chapter/compute.js): the JS API's
 * functions whose results are plain data, by their names (worker/ops.js), and a live training run's by handle
 * (worker/train-ops.js). A model is reached only through MODEL_OPS, so that every widget computes with the
 * page's models (the worker's own model ops, loadModel, modelCall and modelStream, serve the registry and a page's
 * loadRemoteModel).
 */
export const FORWARDED_OPS = Object.freeze([
  'simdWidth', 'threads', 'scores', 'causalMask', 'paddingMask', 'softmax', 'blend', 'attention', 'attentionRow',
  'gemm', 'dot', 'heapBytes', 'randomWeights', 'modelFormats',
  'trainCreate', 'trainStep', 'trainEvaluate', 'trainBundle', 'trainLogits', 'trainDispose',
]);

/**
 * Page -> worker: { version, batch: WorkerRequest[] } or { cancel: id }.
 * @typedef {{ id: number, op: string, args: unknown[], key?: string, progress: boolean }} WorkerRequest
 * Worker -> page: { results: WorkerResult[] } (one message per batch) or { progress: { id, value } }.
 * @typedef {{ id: number, ok: true, result: unknown } | { id: number, ok: false, error: string, code?: string }
 *   | { id: number, dropped: true }} WorkerResult
 */

/** The error of a batch sent by a page of another protocol version (a stale cached script on one side). */
export function versionMismatch(version) {
  return {
    error: `lookback: the page speaks protocol version ${version ?? 'none'} but the worker version ${PROTOCOL_VERSION}; `
      + 'one of the two scripts is a stale cached copy: reload the page (or serve both from the same build)',
    code: 'LOOKBACK_PROTOCOL_MISMATCH',
  };
}
