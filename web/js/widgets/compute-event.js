// How a widget asks for a computation without knowing who computes it: it dispatches a bubbling
// `lookback-compute` CustomEvent {op, args, key, reply, progress?}; a controller claims it and answers through
// the worker, calling progress(value) with what the operation reports on the way (a model's {loaded, total}
// bytes). Rejects with a clear Error when no controller claims the event. The event's detail is described in
// web/js/protocol.js. Not a widget.
import { COMPUTE_EVENT } from '../protocol.js';

export function requestCompute(element, op, args, key, { onProgress } = {}) {
  return new Promise((resolve, reject) => {
    const detail = {
      op, args, key, claimed: false, progress: onProgress,
      reply: (err, result) => (err ? reject(err) : resolve(result)),
    };
    element.dispatchEvent(new CustomEvent(COMPUTE_EVENT, { bubbles: true, composed: true, detail }));
    if (!detail.claimed) {
      reject(new Error('lookback: no controller answered; include web/lookback.js (or the chapter page) first'));
    }
  });
}
