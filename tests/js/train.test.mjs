// node:test tests of live training in the JS API (web/js/api/train.js) on the built training module: both
// random-token tasks learn (the loss on their own targets falls), evaluate() shapes, the trained Model has
// every method and its bundle loads back with the same logits, bad options are errors naming them, and the
// same seed gives the same loss curve in WebAssembly as in the native tool lookback-live (when built).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { TRAIN_TASKS } from '../../web/js/train-tasks.js';

const lb = await loadLookback();
const SMALL = { layers: 2, dim: 32, heads: 2, seqLen: 24 };

for (const task of ['induction', 'previous']) {
  test(`train on ${task}: the loss on the task's own targets falls and the Model has every method`, async () => {
    const steps = [];
    // 58 tokens (the letters and 0-5): a guess over the alphabet is already 1.5 nats below one over all 258 ids
    const run = await lb.train(SMALL, { task, alphabet: 58, steps: 120, batch: 8, lr: 1e-2, seed: 3, evalEvery: 60,
      chunk: 20, onStep: (s) => steps.push(s) });
    const before = run.evaluate();
    assert.equal(before.step, 0);
    assert.deepEqual(before.shape, [2, 2, 24, 24]);
    assert.equal(before.attention.length, 2 * 2 * 24 * 24);
    assert.equal(before.probe.length, 24);
    assert.equal(before.previousTokenOnRandomTokens.length, 4);
    assert.equal(before.probe[0], 0);
    assert.match(String.fromCharCode(...before.probe.slice(1).map((id) => id - 2)), /^[A-Za-z0-5]+$/);
    const model = await run.run();
    assert.equal(run.steps, 120);
    assert.deepEqual(steps.map((s) => s.step), [20, 40, 60, 80, 100, 120]);
    assert.ok(steps[2].evaluation && steps[5].evaluation && !steps[0].evaluation);
    const after = run.evaluations.at(-1);
    assert.equal(after.step, 120);
    assert.ok(after.task < before.task - 0.5, `task loss ${before.task} -> ${after.task}`);
    for (const method of ['encode', 'decode', 'tokens', 'window', 'forward', 'next', 'generate', 'headScores']) {
      assert.equal(typeof model[method], 'function', method);
    }
    const ids = before.probe;
    const live = model.forward(ids).logits;
    assert.equal(live.length, 24 * 258);
    const back = await lb.loadModel(run.bundle());
    assert.deepEqual(back.forward(ids).logits, live);
    const hs = model.headScores(['AbCdEfGh'], { repeats: 2, repeatLength: 10 });
    assert.equal(hs.layers, 2);
    back.dispose();
    model.dispose();
    run.dispose();
    assert.throws(() => run.step(1), /disposed/);
  });
}

test('pause stops run() early and run() resumes where it stopped', async () => {
  const run = await lb.train(SMALL, { steps: 60, batch: 4, chunk: 5, evalEvery: 0,
    onStep: (s) => { if (s.step === 20) run.pause(); } });
  const m1 = await run.run();
  assert.equal(run.steps, 20);
  m1.dispose();
  const m2 = await run.run();
  assert.equal(run.steps, 60);
  m2.dispose();
  run.dispose();
});

test('train: bad options are errors that name them', async () => {
  await assert.rejects(lb.train({ layers: 9 }), /layers/);
  // the names are the core's (live_tasks.cpp); the page's labels (web/js/train-tasks.js) name the same tasks
  await assert.rejects(lb.train({}, { task: 'sorting' }), (err) => err.message.startsWith(`train: task must be one of ${Object.keys(TRAIN_TASKS).join(', ')} (got`));
  await assert.rejects(lb.train({}, { task: 'toString' }), /task must be one of/);
  await assert.rejects(lb.train({ width: 3 }), /unknown option "width"/);
  await assert.rejects(lb.train({}, { lr: -1 }), /lr/);
  await assert.rejects(lb.train({}, { alphabet: 300 }), /alphabet/);
  await assert.rejects(lb.train({}, { alphabet: 12 }), /repeat_max <= alphabet/);
  await assert.rejects(lb.train({}, { repeatMin: 2, repeatMax: 9 }), /repeat lengths/);
  const run = await lb.train(SMALL, { steps: 10 });
  assert.throws(() => run.step(0), /positive integer/);
  run.dispose();
});

const NATIVE = fileURLToPath(new URL('../../.build/native/lookback-live', import.meta.url));

// The same arithmetic in a different order (4-wide WebAssembly SIMD against the native vector width) makes the
// curves drift apart slowly; over the first 100 steps they agree to 2e-3 nats.
test('the same seed gives the same loss curve in WebAssembly as natively (npm test builds the native tool first)', async () => {
  const steps = 100;
  const r = spawnSync(NATIVE, ['--task', 'induction', '--steps', String(steps), '--seed', '4'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const native = JSON.parse(r.stdout).loss;
  const run = await lb.train({}, { task: 'induction', steps, seed: 4 });
  const wasm = run.step(steps);
  run.dispose();
  let worst = 0;
  for (let i = 0; i < steps; i++) worst = Math.max(worst, Math.abs(wasm[i] - native[i]));
  assert.ok(worst < 2e-3, `largest difference ${worst} nats`);
  assert.ok(Math.abs(wasm[0] - native[0]) < 1e-5, `first step ${wasm[0]} vs ${native[0]}`);
});
