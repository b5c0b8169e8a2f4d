// The worker's training operations: trainCreate makes a live training run (lb.train) kept in the worker and
// answers with a numeric handle; trainStep, trainEvaluate, trainBundle and trainLogits use it by handle;
// trainDispose frees it. Registered by worker.js through registerOps. A page trains in small chunks of steps, so
// other widgets' requests get their turn between them. Not the training itself (web/js/api/train.js).
const runs = new Map();
let nextHandle = 1;

function byHandle(handle) {
  const run = runs.get(handle);
  if (!run) throw new Error('this training run was disposed (or never made)');
  return run;
}

export const trainOps = {
  async trainCreate(lb, config, opts) {
    const run = await lb.train(config, opts);
    const handle = nextHandle++;
    runs.set(handle, run);
    return { handle, info: run.info };
  },

  trainStep(lb, handle, n) {
    const run = byHandle(handle);
    const losses = run.step(n);
    return { step: run.steps, losses };
  },

  trainEvaluate(lb, handle) {
    return byHandle(handle).evaluate();
  },

  trainBundle(lb, handle) {
    return byHandle(handle).bundle();
  },

  // The logits [T, V] of the current weights through the core module's Model (what loadModel gives).
  async trainLogits(lb, handle, ids) {
    const model = await byHandle(handle).model();
    try {
      return model.forward(ids).logits;
    } finally {
      model.dispose();
    }
  },

  trainDispose(lb, handle) {
    runs.get(handle)?.dispose();
    runs.delete(handle);
    return null;
  },
};
