// A Float32Array view of a staging buffer in the module, fetched again when it is shorter than a call needs or
// was detached by memory growth (a detached view's length is 0). Shared by the staged paths of lb.attention and
// weight.gemm. Not the buffer itself: the bindings own it and grow it.
export function stagingView(fetch) {
  let view = null;
  // need: floats the call reads and writes (> 0, so a detached view is always too short); args: what `fetch` needs
  // to size the buffer for it.
  return (need, ...args) => {
    if (view === null || view.length < need) view = fetch(...args);
    return view;
  };
}
