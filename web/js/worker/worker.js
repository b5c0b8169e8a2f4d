// The module worker that owns the lookback API in the browser, so the page never blocks on computation.
// Protocol: {id, op, args, key?} in; {id, ok, result} | {id, ok: false, error} | {id, dropped: true} out.
// Requests sharing a key supersede older queued ones (only the newest runs). Not an API of its own: ops.js maps
// op names onto the JS API.
import { loadLookback } from '../api/index.js';
import { modelOps } from './model-ops.js';
import { registerOps, runOp, transferables } from './ops.js';

registerOps(modelOps);

const ready = loadLookback();
const queue = [];
let scheduled = false;

self.onmessage = (event) => {
  queue.push(event.data);
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
};

async function drain() {
  scheduled = false;
  let lb;
  try {
    lb = await ready;
  } catch (err) {
    for (const m of queue.splice(0)) self.postMessage({ id: m.id, ok: false, error: String(err.message || err) });
    return;
  }
  const batch = queue.splice(0);
  const newest = new Map();
  for (const m of batch) if (m.key) newest.set(m.key, m.id);
  for (const m of batch) {
    if (m.key && newest.get(m.key) !== m.id) {
      self.postMessage({ id: m.id, dropped: true });
      continue;
    }
    try {
      const result = await runOp(lb, m.op, m.args || []);
      self.postMessage({ id: m.id, ok: true, result }, transferables(result));
    } catch (err) {
      self.postMessage({ id: m.id, ok: false, error: String(err?.message ?? err) });
    }
  }
}
