// The one script a lesson author includes to use lookback's widgets in another page:
//   <script type="module" src="path/to/lookback.js"></script>  then e.g.  <lookback-qkv-plane></lookback-qkv-plane>
// It installs the compute controller (one module worker, found relative to this file) and defines every widget.
// Not the chapter (index.html) and not the Node API (js/api).
import './js/chapter/install.js';
import './js/widgets/all.js';
