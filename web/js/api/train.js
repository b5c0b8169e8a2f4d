// The training half of the lookback JS API: lb.train(config, options) makes a live training run of a small
// Sprout-family model on a generated task, in the training module (web/build/lookback-train.*, loaded on the first
// call so that pages that never train never fetch it). The run steps synchronously (step(n)) or in chunks that
// yield to the event loop (run(), pause()); evaluate() reads its held-out losses, attention on a fixed probe and
// head scores; model() gives a Model of the core module with every method. Not here: the training maths
// (wasm/src/train, wasm/src/train_live), the worker protocol (web/js/worker/train-ops.js).
import { CODES, coded } from './errors.js';
import { badArgument, checked } from './loaded-model.js';
import { options } from './options.js';

export const MODEL_DEFAULTS = Object.freeze({ layers: 2, mlp: false, dim: 64, heads: 2, seqLen: 32 });
// The defaults grow an induction head in a few hundred steps (web/docs/models.md, "Live training: why the defaults"): many distinct tokens and
// first copies of varied length (repeatMin/repeatMax 0: 10 to 16 at 32 tokens).
export const TRAIN_DEFAULTS = Object.freeze({
  task: 'induction', alphabet: 188, repeatMin: 0, repeatMax: 0, steps: 1000, batch: 16, lr: 3e-3, warmup: 50,
  seed: 1, heldOut: 32, probes: 4, onStep: null, evalEvery: 50, chunk: 10,
});

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ T, handle }) => T.trainDispose(handle))
  : null;

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

class Training {
  #T;
  #lb;
  #handle;
  #opts;
  #config;
  #parameters;
  #losses = [];
  #evaluations = [];
  #running = null;
  #stop = false;

  constructor(T, lb, config, opts) {
    this.#T = T;
    this.#lb = lb;
    this.#config = config;
    this.#opts = opts;
    const { onStep, evalEvery, chunk, ...native } = opts;
    const made = checked(T.trainCreate({ ...config, ...native }));
    this.#handle = made.handle;
    this.#parameters = made.parameters;
    finalizer?.register(this, { T, handle: made.handle }, this);
  }

  #live(fn) {
    if (this.#handle === null) throw coded(CODES.DISPOSED, `${fn}: this training run was disposed`);
    return this.#handle;
  }

  /** the model's shape, the run's options (without onStep) and the trainable parameter count */
  get info() {
    const { onStep, ...opts } = this.#opts;
    return { config: { ...this.#config }, options: opts, parameters: this.#parameters };
  }

  /** optimiser steps taken so far */
  get steps() {
    return this.#losses.length;
  }

  /** the training loss of every step so far (nats per token, the batch's mean) */
  get losses() {
    return Float64Array.from(this.#losses);
  }

  /** every evaluate() result so far, oldest first */
  get evaluations() {
    return this.#evaluations.slice();
  }

  get running() {
    return this.#running !== null;
  }

  /** n optimiser steps now (blocking); returns their training losses */
  step(n = 1) {
    if (!Number.isInteger(n) || n < 1) throw badArgument('step: n must be a positive integer');
    const losses = checked(this.#T.trainSteps(this.#live('step'), n));
    for (const l of losses) this.#losses.push(l);
    return losses;
  }

  /** held-out losses, the probe's attention [L,H,T,T] and each head's previous-token and induction scores */
  evaluate() {
    const h = this.#live('evaluate');
    const e = checked(this.#T.trainEvaluate(h));
    const p = checked(this.#T.trainProbe(h));
    const c = this.#config;
    const r = {
      step: e.step, heldOut: e.heldOut, task: e.task, loss: this.#losses.at(-1) ?? null,
      probe: Array.from(p.ids), attention: p.attention, shape: [c.layers, c.heads, c.seqLen, c.seqLen],
      previousTokenOnRandomTokens: Array.from(p.previousTokenOnRandomTokens), induction: Array.from(p.induction),
    };
    this.#evaluations.push({ ...r, attention: undefined });
    return r;
  }

  /** the current weights as a bundle loadModel reads: { weights (model.safetensors), config, tokenizer } */
  bundle() {
    return checked(this.#T.trainBundle(this.#live('bundle')));
  }

  /** a Model (every method of loadModel's) of the current weights */
  model() {
    return this.#lb.loadModel(this.bundle());
  }

  /**
   * Trains up to `steps` (or `until`) in chunks, yielding to the event loop between them, evaluating every
   * evalEvery steps and at the end, calling onStep({ step, loss, evaluation? }) after each chunk. Resolves to
   * the Model of the weights it stopped at (pause() stops it early).
   */
  run({ until = this.#opts.steps } = {}) {
    if (this.#running) return this.#running;
    if (!Number.isInteger(until) || until < 0) throw badArgument(`run: until must be a whole number of steps (got ${JSON.stringify(until)})`);
    this.#live('run');
    this.#stop = false;
    const { chunk, evalEvery, onStep } = this.#opts;
    this.#running = (async () => {
      try {
        while (!this.#stop && this.steps < until) {
          const n = Math.min(chunk, until - this.steps, evalEvery > 0 ? evalEvery - (this.steps % evalEvery) : chunk);
          const losses = this.step(n);
          const evaluation = evalEvery > 0 && (this.steps % evalEvery === 0 || this.steps === until) ? this.evaluate() : undefined;
          onStep?.({ step: this.steps, loss: losses.at(-1), evaluation });
          await pause();
        }
        return await this.model();
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  /** stops run() after the chunk in progress */
  pause() {
    this.#stop = true;
  }

  dispose() {
    if (this.#handle === null) return;
    this.#stop = true;
    this.#T.trainDispose(this.#handle);
    finalizer?.unregister(this);
    this.#handle = null;
  }
}

export function trainApi(loadTrain, lb) {
  return {
    /** a live training run: config { layers, mlp, dim, heads, seqLen }, options { task, steps, batch, lr, ... } */
    async train(config, opts) {
      const c = options('train', config, MODEL_DEFAULTS);
      const o = options('train', opts, TRAIN_DEFAULTS);
      if (o.onStep !== null && typeof o.onStep !== 'function') throw badArgument('train: onStep must be a function');
      for (const k of ['steps', 'evalEvery', 'chunk']) {
        if (!Number.isInteger(o[k]) || o[k] < (k === 'chunk' ? 1 : 0)) throw badArgument(`train: ${k} must be an integer >= ${k === 'chunk' ? 1 : 0}`);
      }
      const T = await loadTrain();
      const tasks = T.trainTasks();   // the core's one list (wasm/src/train_live/live_tasks.cpp, task_names)
      if (!tasks.includes(o.task)) throw badArgument(`train: task must be one of ${tasks.join(', ')} (got ${JSON.stringify(o.task)})`);
      return new Training(T, lb, c, o);
    },
  };
}
