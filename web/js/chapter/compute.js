// The controller that answers widgets' `lookback-compute` events through one worker. Widgets never import
// the API or the worker; they dispatch the event (see web/js/widgets/compute-event.js) and this replies.
// Ops named `model.<method>` go to the page's shared models (page-models.js); the rest straight to the worker.
// Installed once per document by the chapter page and by the embedding script.
import { ComputeClient } from '../worker/client.js';
import { PageModels } from './page-models.js';

const INSTALLED = Symbol.for('lookback.computeController');

export function installComputeController(doc = document, workerUrl) {
  if (doc[INSTALLED]) return doc[INSTALLED];
  const client = new ComputeClient(workerUrl);
  const models = new PageModels(client, doc);
  doc.addEventListener('lookback-compute', (event) => {
    const { op, args, key, reply } = event.detail || {};
    if (typeof reply !== 'function') return;
    event.stopPropagation();
    event.detail.claimed = true;
    let result;
    try {
      result = op.startsWith('model.') ? models.run(op, args || [], key) : client.request(op, args, { key });
    } catch (err) {
      result = Promise.reject(err);
    }
    result.then((r) => reply(null, r), (e) => reply(e));
  });
  client.models = models;
  doc[INSTALLED] = client;
  return client;
}
