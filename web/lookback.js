// The one script a lesson author includes to use lookback's widgets in another page:
//   <script type="module" src="path/to/lookback.js"></script>  then e.g.  <lookback-qkv-plane></lookback-qkv-plane>
// It installs the compute controller (one module worker, found relative to this file) and defines every widget.
// As a module (`import { configure } from 'lookback/widgets'` in a bundled page), configure({ baseUrl }) says
// where the web/ folder is served, since a bundle no longer sits beside it.
// Not the chapter (index.html) and not the Node API (js/api).
//
// Every module is named here, leaves first, so the browser fetches them all in one wave instead of discovering
// them level by level; install.js (the controller) runs before any widget is defined.
import './js/worker/client.js';
import './js/chapter/models.js';
import './js/chapter/compute.js';
import './js/widgets/compute-event.js';
import './js/widgets/export.js';
import './js/widgets/widget-kit.js';
import './js/widgets/model-widget.js';
import './js/widgets/model-files.js';
import './js/widgets/model-picker.js';
import './js/widgets/generation.js';
import './js/widgets/counterfactual-examples.js';
import './js/widgets/counterfactual-compare.js';
import './js/widgets/model-view.js';
import './js/widgets/examples.js';
import './js/chapter/install.js';
import './js/widgets/window.js';
import './js/widgets/qkv-plane.js';
import './js/widgets/worked-example.js';
import './js/widgets/scaling.js';
import './js/widgets/mask-builder.js';
import './js/widgets/cost.js';
import './js/widgets/quiz.js';
import './js/widgets/review-cards.js';
import './js/widgets/next-token.js';
import './js/widgets/counterfactual.js';
import './js/widgets/model-handle.js';
import './js/widgets/shuffle.js';
import './js/widgets/code-walk.js';
import './js/widgets/explorer.js';
import './js/widgets/heads-grid.js';
import './js/widgets/induction.js';
import './js/widgets/habits.js';
import './js/widgets/training.js';

export { configure } from './js/chapter/install.js';
