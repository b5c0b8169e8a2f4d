// Installs the compute controller for this document, with the worker found next to this file (so it works
// from any page location, and from another origin: see web/js/worker/start-worker.js). Imported first by
// web/lookback.js so that the controller exists before any widget is defined. configure({ baseUrl }) points
// it at a copy of the web/ folder elsewhere (a bundled page); call it before the widgets first compute.
// Not a widget.
import { installComputeController } from './compute.js';

export const client = installComputeController(document, new URL('../worker/worker.js', import.meta.url));
// the worker starts early (the core loads while the page renders), after this task so configure() can move it
setTimeout(() => client.start(), 0);

export function configure({ baseUrl } = {}) {
  if (baseUrl === undefined) return;
  const base = new URL(String(baseUrl), document.baseURI);
  client.workerUrl = new URL('js/worker/worker.js', base.href.endsWith('/') ? base : `${base.href}/`);
}
