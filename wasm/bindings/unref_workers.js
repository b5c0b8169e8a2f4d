// Linked into the threaded module (--post-js). Module.unrefWorkers(): in Node, lets the process exit while the
// pool's Workers wait for work (the JS API calls it once the module is ready; before that, the Workers must
// keep the process alive until they have loaded).
Module['unrefWorkers'] = function () {
  PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function (w) {
    if (w.unref) w.unref();
  });
};
