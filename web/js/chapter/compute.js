// The controller that answers widgets' `lookback-compute` events through one worker. Widgets never import
// the API or the worker; they dispatch the event (see web/js/widgets/compute-event.js) and this replies.
// Installed once per document by the chapter page and by the embedding script.
import { ComputeClient } from '../worker/client.js';

const INSTALLED = Symbol.for('lookback.computeController');

export function installComputeController(doc = document, workerUrl) {
  if (doc[INSTALLED]) return doc[INSTALLED];
  const client = new ComputeClient(workerUrl);
  doc.addEventListener('lookback-compute', (event) => {
    const { op, args, key, reply, progress } = event.detail || {};
    if (typeof reply !== 'function') return;
    event.stopPropagation();
    event.detail.claimed = true;
    const onProgress = typeof progress === 'function' ? progress : undefined;
    client.request(op, args, { key, onProgress }).then((r) => reply(null, r), (e) => reply(e));
  });
  doc[INSTALLED] = client;
  return client;
}
