// The flow of one attention layer, drawn from the real numbers: x (T×C) times W_Q, W_K, W_V gives Q, K, V; each
// is cut into H heads of d columns (H×T×d); every head's scores Q_h K_hᵀ/√d (T×T), the causal mask, the softmax
// weights, and the weights times V_h; the heads concatenated (T×C) and mixed by W_O. computeFlow() runs the
// arithmetic through the core's operations (gemm, scores, softmax, blend: the JS API's, or the page's worker's);
// flowFigure() draws what it returns. flowInputs() makes small readable inputs for any short text.
import { heatmap, legend, magnitude } from './heatmap.js';
import { tokenText, tokenLabel } from './tokens.js';
import { fixed, lines, svgDocument, text, textLines, textWidth, MUTED, NARROW } from './svg.js';

/** rows of `cols` numbers from a flat array */
export const rowsOf = (flat, cols) => Array.from({ length: flat.length / cols }, (_, i) => Array.from(flat.slice(i * cols, (i + 1) * cols)));

// a string's 32-bit FNV-1a hash: the same word gets the same embedding in every text
function hash(s) {
  let h = 0x811c9dc5;
  for (const ch of s) h = Math.imul(h ^ ch.codePointAt(0), 0x01000193) >>> 0;
  return h;
}

// mulberry32: uniform numbers in [0, 1) from a seed
function uniform(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// a number in [-1, 1] with one decimal (small inputs a reader can check by hand)
const tenth = (u) => Math.round((2 * u() - 1) * 10) / 10;

/**
 * Small inputs for a short text: the words (split on spaces), each word's embedding x (C numbers in [-1, 1], one
 * decimal, from the word itself, so a repeated word gets the same row) and W_Q, W_K, W_V, W_O (C×C, from `seed`).
 */
export function flowInputs(text, { C = 4, heads = 2, seed = 1, maxWords = 8 } = {}) {
  const words = String(text).trim().split(/\s+/).filter(Boolean).slice(0, maxWords);
  if (words.length === 0) throw new TypeError('figures: flowInputs needs a text with at least one word');
  if (!Number.isInteger(C) || !Number.isInteger(heads) || heads < 1 || C % heads !== 0) throw new RangeError(`figures: C (${C}) must be a multiple of heads (${heads})`);
  const x = words.map((w) => { const u = uniform(hash(w.toLowerCase())); return Array.from({ length: C }, () => tenth(u)); });
  const u = uniform(seed);
  const matrix = () => Array.from({ length: C }, () => Array.from({ length: C }, () => tenth(u)));
  return { words, x, wq: matrix(), wk: matrix(), wv: matrix(), wo: matrix(), heads, causal: true };
}

/**
 * Runs the layer: ops = { gemm, scores, softmax, blend } with the JS API's arguments (each may return a promise).
 * inputs: { words, x [T][C], wq, wk, wv [C][H·d], wo [H·d][C] (optional), heads, causal }. Returns the inputs and
 * Q, K, V [T][H·d], scores [H][T][T] (scaled, before the mask), mask [T][T] (1: may look), weights [H][T][T],
 * heads' output [T][H·d] (the heads concatenated) and, with wo, out [T][C].
 */
export async function computeFlow(ops, inputs) {
  const { words, x, wq, wk, wv, wo = null, heads: H = 1, causal = true } = inputs;
  const T = x.length, C = x[0].length, HD = wq[0].length, d = HD / H;
  if (!Number.isInteger(d)) throw new RangeError(`figures: W_Q's ${HD} columns do not split into ${H} heads`);
  const X = Float32Array.from(x.flat());
  const project = (w) => ops.gemm(X, Float32Array.from(w.flat()), { M: T, N: w[0].length, K: C });
  const [Q, K, V] = await Promise.all([project(wq), project(wk), project(wv)]);
  const S = await ops.scores(Q, K, { T, S: T, heads: H, d, scale: true });        // [H, T, T]
  const mask = Array.from({ length: T }, (_, t) => Array.from({ length: T }, (_, s) => (!causal || s <= t ? 1 : 0)));
  const maskRows = Uint8Array.from(Array.from({ length: H }, () => mask.flat()).flat());
  const { weights: A } = await ops.softmax(S, { rows: H * T, cols: T, mask: maskRows });
  const O = await ops.blend(A, V, { T, S: T, heads: H, d });                        // [T, H, d]
  const out = wo ? await ops.gemm(O, Float32Array.from(wo.flat()), { M: T, N: wo[0].length, K: HD }) : null;
  const perHead = (flat) => Array.from({ length: H }, (_, h) => rowsOf(flat.slice(h * T * T, (h + 1) * T * T), T));
  return { words, x, wq, wk, wv, wo, heads: H, d, causal, Q: rowsOf(Q, HD), K: rowsOf(K, HD), V: rowsOf(V, HD),
    scores: perHead(S), mask, weights: perHead(A), headsOut: rowsOf(O, HD), out: out ? rowsOf(out, wo[0].length) : null };
}

const sub = (i) => String(i).split('').map((c) => '₀₁₂₃₄₅₆₇₈₉'[c]).join('');
const cols = (m, h, d) => m.map((r) => r.slice(h * d, (h + 1) * d));

/** the flow figure of computeFlow()'s result */
export function flowFigure(f, { cell = 28, maxWidth = Infinity } = {}) {
  const T = f.words.length, C = f.x[0].length, H = f.heads, d = f.d, HD = H * d;
  const words = f.words.map(tokenText);
  const one = H === 1;
  const rowTitle = (m, r) => `${m}, row ${tokenLabel(f.words[r], r)}`;
  const colTitle = (m, r, c, v) => `${rowTitle(m, r)}, column ${c + 1}: ${fixed(v, 3)}`;
  const pairTitle = (m, what) => (r, c, v) => `${m}: ${tokenLabel(f.words[r], r)} ${what} ${tokenLabel(f.words[c], c)}: ${fixed(v, 3)}`;
  // a map: { name, caption, values, scale, rowLabels, colLabels, title }
  const map = (name, caption, values, o = {}) => ({ name, caption, values, title: o.title ?? ((r, c, v) => colTitle(name, r, c, v)),
    scale: o.scale ?? 'signed', rowLabels: o.rowLabels === undefined ? words : o.rowLabels, colLabels: o.colLabels ?? null,
    digits: o.digits ?? (values.every((r) => r.every((v) => v === null || Number.isInteger(v))) ? 0 : 2) });
  const op = (s) => ({ op: s });
  const wLabels = Array.from({ length: C }, (_, i) => `${i + 1}`);
  const rows = [];
  rows.push({ heading: `1. The input: each of the T = ${T} tokens is a vector of C = ${C} numbers; W_Q, W_K and W_V are learned C×${HD} matrices`,
    items: [map('x', `x  ${T}×${C} (T×C)`, f.x), op(' '), map('W_Q', `W_Q  ${C}×${HD}`, f.wq, { rowLabels: wLabels }), map('W_K', `W_K  ${C}×${HD}`, f.wk, { rowLabels: wLabels }),
      map('W_V', `W_V  ${C}×${HD}`, f.wv, { rowLabels: wLabels })] });
  rows.push({ heading: '2. Queries, keys and values: Q = x W_Q, K = x W_K, V = x W_V',
    items: [map('Q', `Q  ${T}×${HD}`, f.Q), map('K', `K  ${T}×${HD}`, f.K), map('V', `V  ${T}×${HD}`, f.V)] });
  const hs = Array.from({ length: H }, (_, h) => h);
  const hn = (n, h) => (one ? n : `${n}${sub(h + 1)}`);
  if (!one) {
    rows.push({ heading: `3. Cut into H = ${H} heads of d = ${d} columns: Q, K and V become ${H}×${T}×${d} (H×T×d)`,
      items: hs.flatMap((h) => [map(hn('Q', h), `${hn('Q', h)}  ${T}×${d}`, cols(f.Q, h, d)), map(hn('K', h), `${hn('K', h)}  ${T}×${d}`, cols(f.K, h, d)),
        map(hn('V', h), `${hn('V', h)}  ${T}×${d}`, cols(f.V, h, d)), ...(h < H - 1 ? [op('|')] : [])]) });
  }
  let n = one ? 3 : 4;
  rows.push({ heading: `${n++}. Scores: ${one ? 'Q Kᵀ' : 'each head\'s Q_h K_hᵀ'} / √${d}, a T×T matrix (row: who looks, column: at whom)${f.causal ? '; the causal mask hides the future' : ''}`,
    items: [...hs.map((h) => map(hn('scores', h), `${hn('scores', h)}  ${T}×${T}`, f.scores[h], { colLabels: words, title: pairTitle(hn('scores', h), 'scores') })),
      ...(f.causal ? [op('+'), map('mask', `mask  ${T}×${T}`, f.mask.map((r) => r.map((m) => (m ? 0 : null))), { colLabels: words, digits: 0,
        title: (r, c) => `mask: ${tokenLabel(f.words[r], r)} may look at ${tokenLabel(f.words[c], c)} (0 is added; hidden cells get −∞)` })] : [])] });
  rows.push({ heading: `${n++}. Softmax along each row: weights that are positive and sum to 1${f.causal ? ' (the future gets exactly 0)' : ''}`,
    items: hs.map((h) => map(hn('weights', h), `${hn('weights', h)}  ${T}×${T}`, f.weights[h].map((r, t) => r.map((v, s) => (f.causal && s > t ? null : v))),
      { scale: 'weight', colLabels: words, title: pairTitle(hn('weights', h), 'puts this weight on') })) });
  rows.push({ heading: `${n++}. Weights × V: each token's output is the weighted average of the values${one ? '' : ' (per head, T×d), then the heads side by side again (T×C)'}`,
    items: one ? [map('output', `output  ${T}×${d}`, f.headsOut)]
      : [...hs.map((h) => map(hn('out', h), `${hn('out', h)}  ${T}×${d}`, cols(f.headsOut, h, d))), op('→'), map('concat', `concatenated  ${T}×${HD}`, f.headsOut)] });
  if (f.out) {
    rows.push({ heading: `${n++}. W_O mixes the heads: output = concatenated × W_O (${HD}×${f.out[0].length})`,
      items: [map('concat', `concatenated  ${T}×${HD}`, f.headsOut), op('×'), map('W_O', `W_O  ${HD}×${f.out[0].length}`, f.wo, { rowLabels: Array.from({ length: HD }, (_, i) => `${i + 1}`) }),
        op('='), map('output', `output  ${T}×${f.out[0].length}`, f.out)] });
  }
  // a narrow figure (maxWidth: a phone) wraps its headings and starts a new line of maps where the next would not fit
  const parts = [];
  let y = 50, width = 0;
  for (const row of rows) {
    const head = lines(row.heading, maxWidth - 32, 12, true);
    parts.push(textLines(16, y, head, 16, { size: 12, weight: 600 }));
    width = Math.max(width, ...head.map((line) => 16 + textWidth(line, 12, true)));
    let x = 16, top = y + (head.length - 1) * 16 + 24, bottom = top;
    const size = (it) => {
      if (it.op) return 16;
      const probe = heatmap({ values: it.values, scale: it.scale, name: it.name, cell, title: it.title, rowLabels: it.rowLabels, colLabels: it.colLabels, digits: it.digits });
      return Math.max(probe.extent, probe.left + textWidth(it.caption, 11)) + 20;
    };
    row.items.forEach((it, i) => {
      // an operator goes to the next line with the map after it
      const need = it.op && row.items[i + 1] ? size(it) + size(row.items[i + 1]) : size(it);
      if (x > 16 && x + need - 20 > maxWidth - 16) {
        x = 16;
        top = bottom + 34;
      }
      if (it.op) {
        if (x > 16 || it.op.trim()) parts.push(text(x + 8, top + 40, it.op, { size: 18, anchor: 'middle', fill: MUTED, attrs: { 'aria-hidden': 'true' } }));
        x += x > 16 || it.op.trim() ? 16 : 0;
        return;
      }
      const m = heatmap({ values: it.values, scale: it.scale, name: it.name, cell, title: it.title, rowLabels: it.rowLabels, colLabels: it.colLabels, digits: it.digits, x, y: top + 16 });
      parts.push(text(m.left, top + 8, it.caption, { size: 11, fill: MUTED }), m.svg);
      x += size(it);
      bottom = Math.max(bottom, m.bottom);
    });
    width = Math.max(width, x);
    y = bottom + 34;
  }
  const big = Math.max(...[f.x, f.Q, f.K, f.V].map(magnitude));
  // the two legends side by side, or on a narrow figure one above the other with their names above the bars
  const stack = maxWidth < NARROW;
  const signedName = 'other numbers (each matrix to its own largest)';
  const lw = legend({ x: 16, y: y + (stack ? 14 : 0), width: 200, label: stack ? '' : 'weight' });
  const sy = stack ? y + 14 + lw.height + 26 : y;
  const ls = legend({ x: stack ? 16 : 340, y: sy, width: 200, scale: 'signed', max: 1, ticks: ['−largest', '0', '+largest'], label: stack ? '' : signedName });
  parts.push(lw.svg, ls.svg);
  if (stack) parts.push(text(16, y + 4, 'weight', { size: 11, fill: MUTED }), text(16, sy - 10, signedName, { size: 11, fill: MUTED }));
  // (narrow, the figure sits under its widget's title: the heading names only the text and the layer's shape)
  const heading = lines(`${stack ? '' : 'Attention, step by step, for '}"${f.words.join(' ')}" (${one ? 'one head' : `${H} heads`}${f.causal ? ', causal mask' : ', no mask'})`,
    maxWidth - 32, 14, true);
  const shift = (heading.length - 1) * 18;   // a heading on two lines moves everything under it down
  return svgDocument({ width: Math.max(width, ...heading.map((line) => 16 + textWidth(line, 14, true)), stack ? 16 + textWidth(signedName, 11) : 340 + ls.width) + 16,
    height: sy + ls.height + 14 + shift, kind: 'flow',
    body: textLines(16, 24, heading, 18, { size: 14, weight: 600 })
      + (shift ? `<g transform="translate(0 ${shift})">${parts.join('')}</g>` : parts.join('')),
    title: `The flow of attention for "${f.words.join(' ')}": x → Q, K, V → scores → ${f.causal ? 'mask → ' : ''}softmax → weights × V${one ? '' : ' → heads concatenated'}${f.out ? ' → W_O' : ''}`,
    desc: `Every matrix of one attention layer over ${T} tokens as a heat map of its numbers (C = ${C}, ${H} head${one ? '' : 's'} of d = ${d}); `
      + `weights on the weight scale from 0 to 1, the other numbers from red (negative) through white to teal (positive), each matrix scaled to its own largest `
      + `magnitude (the largest input is ${fixed(big, 2)}). Each cell's title gives its matrix, row, column and value.` });
}
