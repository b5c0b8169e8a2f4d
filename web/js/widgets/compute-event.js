// How a widget asks for a computation without knowing who computes it: it dispatches a bubbling
// `lookback-compute` CustomEvent {op, args, key, reply}; a controller claims it and answers through the worker.
// Rejects with a clear Error when no controller claims the event. Not a widget.

export function requestCompute(element, op, args, key) {
  return new Promise((resolve, reject) => {
    const detail = {
      op, args, key, claimed: false,
      reply: (err, result) => (err ? reject(err) : resolve(result)),
    };
    element.dispatchEvent(new CustomEvent('lookback-compute', { bubbles: true, composed: true, detail }));
    if (!detail.claimed) {
      reject(new Error('lookback: no controller answered; include web/lookback.js (or the chapter page) first'));
    }
  });
}
