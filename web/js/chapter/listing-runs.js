// What each of the chapter's listings (web/listings/*.py) prints, computed by the core through `ask(op, args)`
// from the numbers read out of the listing's own source: the page shows it under the listing, and the tests
// compare it with what Python prints. One function per listing, named after its file.
// Not a Python interpreter: each function knows the steps of its listing; only the numbers come from the file.
import { listingInputs, need } from './listing-inputs.js';
import { printer, tupleText } from './numpy-print.js';
import { seeded } from '../widgets/seeded.js';

const f32 = (a) => Float32Array.from([a].flat(Infinity));
const array = (data, shape) => ({ data: Array.from(data), shape });

// attention for one query (section 3): scores, softmax with a temperature, the weighted values
async function qkv(ask, inputs, file) {
  const q = need(inputs, 'q', file), K = need(inputs, 'K', file), V = need(inputs, 'V', file), tau = need(inputs, 'tau', file);
  const n = K.length, dv = V[0].length, w = Math.max(q.length, dv);
  // the attention op takes one width for q, k and v: pad them with zeros (a zero adds nothing to a dot product)
  const pad = (v) => [...v, ...new Array(w - v.length).fill(0)];
  const [scores, att] = await Promise.all([
    ask('scores', [f32(q), f32(K), { T: 1, S: n, d: q.length, scale: false }]),
    ask('attention', [f32(pad(q)), f32(K.map(pad)), f32(V.map(pad)), { T: 1, S: n, d: w, scale: false, temperature: tau }]),
  ]);
  const p = printer();
  p.print('scores ', array(scores, [n]));
  p.print('weights', array(att.weights, [n]));
  p.print('output ', array(att.output.slice(0, dv), [dv]));
  return p;
}

// the √d experiment (section 5): the widget's seeded queries and keys, average largest weight raw and scaled
async function scaling(ask, inputs, file) {
  const [seed, N, S, widest, widths] = ['seed', 'N', 'S', 'widest', 'widths'].map((n) => need(inputs, n, file));
  const { normal } = seeded(seed);
  const z = new Float32Array((N + S) * widest);
  for (let i = 0; i < z.length; i++) z[i] = normal();
  const firstD = (rows, from, d) => {
    const out = new Float32Array(rows * d);
    for (let r = 0; r < rows; r++) out.set(z.subarray(from + r * widest, from + r * widest + d), r * d);
    return out;
  };
  const meanLargest = (w) => {
    let sum = 0;
    for (let i = 0; i < N; i++) sum += Math.max(...w.subarray(i * S, (i + 1) * S));
    return sum / N;
  };
  const p = printer();
  p.print('    d  raw q·k  q·k/√d   (average largest weight)');
  for (const d of widths) {
    const q = firstD(N, 0, d), k = firstD(S, N * widest, d);
    const weights = await Promise.all([false, true].map(async (scale) => {
      const s = await ask('scores', [q, k, { T: N, S, d, scale }]);
      return (await ask('softmax', [s, { rows: N, cols: S }])).weights;
    }));
    p.printf({ field: d, width: 5, precision: 0 }, '  ', { field: meanLargest(weights[0]), width: 7 }, '  ',
      { field: meanLargest(weights[1]), width: 6 });
  }
  p.printf(`an even spread over ${S} keys gives `, { field: 1 / S, precision: 4 }, '; one-hot gives 1');
  return p;
}

// q, k and v of every row of x ([T, C] nested) through the weight matrices Ws ([C, n] nested): flat [T, n] each
const project = (ask, x, Ws) => Promise.all(Ws.map((W) => ask('gemm', [f32(x), f32(W), { M: x.length, N: W[0].length, K: x[0].length }])));

