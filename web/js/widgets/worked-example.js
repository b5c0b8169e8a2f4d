// <lookback-worked-example>: attention for a four-word sentence, one step at a time: Q, K, V, scaled scores,
// softmax rows, output, with one row spelled out so the reader can check it by hand. Every matrix comes from
// the core (gemm, scores, softmax, blend ops). Not editable in place: inputs are attributes (JSON).
import { LookbackWidget, define, esc, fmt, jsonAttr } from './widget-kit.js';
import { drawReport } from './export.js';

const DEFAULTS = {
  words: ['the', 'cat', 'sat', 'down'],
  x: [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]],
  wq: [[0, 1], [1, 0], [0, 1]],
  wk: [[1, 0], [1, 1], [0, 1]],
  wv: [[1, 0], [0, 1], [1, 1]],
};

const STEPS = [
  { id: 'q', label: 'Q', title: 'Queries: Q = X W_Q', say: 'Each word\'s query is its row of X times W_Q: what this word is looking for.' },
  { id: 'k', label: 'K', title: 'Keys: K = X W_K', say: 'Each word\'s key is its row of X times W_K: how this word describes itself to the others.' },
  { id: 'v', label: 'V', title: 'Values: V = X W_V', say: 'Each word\'s value is its row of X times W_V: what it hands over when it is looked at.' },
  { id: 's', label: 'scores', title: 'Scores: S = Q Kᵀ / √d', say: 'Row i, column j is the dot product of query i with key j, divided by √d.' },
  { id: 'a', label: 'weights', title: 'Weights: A = softmax(S), row by row', say: 'Softmax turns each row of scores into positive weights that sum to 1.' },
  { id: 'o', label: 'output', title: 'Output: O = A V', say: 'Each word\'s output is the weighted average of all the values, using its row of weights.' },
];

const CSS = `
.steps { display: flex; flex-wrap: wrap; gap: .3rem; margin-bottom: .5rem; }
.steps button { min-width: 3.2rem; }
.stage { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.op { align-self: center; font-size: 1.2rem; color: var(--lb-muted); }
table.num td.sel, table.num tr.sel th { background: color-mix(in srgb, var(--lb-accent) 18%, transparent); }
table.num tr.sel td { background: color-mix(in srgb, var(--lb-accent) 12%, transparent); }
.nav { display: flex; gap: .4rem; align-items: center; margin: .6rem 0 .2rem; flex-wrap: wrap; }
.hand { background: var(--lb-page); border-radius: 8px; padding: .5rem .7rem; margin-top: .6rem;
  font-family: var(--lb-mono); font-size: .85rem; overflow-x: auto; }
.hand p { margin: .2rem 0; white-space: pre-wrap; }
.rowpick { margin-top: .5rem; }
h3.step-title { margin: .3rem 0; font-size: .95rem; }
/* on a phone the six steps fit one row */
@container (max-width: 420px) { .steps { gap: .15rem; } .steps button { min-width: 0; padding: .3rem .3rem; font-size: .75rem; flex: auto; } }
`;

/**
 * @attr words - the tokens' labels, JSON `["...", ...]`, one per row of `x`
 * @attr x - the token vectors, JSON matrix `[T][d]`
 * @attr wq - the query projection, JSON matrix
 * @attr wk - the key projection, JSON matrix
 * @attr wv - the value projection, JSON matrix
 * @attr step - the step of the computation shown, from 0
 * @attr row - the query row followed, from 0
 * @fires lookback-change - the step or row changed (detail {step, row})
 */
