// The module worker that owns the lookback API in the browser, so the page never blocks on computation.
// Protocol (web/js/protocol.js): {version, batch: [{id, op, args, key?, progress?}, ...]} in; {results: [...]} out, one message per batch once
// all of its requests are done, each {id, ok, result} | {id, ok: false, error, code?} | {id, dropped: true}.
// Requests sharing a key supersede older queued ones (only the newest runs). {cancel: id} in aborts that
// request's signal; a request sent with progress: true may send {progress: {id, value}} messages before its
// result. Not an API of its own: ops.js maps op names onto the JS API.
import { loadLookback } from '../api/index.js';
import { modelOps } from './model-ops.js';
import { registerOps, runOp, transferables } from './ops.js';
import { PROTOCOL_VERSION, versionMismatch } from '../protocol.js';
import { trainOps } from './train-ops.js';
// The modules those import, written between the two marker lines by the build (.scripts/module-lists.mjs), so
// that the worker fetches its whole graph in one wave rather than level by level as each import is found.
// imports: begin
import '../api/errors.js';
import '../api/files.js';
import '../api/model.js';
import '../api/options.js';
import '../api/loaded-model.js';
import '../api/window-model.js';
import '../api/staged-attention.js';
import '../api/staging-view.js';
import '../api/train.js';
import '../api/weight.js';
import './handles.js';
import '../train-tasks.js';
// imports: end

registerOps(modelOps);
registerOps(trainOps);

const ready = loadLookback();
const queue = [];
let scheduled = false;

const running = new Map();  // id -> AbortController of a request not yet answered

self.onmessage = (event) => {
  if (event.data.cancel) {
    running.get(event.data.cancel)?.abort();
    return;
  }
  const batch = event.data.batch;
  if (event.data.version !== PROTOCOL_VERSION) {
    self.postMessage({ results: batch.map((m) => ({ id: m.id, ok: false, ...versionMismatch(event.data.version) })) });
    return;
  }
  const reply = { results: [], left: batch.length, transfer: new Set() };
  for (const m of batch) {
    running.set(m.id, new AbortController());
    queue.push({ ...m, reply });
  }
  if (!scheduled) {
    scheduled = true;
    setTimeout(drain, 0);
  }
};

// One answer into its batch's reply; the reply goes out when every request of the batch is answered.
function answer(m, result, transfer = []) {
  running.delete(m.id);
  const reply = m.reply;
  reply.results.push(result);
  for (const buffer of transfer) reply.transfer.add(buffer);
  if (--reply.left === 0) self.postMessage({ results: reply.results }, [...reply.transfer]);
}

async function drain() {
  scheduled = false;
  let lb;
  try {
    lb = await ready;
  } catch (err) {
    for (const m of queue.splice(0)) answer(m, { id: m.id, ok: false, error: String(err.message || err), code: err?.code });
    return;
  }
  const batch = queue.splice(0);
  const newest = new Map();
  for (const m of batch) if (m.key) newest.set(m.key, m.id);
  for (const m of batch) {
    if (m.key && newest.get(m.key) !== m.id) {
      answer(m, { id: m.id, dropped: true });
      continue;
    }
    const ctx = {
      signal: running.get(m.id)?.signal,
      progress: m.progress ? (value) => self.postMessage({ progress: { id: m.id, value } }) : undefined,
    };
    try {
      const result = await runOp(lb, m.op, m.args || [], ctx);
      answer(m, { id: m.id, ok: true, result }, transferables(result));
    } catch (err) {
      answer(m, { id: m.id, ok: false, error: String(err?.message ?? err), code: err?.code });
    }
  }
}