// the causal mask and the leak test (section 6): weights and outputs masked; how far each output moves when the
// last word changes, with the mask and without
async function mask(ask, inputs, file) {
  const X = need(inputs, 'X', file), W = ['W_Q', 'W_K', 'W_V'].map((n) => need(inputs, n, file));
  const edit = Object.keys(inputs).map((k) => /^X_edit\[(\d+)\]$/.exec(k)).find(Boolean);
  if (!edit) throw new Error(`listing ${file}: no \`X_edit[i] = …\``);
  const X2 = X.map((row, i) => (i === Number(edit[1]) ? inputs[edit[0]] : row));
  const T = X.length, d = W[0][0].length;
  const run = async (x, causal) => ask('attention', [...await project(ask, x, W), { T, d, causal }]);
  const [a, aOpen, e, eOpen] = await Promise.all([run(X, true), run(X, false), run(X2, true), run(X2, false)]);
  const change = (u, v) => Array.from({ length: T }, (_, t) => Math.max(...u.output.slice(t * d, (t + 1) * d)
    .map((x, c) => Math.abs(v.output[t * d + c] - x))));
  const p = printer();
  p.print('weights with the causal mask');
  p.print(array(a.weights, [T, T]));
  p.print('outputs');
  p.print(array(a.output, [T, d]));
  p.print('largest change per word,', 'causal mask:', array(change(a, e), [T]));
  p.print('largest change per word,', 'no mask:    ', array(change(aOpen, eOpen), [T]));
  return p;
}

// multi-head attention (section 9): H heads of d = C/H, causal, concatenated, mixed by W_O
async function multihead(ask, inputs, file) {
  const X = need(inputs, 'X', file), H = need(inputs, 'H', file);
  const [WQ, WK, WV, WO] = ['W_Q', 'W_K', 'W_V', 'W_O'].map((n) => need(inputs, n, file));
  const T = X.length, C = X[0].length, d = C / H;
  const [q, k, v] = await project(ask, X, [WQ, WK, WV]);   // [T, C] = [T, H, d]: head h is columns h*d..h*d+d-1
  const att = await ask('attention', [q, k, v, { T, heads: H, d, causal: true }]);   // weights [H, T, T], output [T, H, d]
  const Y = await ask('gemm', [att.output, f32(WO), { M: T, N: C, K: C }]);
  const p = printer();
  for (let h = 0; h < H; h++) {
    p.print(`head ${h + 1}: weights ${tupleText([T, T])}`);
    p.print(array(att.weights.slice(h * T * T, (h + 1) * T * T), [T, T]));
  }
  p.print(`output ${tupleText([T, C])}`);
  p.print(array(Y, [T, C]));
  return p;
}

// the PyTorch module (section 13): the shapes it prints, for the sizes its demo asks for. PyTorch's random
// numbers are not drawn here: the core runs the same steps (projections, causal heads, W_O) on seeded ones.
async function attention_module(ask, _inputs, file, source) {
  const sizes = /Attention\(C=(\d+), H=(\d+)\)/.exec(source), x = /torch\.randn\((\d+), (\d+), (\d+)\)/.exec(source);
  if (!sizes || !x) throw new Error(`listing ${file}: no Attention(C=…, H=…) and torch.randn(B, T, C) in its demo`);
  const [C, H] = sizes.slice(1).map(Number), [B, T, Cx] = x.slice(1).map(Number);
  const { normal } = seeded(1);
  const matrix = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, normal));
  const W = Array.from({ length: 4 }, () => matrix(C, C));
  let rows = 0, width = 0;
  for (let b = 0; b < B; b++) {
    const [q, k, v] = await project(ask, matrix(T, Cx), W.slice(0, 3));
    const att = await ask('attention', [q, k, v, { T, heads: H, d: C / H, causal: true }]);
    const y = await ask('gemm', [att.output, f32(W[3]), { M: T, N: C, K: C }]);
    rows += T;
    width = y.length / T;
  }
  const p = printer();
  p.print('x', tupleText([B, T, Cx]));
  p.print('y', tupleText([B, rows / B, width]));
  return p;
}

export const RUNS = { qkv, scaling, mask, multihead, attention_module };

// The listing `file` (its name: web/listings/<name>.py) run on the core: { text, values } (values: every number
// in the text, unrounded, in order).
export async function runListing(file, source, ask) {
  const name = file.replace(/^.*\//, '').replace(/\.py$/, '');
  if (!Object.hasOwn(RUNS, name)) throw new Error(`no computation for the listing ${file} (known: ${Object.keys(RUNS).join(', ')})`);
  const p = await RUNS[name](ask, listingInputs(source), file, source);
  return { text: p.text, values: p.values };
}
