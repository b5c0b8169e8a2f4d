// The worker's side of the page-worker protocol, run in Node with a stand-in for the worker global: the
// operations it offers are the API's own functions (minus those that answer live objects), a model's methods
// are the loaded model's public methods, the controller forwards every one of them but the model ops (models go
// through the page's registry), one handle table serves models and training runs, and a batch of another
// protocol version is refused with a clear error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from '../../web/js/api/index.js';
import { coreOps, runOp } from '../../web/js/worker/ops.js';
import { methodsOf, modelOps } from '../../web/js/worker/model-ops.js';
import { trainOps } from '../../web/js/worker/train-ops.js';
import { Handles } from '../../web/js/worker/handles.js';
import { FORWARDED_OPS, PROTOCOL_VERSION } from '../../web/js/protocol.js';

let lb;
const posted = [];
before(async () => {
  lb = await loadLookback();
  globalThis.self = { postMessage: (m) => posted.push(m) };
  await import('../../web/js/worker/worker.js');
});
after(() => { delete globalThis.self; });

// Sends one batch to the worker's message handler and waits for its reply.
async function send(data) {
  const before = posted.length;
  globalThis.self.onmessage({ data });
  for (let i = 0; i < 2000 && posted.length === before; ++i) await new Promise((r) => setTimeout(r, 5));
  return posted[before];
}

test('the worker offers every API function that answers plain data, by its own name', () => {
  const ops = coreOps(lb);
  for (const name of ['attention', 'attentionRow', 'softmax', 'scores', 'blend', 'gemm', 'dot', 'causalMask', 'randomWeights']) {
    assert.ok(ops.includes(name), name);
  }
  for (const live of ['loadModel', 'weight', 'train']) assert.ok(!ops.includes(live), `${live}: live objects go through handles, not by name`);
  assert.deepEqual(ops.filter((n) => typeof lb[n] !== 'function'), []);
});

test('runOp calls the API function of that name, and refuses names the API lacks', async () => {
  assert.deepEqual(Array.from((await runOp(lb, 'softmax', [[0, 0]])).weights), [0.5, 0.5]);
  await assert.rejects(async () => runOp(lb, 'weight', [[1], { K: 1, N: 1 }]), /unknown operation "weight"/);
  await assert.rejects(async () => runOp(lb, 'train', [{}, {}]), /unknown operation "train"/);
  await assert.rejects(async () => runOp(lb, 'toString', []), /unknown operation "toString"/);
});

test('a model offers its public methods; the window model fewer; calls outside them are refused', async () => {
  const sprout = await modelOps.loadModel.call({}, lb, 'sprout');
  assert.deepEqual(sprout.methods, ['decode', 'decodeTokens', 'encode', 'forward', 'generate', 'headScores', 'next', 'tokens', 'window']);
  const windowModel = await modelOps.loadModel.call({}, lb, 'window');
  assert.deepEqual(windowModel.methods, ['decode', 'decodeTokens', 'encode', 'next', 'tokens']);
  assert.deepEqual(modelOps.modelCall(lb, sprout.handle, 'encode', ['Hi']), Array.from(await lb.loadModel('sprout').then((m) => m.encode('Hi'))));
  assert.throws(() => modelOps.modelCall(lb, windowModel.handle, 'forward', ['Hi']), /has no method "forward"/);
  assert.throws(() => modelOps.modelCall(lb, sprout.handle, '_live', ['x']), /has no method "_live"/);
  assert.throws(() => modelOps.modelCall(lb, sprout.handle, 'constructor', []), /has no method "constructor"/);
  for (const h of [sprout.handle, windowModel.handle]) modelOps.modelCall(lb, h, 'dispose');
  assert.deepEqual(methodsOf(new (class A { a() {} _b() {} static c() {} })()), ['a']);
});

test('a batch of the current protocol version is answered; another version is refused with a clear error', async () => {
  const ok = await send({ version: PROTOCOL_VERSION, batch: [{ id: 1, op: 'dot', args: [[1, 2], [3, 4]] }] });
  assert.deepEqual(ok.results, [{ id: 1, ok: true, result: 11 }]);
  const stale = await send({ batch: [{ id: 2, op: 'dot', args: [[1], [1]] }, { id: 3, op: 'dot', args: [[1], [1]] }] });
  assert.deepEqual(stale.results.map((r) => [r.id, r.ok, r.code]), [[2, false, 'LOOKBACK_PROTOCOL_MISMATCH'], [3, false, 'LOOKBACK_PROTOCOL_MISMATCH']]);
  assert.match(stale.results[0].error, /protocol version none but the worker version \d+.*reload the page/);
});

test('the controller forwards every worker op but the model ops, which only the page\'s registry uses', () => {
  const worker = [...coreOps(lb), ...Object.keys(trainOps)];
  assert.deepEqual(FORWARDED_OPS.filter((op) => !worker.includes(op)), [], 'forwarded ops the worker does not answer');
  assert.deepEqual(worker.filter((op) => !FORWARDED_OPS.includes(op)), [], 'worker ops the controller would refuse');
  for (const op of Object.keys(modelOps)) assert.ok(!FORWARDED_OPS.includes(op), `${op}: models go through the registry`);
});

test('one handle table: handles count from 1, a freed or unknown handle says so, dispose runs once', () => {
  const table = new Handles('this thing was disposed (or never made)');
  const freed = [];
  const a = table.add({ dispose: () => freed.push('a') }), b = table.add({ dispose: () => freed.push('b') });
  assert.deepEqual([a, b], [1, 2]);
  assert.equal(table.dispose(a), null);
  assert.equal(table.dispose(a), null);
  assert.deepEqual(freed, ['a']);
  assert.throws(() => table.get(a), /^Error: this thing was disposed \(or never made\)$/);
  assert.throws(() => table.get('2'), /disposed/);
  assert.equal(table.add({}), 3, 'a handle is never reused');
  assert.throws(() => modelOps.modelCall(lb, 999, 'encode', ['x']), /this model was disposed \(or never loaded\)/);
  assert.throws(() => trainOps.trainStep(lb, 999, 1), /this training run was disposed \(or never made\)/);
});
