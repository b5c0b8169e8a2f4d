// The page's first live number: the scores and weights of "sat" in "the cat sat down", computed through the
// worker. x rows are one-hot-ish features; W_Q and W_K are the chapter's worked example. Not a widget.

const X = [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]];  // x: [T=4, 3]
const WQ = [[0, 1], [1, 0], [0, 1]];                      // [3, d=2]
const WK = [[1, 0], [1, 1], [0, 1]];
const WORDS = ['the', 'cat', 'sat', 'down'];

export async function firstComputation(client, out) {
  try {
    const flatX = Float32Array.from(X.flat());
    const [q, k] = await Promise.all([WQ, WK].map((w) => client.request('gemm', [flatX, Float32Array.from(w.flat()), { M: 4, N: 2, K: 3 }])));
    const scores = await client.request('scores', [q.subarray(4, 6), k, { T: 1, S: 4, d: 2, scale: true }]);
    const { weights } = await client.request('softmax', [scores, { rows: 1 }]);
    const fmt = (a) => Array.from(a, (x) => x.toFixed(2)).join(', ');
    out.textContent = `scores of "sat": ${fmt(scores)}  →  weights: ${WORDS.map((w, i) => `${w} ${weights[i].toFixed(3)}`).join(', ')}`;
    out.dataset.scores = fmt(scores);
    out.dataset.weights = Array.from(weights, (x) => x.toFixed(4)).join(',');
    out.dataset.status = 'done';
  } catch (err) {
    out.textContent = `could not compute: ${err.message}`;
    out.dataset.status = 'error';
    console.error(err);
  }
}
