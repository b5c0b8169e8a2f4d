// The one script a lesson author includes to use lookback's widgets in another page:
//   <script type="module" src="path/to/lookback.js"></script>  then e.g.  <lookback-qkv-plane></lookback-qkv-plane>
// It installs the compute controller (one module worker, found relative to this file) and defines every widget.
// Not the chapter (index.html) and not the Node API (js/api).
//
// Every module is named here, leaves first, so the browser fetches them all in one wave instead of discovering
// them level by level; install.js (the controller) runs before any widget is defined.
import './js/worker/client.js';
import './js/chapter/compute.js';
import './js/widgets/compute-event.js';
import './js/widgets/export.js';
import './js/widgets/widget-kit.js';
import './js/chapter/install.js';
import './js/widgets/window.js';
import './js/widgets/qkv-plane.js';
import './js/widgets/worked-example.js';
import './js/widgets/scaling.js';
import './js/widgets/mask-builder.js';
import './js/widgets/cost.js';
import './js/widgets/quiz.js';
import './js/widgets/review-cards.js';
import './js/widgets/training.js';
