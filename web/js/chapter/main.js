// The chapter controller: installs the compute controller (one worker for the page), renders formulas, and
// runs the page's own computations. Widgets are wired through their events, never imported by the API.
// Not a widget and not the API.
import { installComputeController } from './compute.js';
import { renderMath } from './math.js';
import { firstComputation } from './first-computation.js';

const client = installComputeController(document);
renderMath(document);
firstComputation(client, document.getElementById('first-computation'));
