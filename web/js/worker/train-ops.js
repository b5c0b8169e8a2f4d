// The worker's training operations: trainCreate makes a live training run (lb.train) kept in the worker and
// answers with a numeric handle; trainStep, trainEvaluate, trainBundle and trainLogits use it by handle;
// trainDispose frees it. Registered by worker.js through registerOps. A page trains in small chunks of steps, so
// other widgets' requests get their turn between them. Not the training itself (web/js/api/train.js).
import { Handles } from './handles.js';

const runs = new Handles('this training run was disposed (or never made)');
const byHandle = (handle) => runs.get(handle);

export const trainOps = {
  async trainCreate(lb, config, opts) {
    const run = await lb.train(config, opts);
    return { handle: runs.add(run), info: run.info };
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
    return runs.dispose(handle);
  },
};
