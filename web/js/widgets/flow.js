// <lookback-flow>: one attention layer drawn step by step for a short text: x → Q, K, V → (the heads) → scores →
// mask → softmax → weights × V → (heads concatenated → W_O), every matrix a heat map of the numbers the core
// computed (gemm, scores, softmax and blend ops), each number reachable by pointer and keyboard, and all of them as
// tables behind a disclosure. Inputs: a text (each word's numbers come from the word, the weights from a seed) or
// explicit JSON matrices. Not the drawing (lookback/figures' computeFlow and flowFigure).
import { LookbackWidget, define, esc, fmt, jsonAttr } from './widget-kit.js';
import { drawReport } from './export.js';
import { FIGURE_CSS, showFigure } from './figure-view.js';
import { computeFlow, flowFigure, flowInputs } from '../figures/index.js';

const CSS = `${FIGURE_CSS}
.text-row { display: flex; flex-wrap: wrap; gap: .45rem; align-items: center; margin-bottom: .4rem; }
.text-row[hidden] { display: none; }   /* a flow without the editable attribute has no text box */
.text-row input { flex: 1 1 14rem; font-family: var(--lb-mono); }
.figure-view { overflow-x: auto; }
.figure-view svg { min-width: 36rem; }
/* a narrow widget draws the figure to its width (headings wrapped, maps on more lines): no sideways scrolling, no tiny text */
@container (max-width: 600px) { .figure-view svg { min-width: 0; } }
details { margin-top: .5rem; }
summary { cursor: pointer; }
.tables { display: flex; flex-wrap: wrap; gap: .8rem; }
`;

const NARROW = 600;   // px: a figure box this narrow or narrower gets the narrow layout (as the container query below)

const clampInt = (v, lo, hi, d) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : d;
};

/**
 * @attr text - the short text (at most 8 words; default "the cat sat down")
 * @attr heads - heads (default 2)
 * @attr dim - numbers per word, a multiple of heads (default 4)
 * @attr seed - the weights' seed (default 1)
 * @attr no-mask - every word sees every other (no causal mask)
 * @attr editable - show a box to type the text
 * @attr x - the words' vectors, JSON matrix `[T][C]` (with wq, wk and wv: these inputs instead of the text's)
 * @attr wq - the query projection, JSON matrix `[C][H·d]`
 * @attr wk - the key projection, JSON matrix `[C][H·d]`
 * @attr wv - the value projection, JSON matrix `[C][H·d]`
 * @attr wo - the output projection, JSON matrix `[H·d][C]` (optional)
 * @attr words - the rows' labels, JSON `["...", ...]`, one per row of `x`
 * @fires lookback-change - the layer was computed for the words (detail {words, heads})
 */
