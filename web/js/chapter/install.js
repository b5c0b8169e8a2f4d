// Installs the compute controller for this document, with the worker found in the served folder (web/js/served.js) (so it works
// from any page location, and from another origin: see web/js/worker/start-worker.js). Imported first by
// web/lookback.js so that the controller exists before any widget is defined. configure({ baseUrl }) points
// it at a copy of the web/ folder elsewhere (a bundled page); call it before the widgets first compute.
// Not a widget.
import { servedUrl, setServedBase } from '../served.js';
import { installComputeController } from './compute.js';

export const client = installComputeController(document, servedUrl('js/worker/worker.js'));
// the worker starts early (the core loads while the page renders), after this task so configure() can move it
setTimeout(() => client.start(), 0);

export function configure({ baseUrl } = {}) {
  if (baseUrl === undefined) return;
  setServedBase(baseUrl);   // also where the models' card.json and the code walk's source are fetched
  client.workerUrl = servedUrl('js/worker/worker.js');
}
