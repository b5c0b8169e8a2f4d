// node:test tests of the worker's model operations (web/js/worker/model-ops.js) run in Node: a window model,
// which has no forward pass or streaming, answers those calls with an Error that names the method, never a
// TypeError from inside the worker. Not the worker protocol (the browser tests cover it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { modelOps } from '../../web/js/worker/model-ops.js';

const lb = await loadLookback();

test('a window model in the worker: calls it lacks are Errors naming the method', async () => {
  const { handle, context } = await modelOps.loadModel.call({}, lb, 'window');
  assert.ok(context > 0);
  assert.equal(modelOps.modelCall(lb, handle, 'next', ['Mia had a', { topK: 2 }]).length, 2);
  assert.throws(() => modelOps.modelCall(lb, handle, 'forward', ['Hi']), (e) => e.constructor === Error && /no method "forward"/.test(e.message));
  await assert.rejects(modelOps.modelStream.call({}, lb, handle, 'Hi', {}), (e) => e.constructor === Error && /no method "stream"/.test(e.message));
  assert.throws(() => modelOps.modelCall(lb, handle, 'constructor', []), /no method "constructor"/);
  modelOps.modelCall(lb, handle, 'dispose');
  assert.throws(() => modelOps.modelCall(lb, handle, 'next', ['Hi']), /disposed/);
});
