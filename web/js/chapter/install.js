// Installs the compute controller for this document, with the worker found next to this file (so it works
// from any page location). Imported first by web/lookback.js so that the controller exists before any widget
// is defined. Not a widget.
import { installComputeController } from './compute.js';

export const client = installComputeController(document, new URL('../worker/worker.js', import.meta.url));