class WorkedExample extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['words', 'x', 'wq', 'wk', 'wv', 'step', 'row'];

  constructor() {
    super();
    this.readAttributes();
  }

  readAttributes() {
    Object.assign(this, workedInputs(this));
    this.T = this.x.length;
    this.d = this.wq[0].length;
    this.dv = this.wv[0].length;
    this.step = clampInt(this.getAttribute('step'), 0, STEPS.length - 1, this.step ?? 0);
    this.row = clampInt(this.getAttribute('row'), 0, this.T - 1, this.row ?? Math.min(2, this.T - 1));
  }

  attributeChangedCallback(name) {
    const before = JSON.stringify([this.x, this.wq, this.wk, this.wv, this.words]);
    this.readAttributes();
    if (!this._built) return;
    if (JSON.stringify([this.x, this.wq, this.wk, this.wv, this.words]) !== before) {
      this.m = null;
      this.buildRowPicker();
      this.invalidate({ now: true });
    } else if (name === 'step' || name === 'row') this.show();
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Attention by hand: <q class="sentence"></q></p>
      <div class="steps" role="tablist" aria-label="Steps"></div>
      <div role="tabpanel" class="panel" tabindex="0">
        <h3 class="step-title"></h3>
        <p class="hint step-say"></p>
        <div class="stage"></div>
      </div>
      <div class="nav"><button type="button" class="prev">← Back</button><button type="button" class="next">Next →</button>
        <span class="hint counter" aria-live="polite"></span></div>
      <div class="row rowpick" role="radiogroup" aria-label="Row to check by hand"></div>
      <div class="hand" aria-live="polite"></div>`;
    const tabs = this.root.querySelector('.steps');
    tabs.innerHTML = STEPS.map((s, i) => `<button type="button" role="tab" id="tab-${s.id}" data-step="${i}"
      aria-controls="panel">${i + 1}. ${s.label}</button>`).join('');
    this.root.querySelector('.panel').id = 'panel';
    tabs.addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (b) this.go(Number(b.dataset.step));
    });
    tabs.addEventListener('keydown', (e) => {
      const d = { ArrowRight: 1, ArrowLeft: -1, Home: -99, End: 99 }[e.key];
      if (d === undefined) return;
      e.preventDefault();
      this.go(this.step + d, true);
    });
    this.root.querySelector('.prev').addEventListener('click', () => this.go(this.step - 1));
    this.root.querySelector('.next').addEventListener('click', () => this.go(this.step + 1));
    this.root.querySelector('.rowpick').addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (b) this.pickRow(Number(b.dataset.row));
    });
    this.root.querySelector('.rowpick').addEventListener('keydown', (e) => {
      const d = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (d === undefined) return;
      e.preventDefault();
      this.pickRow((this.row + d + this.T) % this.T, true);
    });
    this.buildRowPicker();
  }

  buildRowPicker() {
    this.root.querySelector('.sentence').textContent = this.words.join(' ');
    this.root.querySelector('.rowpick').innerHTML = `<span class="hint">Check the row of:</span>${this.words.map((w, i) =>
      `<button type="button" role="radio" data-row="${i}" aria-checked="false" tabindex="-1">${esc(w)}</button>`).join('')}`;
  }

  go(step, focus = false) {
    this.step = Math.max(0, Math.min(STEPS.length - 1, step));
    this.show();
    if (focus) this.root.querySelector(`[data-step="${this.step}"]`).focus();
    this.emit('lookback-change', { step: STEPS[this.step].id, row: this.row });
  }

  pickRow(row, focus = false) {
    this.row = row;
    this.show();
    if (focus) this.root.querySelector(`[data-row="${row}"]`).focus();
  }

  async compute() {
    const { T, d, dv } = this;
    const dIn = this.x[0].length;
    const X = Float32Array.from(this.x.flat());
    const [Q, K, V] = await Promise.all(['wq', 'wk', 'wv'].map((w) =>
      this.ask('gemm', [X, Float32Array.from(this[w].flat()), { M: T, N: this[w][0].length, K: dIn }], `gemm-${w}`)));
    const S = await this.ask('scores', [Q, K, { T, S: T, d, scale: true }]);
    const { weights: A } = await this.ask('softmax', [S, { rows: T, cols: T }]);
    const O = await this.ask('blend', [A, V, { T, S: T, d: dv }]);
    this.m = { Q: rows(Q, d), K: rows(K, d), V: rows(V, dv), S: rows(S, T), A: rows(A, T), O: rows(O, dv) };
    this.show();
  }

  matrixTable(name, m, { colNames, rowSel = -1, colSel = -1, digits = 2, caption } = {}) {
    const cols = colNames || m[0].map((_, j) => `${j + 1}`);
    return `<div class="scroll"><table class="num" data-matrix="${name}">
      <caption>${esc(caption || name)}</caption>
      <thead><tr><th scope="col"><span class="sr-only">word</span></th>${cols.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr></thead>
      <tbody>${m.map((r, i) => `<tr class="${i === rowSel ? 'sel' : ''}" data-row="${esc(this.words[i])}"><th scope="row">${esc(this.words[i])}</th>${
        r.map((v, j) => `<td class="${j === colSel ? 'sel' : ''}">${fmt(v, digits)}</td>`).join('')}</tr>`).join('')}</tbody>
    </table></div>`;
  }

  show() {
    if (!this._built) return;
    const s = STEPS[this.step];
    this.root.querySelectorAll('[role=tab]').forEach((b, i) => {
      b.setAttribute('aria-selected', String(i === this.step));
      b.tabIndex = i === this.step ? 0 : -1;
    });
    this.root.querySelector('.panel').setAttribute('aria-labelledby', `tab-${s.id}`);
    this.root.querySelectorAll('[role=radio]').forEach((b, i) => {
      b.setAttribute('aria-checked', String(i === this.row));
      b.tabIndex = i === this.row ? 0 : -1;
    });
    this.root.querySelector('.step-title').textContent = s.title;
    this.root.querySelector('.step-say').textContent = s.say.replace('√d', `√${this.d}`);
    this.root.querySelector('.counter').textContent = `step ${this.step + 1} of ${STEPS.length}`;
    this.root.querySelector('.prev').disabled = this.step === 0;
    this.root.querySelector('.next').disabled = this.step === STEPS.length - 1;
    this.dataset.step = s.id;
    const stage = this.root.querySelector('.stage');
    const m = this.m;
    if (!m) {
      stage.innerHTML = '<p class="hint">computing…</p>';
      return;
    }
    const r = this.row;
    const W = (n) => ({ q: this.wq, k: this.wk, v: this.wv })[n];
    const xTable = this.matrixTable('X', this.x, { rowSel: r, digits: 0, caption: 'X (one row per word)' });
    const wTable = (n) => `<div class="scroll"><table class="num"><caption>W_${n.toUpperCase()}</caption><tbody>${
      W(n).map((row) => `<tr>${row.map((v) => `<td>${fmt(v, 0)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
    const words = this.words;
    let html;
    if (s.id === 'q' || s.id === 'k' || s.id === 'v') {
      const M = { q: m.Q, k: m.K, v: m.V }[s.id];
      html = `${xTable}<span class="op" aria-hidden="true">×</span>${wTable(s.id)}<span class="op" aria-hidden="true">=</span>${
        this.matrixTable(s.id.toUpperCase(), M, { rowSel: r, caption: s.id.toUpperCase() })}`;
    } else if (s.id === 's') {
      html = `${this.matrixTable('Q', m.Q, { rowSel: r })}${this.matrixTable('K', m.K)}${
        this.matrixTable('S', m.S, { rowSel: r, colNames: words, caption: `S = Q Kᵀ / √${this.d} (row: who looks, column: at whom)` })}`;
    } else if (s.id === 'a') {
      html = `${this.matrixTable('S', m.S, { rowSel: r, colNames: words, caption: 'S' })}<span class="op" aria-hidden="true">→</span>${
        this.matrixTable('A', m.A, { rowSel: r, colNames: words, caption: 'A = softmax of each row of S' })}`;
    } else {
      html = `${this.matrixTable('A', m.A, { rowSel: r, colNames: words, caption: 'A' })}<span class="op" aria-hidden="true">×</span>${
        this.matrixTable('V', m.V)}<span class="op" aria-hidden="true">=</span>${this.matrixTable('O', m.O, { rowSel: r, caption: 'O = A V' })}`;
    }
    stage.innerHTML = html;
    // folded on a phone, the widget ends under the step's first matrix, whole with its caption
    stage.querySelector('table').setAttribute('data-fold-end', '');
    this.root.querySelector('.hand').innerHTML = this.handCheck().map((l) => `<p>${esc(l)}</p>`).join('');
  }

  // The chosen row of the current step written out term by term (numbers from the core's matrices).
  handCheck() {
    const m = this.m, r = this.row, w = this.words[r], s = STEPS[this.step];
    const vec = (a, dg = 2) => `(${a.map((v) => fmt(v, dg)).join(', ')})`;
    if (s.id === 'q' || s.id === 'k' || s.id === 'v') {
      const M = { q: m.Q, k: m.K, v: m.V }[s.id], Wm = { q: this.wq, k: this.wk, v: this.wv }[s.id];
      const terms = this.x[r].map((xi, i) => (xi ? `${fmt(xi, 0)}×${vec(Wm[i], 0)}` : null)).filter(Boolean);
      return [`${s.id}(${w}) = x(${w}) W_${s.id.toUpperCase()} = ${terms.join(' + ') || '0'} = ${vec(M[r])}`];
    }
    if (s.id === 's') {
      return [`q(${w}) = ${vec(m.Q[r])}`, ...this.words.map((u, j) =>
        `${w}→${u}: ${vec(m.Q[r])}·${vec(m.K[j])} / √${this.d} = ${fmt(m.S[r][j])}`)];
    }
    if (s.id === 'a') {
      return [`scores of ${w}: ${m.S[r].map((v) => fmt(v)).join(', ')}`,
        `e^score, each divided by their sum, gives: ${m.A[r].map((v, j) => `${this.words[j]} ${fmt(v)} (${fmt(100 * v, 0)}%)`).join(', ')}`,
        `the weights add up to ${fmt(m.A[r].reduce((a, v) => a + v, 0), 3)}`];
    }
    return [`output(${w}) = ${m.A[r].map((a, j) => `${fmt(a)}×${vec(m.V[j], 0)}`).join(' + ')}`, `= ${vec(m.O[r])}`];
  }

  exportData() {
    const m = this.m || {};
    const json = { words: this.words, x: this.x, wq: this.wq, wk: this.wk, wv: this.wv, scale: `1/sqrt(${this.d})`,
      step: STEPS[this.step].id, Q: m.Q, K: m.K, V: m.V, scores: m.S, weights: m.A, output: m.O };
    const csv = [['matrix', 'word', 'column', 'value']];
    for (const [name, M] of Object.entries({ Q: m.Q, K: m.K, V: m.V, scores: m.S, weights: m.A, output: m.O })) {
      (M || []).forEach((row, i) => row.forEach((v, j) => csv.push([name, this.words[i], name === 'scores' || name === 'weights' ? this.words[j] : j + 1, v])));
    }
    return { json, csv };
  }

  exportCanvas() {
    const m = this.m, s = STEPS[this.step];
    const names = { q: ['Q', m?.Q], k: ['K', m?.K], v: ['V', m?.V], s: ['S', m?.S], a: ['A', m?.A], o: ['O', m?.O] };
    const [name, M] = names[s.id];
    const wide = s.id === 's' || s.id === 'a';
    return drawReport(this, {
      title: `Attention by hand: "${this.words.join(' ')}"`,
      blocks: [
        { text: `Step ${this.step + 1} of ${STEPS.length}: ${s.title}`, bold: true },
        { table: { caption: name, header: ['', ...(wide ? this.words : (M?.[0] || []).map((_, j) => `${j + 1}`))],
          rows: (M || []).map((row, i) => [this.words[i], ...row.map((v) => fmt(v))]),
          fill: (i) => (i === this.row ? 'rgba(47, 95, 208, 0.16)' : null) } },
        ...this.handCheck().map((l) => ({ text: l, size: 12 })),
      ],
    });
  }
}

// The inputs of a four-word computation from an element's attributes (words, x, wq, wk, wv as JSON), each
// falling back to the worked example's own when missing, malformed or not fitting together.
export function workedInputs(el) {
  const matrix = (m) => Array.isArray(m) && m.length > 0 && m.length <= 16 && m.every((r) => Array.isArray(r)
    && r.length === m[0].length && r.length <= 16 && r.every(Number.isFinite));
  let x = jsonAttr(el, 'x', DEFAULTS.x, matrix);
  let [wq, wk, wv] = ['wq', 'wk', 'wv'].map((n) => jsonAttr(el, n, DEFAULTS[n], matrix));
  if (![wq, wk, wv].every((m) => m.length === x[0].length) || wq[0].length !== wk[0].length) {
    console.warn(`<${el.localName}>: x, wq, wk and wv do not fit together; using the defaults`);
    ({ x, wq, wk, wv } = DEFAULTS);
  }
  const words = jsonAttr(el, 'words', x.length === 4 ? DEFAULTS.words : x.map((_, i) => `w${i + 1}`),
    (l) => Array.isArray(l) && l.length === x.length);
  return { x, wq, wk, wv, words: words.map(String) };
}

// A flat row-major Float32Array as an array of rows of `cols` numbers.
export function rows(flat, cols) {
  const out = [];
  for (let i = 0; i < flat.length; i += cols) out.push(Array.from(flat.subarray(i, i + cols)));
  return out;
}

function clampInt(raw, lo, hi, fallback) {
  const n = Number.parseInt(raw, 10);
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : fallback;
}

define('lookback-worked-example', WorkedExample);
export { WorkedExample };
