// The controller that answers widgets' `lookback-compute` events through one worker. Widgets never import
// the API or the worker; they dispatch the event (see web/js/widgets/compute-event.js) and this replies.
// Model ops (model, modelInfo, modelCard, useModel) go to the page's model registry (models.js), which loads
// each model once and holds the current model every model widget computes with; the worker ops protocol.js
// lists (FORWARDED_OPS) go to the worker; any other op is refused. Installed once per document by the chapter
// page and by the embedding script.
import { ComputeClient } from '../worker/client.js';
import { ModelRegistry } from './models.js';
import { COMPUTE_EVENT, FORWARDED_OPS, MODEL_OPS } from '../protocol.js';

const INSTALLED = Symbol.for('lookback.computeController');

export function installComputeController(doc = document, workerUrl) {
  if (doc[INSTALLED]) return doc[INSTALLED];
  const client = new ComputeClient(workerUrl);
  const models = new ModelRegistry(client, doc);
  const modelOps = models.ops();
  for (const op of Object.keys(MODEL_OPS)) if (!Object.hasOwn(modelOps, op)) throw new Error(`lookback: the registry lacks the model op ${op}`);
  doc.addEventListener(COMPUTE_EVENT, (event) => {
    const { op, args = [], key, reply, progress } = event.detail || {};
    if (typeof reply !== 'function') return;
    event.stopPropagation();
    event.detail.claimed = true;
    const onProgress = typeof progress === 'function' ? progress : undefined;
    let answer;
    try {
      if (Object.hasOwn(modelOps, op)) answer = modelOps[op](key, ...args);
      else if (FORWARDED_OPS.includes(op)) answer = client.request(op, args, { key, onProgress });
      else throw new Error(`lookback: no operation "${op}" for widgets (models: ${Object.keys(MODEL_OPS).join(', ')}; others: ${FORWARDED_OPS.join(', ')})`);
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then((r) => reply(null, r), (e) => reply(e));
  });
  client.models = models;
  doc[INSTALLED] = client;
  return client;
}