class Flow extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['text', 'heads', 'dim', 'seed', 'no-mask', 'editable', 'x', 'wq', 'wk', 'wv', 'wo', 'words'];

  constructor() {
    super();
    this.text = 'the cat sat down';
    this.flow = null;
  }

  attributeChangedCallback(name, _old, v) {
    if (name === 'text' && v != null) this.text = v;
    if (this._built) {
      this.syncControls();
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Attention, drawn step by step</p>
      <div class="text-row" hidden><label for="words">Your short text (up to 8 words):</label><input type="text" id="words" spellcheck="false"></div>
      <p class="hint">Every matrix is the real numbers: hover a cell, or focus the figure and use the arrow keys, to read its value and the
        row and column it came from.</p>
      <div class="figure"></div>
      <details><summary>The numbers as tables</summary><div class="tables"></div></details>`;
    this.root.querySelector('details').addEventListener('toggle', () => this.renderTables());
    const box = this.root.querySelector('.figure');
    new ResizeObserver(() => {   // a widget that turns narrow or wide (a phone turned) draws the other layout
      if (this.flow && box.clientWidth > 0 && (box.clientWidth <= NARROW) !== this._narrow) this.render();
    }).observe(box);
    const input = this.root.querySelector('#words');
    input.addEventListener('input', () => {
      this.markInput();
      this.text = input.value;
      this.invalidate();
    });
    this.syncControls();
  }

  syncControls() {
    const row = this.root.querySelector('.text-row');
    row.hidden = !this.hasAttribute('editable');
    const input = this.root.querySelector('#words');
    if (input.value !== this.text) input.value = this.text;
  }

  // The inputs: the JSON matrices when x is given, else small numbers for the text's words.
  inputs() {
    const matrix = (m) => Array.isArray(m) && m.length > 0 && m.length <= 16 && m.every((r) => Array.isArray(r) && r.length === m[0].length && r.every(Number.isFinite));
    const x = jsonAttr(this, 'x', null, matrix);
    const heads = clampInt(this.getAttribute('heads'), 1, 8, x ? 1 : 2);
    const causal = !this.hasAttribute('no-mask');
    if (x) {
      const [wq, wk, wv] = ['wq', 'wk', 'wv'].map((n) => jsonAttr(this, n, null, matrix));
      const wo = jsonAttr(this, 'wo', null, matrix);
      const words = jsonAttr(this, 'words', x.map((_, i) => `w${i + 1}`), (l) => Array.isArray(l) && l.length === x.length).map(String);
      if (wq && wk && wv && [wq, wk, wv].every((m) => m.length === x[0].length) && wq[0].length === wk[0].length && wq[0].length % heads === 0) {
        return { words, x, wq, wk, wv, wo: wo && wo.length === wv[0].length ? wo : null, heads, causal };
      }
      console.warn('<lookback-flow>: x, wq, wk and wv do not fit together; using the text');
    }
    const dim = clampInt(this.getAttribute('dim'), heads, 16, 4);
    const text = this.text.trim() || 'the cat sat down';
    return { ...flowInputs(text, { C: dim - (dim % heads), heads, seed: clampInt(this.getAttribute('seed'), 0, 2 ** 31, 1) }), causal };
  }

  async compute() {
    const inputs = this.inputs();
    const ask = (op) => (...args) => this.ask(op, args, `${op}-${Math.random()}`);
    this.flow = await computeFlow({ gemm: ask('gemm'), scores: ask('scores'), softmax: ask('softmax'), blend: ask('blend') }, inputs);
    this.render();
  }

  /** the figure as a standalone SVG (lookback/figures' flowFigure: what `lookback flow` draws for the same inputs) */
  figure() {
    return flowFigure(this.flow);
  }

  // the figure as the page shows it: on a narrow widget laid out to the widget's width with cells large enough
  // for their numbers to be read (a phone), else as figure() draws it
  shownFigure() {
    const box = this.root.querySelector('.figure'), width = box.clientWidth;
    this._narrow = width > 0 && width <= NARROW;
    return this._narrow ? flowFigure(this.flow, { maxWidth: width, cell: 30 }) : this.figure();
  }

  render() {
    const f = this.flow, box = this.root.querySelector('.figure');
    showFigure(box, this.shownFigure(), `Attention step by step for "${f.words.join(' ')}"`);
    // folded on a phone, the widget shows the figure's first matrix, the input x with its shape, whole
    box.querySelector('g.heatmap')?.setAttribute('data-fold-end', '');
    this.renderTables();
    this.emit('lookback-change', { words: f.words, heads: f.heads });
  }

  // The tables are written while their disclosure is open (closed, the figure and its readout carry the numbers).
  renderTables() {
    const f = this.flow, box = this.root.querySelector('.tables');
    if (!f || !this.root.querySelector('details').open) {
      box.innerHTML = '';
      return;
    }
    box.innerHTML = this.matrices().map(([name, m, cols]) => `<div class="scroll"><table class="num" data-m="${esc(name)}">
      <caption>${esc(name)} (${m.length}×${m[0].length})</caption>
      <thead><tr><th scope="col"><span class="sr-only">row</span></th>${cols.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr></thead>
      <tbody>${m.map((r, i) => `<tr><th scope="row">${esc(name.startsWith('W_') ? `${i + 1}` : f.words[i])}</th>${r.map((v) => `<td>${v === null ? '—' : fmt(v, 3)}</td>`).join('')}</tr>`).join('')}</tbody>
    </table></div>`).join('');
    this.watchScrollers();
  }

  // [name, rows, column names] of every matrix the figure draws, named as the figure names them
  matrices() {
    const f = this.flow, H = f.heads, d = f.d, one = H === 1;
    const num = (n) => Array.from({ length: n }, (_, i) => `${i + 1}`);
    const sub = (h) => String(h + 1).split('').map((c) => '₀₁₂₃₄₅₆₇₈₉'[c]).join('');
    const hn = (n, h) => (one ? n : `${n}${sub(h)}`);
    const cut = (m, h) => m.map((r) => r.slice(h * d, (h + 1) * d));
    const hs = [...Array(H).keys()];
    const hide = (m) => m.map((r, t) => r.map((v, s) => (f.causal && s > t ? null : v)));
    return [['x', f.x, num(f.x[0].length)], ['W_Q', f.wq, num(f.wq[0].length)], ['W_K', f.wk, num(f.wk[0].length)], ['W_V', f.wv, num(f.wv[0].length)],
      ['Q', f.Q, num(H * d)], ['K', f.K, num(H * d)], ['V', f.V, num(H * d)],
      ...(one ? [] : hs.flatMap((h) => [[hn('Q', h), cut(f.Q, h), num(d)], [hn('K', h), cut(f.K, h), num(d)], [hn('V', h), cut(f.V, h), num(d)]])),
      ...hs.map((h) => [hn('scores', h), f.scores[h], f.words]),
      ...hs.map((h) => [hn('weights', h), hide(f.weights[h]), f.words]),
      ...(one ? [['output', f.headsOut, num(d)]] : [...hs.map((h) => [hn('out', h), cut(f.headsOut, h), num(d)]), ['concat', f.headsOut, num(H * d)]]),
      ...(f.out ? [['W_O', f.wo, num(f.wo[0].length)], ['output', f.out, num(f.out[0].length)]] : [])];
  }

  exportData() {
    const f = this.flow;
    const csv = [['matrix', 'row', 'column', 'value']];
    for (const [name, m, cols] of this.matrices()) m.forEach((r, i) => r.forEach((v, j) => { if (v !== null) csv.push([name, i + 1, cols[j], v]); }));
    return { json: f, csv };
  }

  exportCanvas() {
    const f = this.flow;
    return drawReport(this, {
      title: `Attention step by step: "${f.words.join(' ')}"`,
      blocks: this.matrices().filter(([n]) => n.startsWith('weights')).map(([name, m]) => ({ table: { caption: name, header: ['', ...f.words],
        rows: m.map((r, i) => [f.words[i], ...r.map((v) => (v === null ? '' : fmt(v)))]) } })),
    });
  }
}

define('lookback-flow', Flow);
export { Flow };
