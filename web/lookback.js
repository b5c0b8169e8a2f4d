// The one script a lesson author includes to use lookback's widgets in another page:
//   <script type="module" src="path/to/lookback.js"></script>  then e.g.  <lookback-qkv-plane></lookback-qkv-plane>
// It installs the compute controller (one module worker, found relative to this file) and defines every widget
// that web/js/widgets/all.js lists (the one list of widgets). As a module (`import { configure } from
// 'lookback/widgets'` in a bundled page), configure({ baseUrl }) says where the web/ folder is served, since a
// bundle no longer sits beside it. Not the chapter (index.html) and not the Node API (js/api).
// install.js is imported first, so the controller is in place before any widget is defined.
import './js/chapter/install.js';
import './js/widgets/all.js';

export { configure } from './js/chapter/install.js';
