// <lookback-mask-builder>: a T x T mask the reader toggles (row = the token that looks, column = the token it may
// see); with equal scores the core's softmax shows how each row renormalises, and reports fully masked rows.
// The leak test runs a small attention layer with fixed seeded random W_Q, W_K, W_V: edit a later token and see
// which outputs change, with the reader's mask and with none. Not a trained model.
import { LookbackWidget, define, esc, fmt, seeded } from './widget-kit.js';
import { drawReport } from './export.js';

const WORDS = ['the', 'cat', 'sat', 'down', 'on', 'the', 'warm', 'mat'];
const D_MODEL = 8, D_HEAD = 4;
const CHANGED = 1e-6;   // an output counts as changed when some entry moves by more than this

const CSS = `
.top { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; align-items: flex-start; margin-top: .5rem; }
.gridbox { flex: none; max-width: 100%; }
.gridbox .hint { max-width: 23rem; }
.side { flex: 1 1 13rem; }
table.grid { border-collapse: separate; border-spacing: 3px; }
table.grid th { font-weight: 500; font-size: .8rem; color: var(--lb-muted); padding: 0 .2rem; }
table.grid thead th { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; height: 3.2rem; }
table.grid td { padding: 0; }
table.grid button { width: 2.7rem; height: 2.4rem; min-width: 0; padding: 0; font: 500 .78rem var(--lb-mono);
  border-radius: 5px; }
table.grid button[aria-pressed="false"] {
  background: repeating-linear-gradient(45deg, var(--lb-page), var(--lb-page) 4px, var(--lb-rule) 4px, var(--lb-rule) 6px);
  color: var(--lb-muted); }
table.grid button.future[aria-pressed="true"] { background: var(--lb-accent-2); border-color: var(--lb-accent-2); color: var(--lb-on-accent); }
table.grid tr.empty th { color: var(--lb-accent-2); font-weight: 700; }
.verdict { font-weight: 600; margin: .4rem 0; }
.warn { color: var(--lb-accent-2); font-weight: 600; }
.tokens { display: flex; flex-wrap: wrap; gap: .3rem; margin: .4rem 0; }
.tokens input { width: 5.2rem; }
.tokens input.edited { border-color: var(--lb-accent-2); border-width: 2px; }
td.yes { color: var(--lb-accent-2); font-weight: 600; }
td.no { color: var(--lb-muted); }
h3.sub { margin: .8rem 0 .2rem; font-size: .95rem; }
select { background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 6px; min-height: 34px; }
`;

/**
 * @attr size - how many tokens, 2 to 8 (default 4)
 * @attr words - the tokens' labels, JSON `["...", ...]`
 * @attr mask - `causal` (default), `full`, `diagonal`, `none` or a JSON grid of 0/1
 * @attr seed - the random seed of the scores (default 7)
 * @fires lookback-change - the mask was edited (detail {mask, weights, emptyRows, ...})
 */
class MaskBuilder extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['size', 'words', 'mask', 'seed'];

  constructor() {
    super();
    this.focus = [0, 0];
    this.readAttributes();
  }

  readAttributes() {
    const T = Math.max(2, Math.min(8, Number.parseInt(this.getAttribute('size') ?? '4', 10) || 4));
    let words = WORDS;
    try {
      const w = JSON.parse(this.getAttribute('words') || 'null');
      if (Array.isArray(w) && w.length >= T) words = w.map(String);
    } catch { /* the default words */ }
    this.T = T;
    this.base = words.slice(0, T);
    this.tokens = this.base.slice();
    this.seed = Number.parseInt(this.getAttribute('seed') ?? '7', 10) || 7;
    this.layer = null;
    this.projected = null;
    this.mask = this.presetMask(this.getAttribute('mask') || 'causal');
  }

  presetMask(name) {
    const T = this.T;
    if (name.trim().startsWith('[')) {
      try {
        const m = JSON.parse(name);
        if (m.length === T && m.every((r) => r.length === T)) return m.map((r) => r.map((x) => (x ? 1 : 0)));
      } catch { /* fall through */ }
    }
    return Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) =>
      (name === 'full' ? 1 : name === 'none' ? 0 : name === 'diagonal' ? Number(i === j) : Number(j <= i))));
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.buildGrid();
      this.buildTokens();
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Build a mask</p>
      <div class="row">
        <label>tokens <select class="size">${[2, 3, 4, 5, 6, 7, 8].map((n) => `<option>${n}</option>`).join('')}</select></label>
        <button type="button" data-preset="causal">causal</button>
        <button type="button" data-preset="full">all visible</button>
        <button type="button" data-preset="diagonal">only itself</button>
        <button type="button" data-preset="none">all hidden</button>
      </div>
      <div class="top">
        <div class="gridbox">
          <div class="scroll"><table class="grid" role="grid" aria-label="Mask: rows look, columns are looked at. Pressed cells are visible."></table></div>
          <p class="hint">Each cell shows the weight that row gives that column when all scores are equal.
            Hatched cells are hidden (score set to −∞ before softmax). Arrow keys move, Space toggles.</p>
        </div>
        <div class="side">
          <p class="verdict" aria-live="polite"></p>
          <p class="warn" role="status"></p>
        </div>
      </div>
      <div class="leakbox">
          <h3 class="sub">Leak test</h3>
          <p class="hint">A small attention layer with fixed random weights. Change a later word and compare each
            position's output with the original sentence, using your mask and using no mask at all.</p>
          <div class="tokens" role="group" aria-label="Tokens (editable)"></div>
          <div class="row"><button type="button" class="change-last">change a later word</button>
            <button type="button" class="reset-words">original words</button></div>
          <div class="scroll"><table class="num leak">
            <caption>Did this position's output change?</caption>
            <thead><tr><th scope="col">position</th><th scope="col">with your mask</th><th scope="col">with no mask</th></tr></thead>
            <tbody></tbody></table></div>
          <p class="leak-say" aria-live="polite"></p>
      </div>`;
    this.grid = this.root.querySelector('table.grid');
    this.root.querySelector('.size').addEventListener('change', (e) => this.setAttribute('size', e.target.value));
    this.root.querySelector('.row').addEventListener('click', (e) => {
      const p = e.target.closest('button')?.dataset.preset;
      if (!p) return;
      this.markInput();
      this.mask = this.presetMask(p);
      this.syncGrid();
      this.invalidate({ now: true });
    });
    this.grid.addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      this.toggle(Number(b.dataset.i), Number(b.dataset.j));
    });
    this.grid.addEventListener('keydown', (e) => this.onGridKey(e));
    this.root.querySelector('.tokens').addEventListener('input', (e) => {
      const i = Number(e.target.dataset.i);
      this.markInput();
      this.tokens[i] = e.target.value;
      this.syncTokens();
      this.invalidate();
    });
    this.root.querySelector('.change-last').addEventListener('click', () => {
      // the later word an earlier token can see, if the mask lets one (so the test can catch the leak), else the last
      const i = this.firstPeek(this.mask)?.[1] ?? this.T - 1;
      const options = ['rug', 'roof', 'bed', 'log', 'hat', 'box'];
      this.tokens[i] = options[(options.indexOf(this.tokens[i]) + 1) % options.length];
      this.markInput();
      this.buildTokens();
      this.invalidate({ now: true });
    });
    this.root.querySelector('.reset-words').addEventListener('click', () => {
      this.tokens = this.base.slice();
      this.markInput();
      this.buildTokens();
      this.invalidate({ now: true });
    });
    this.buildGrid();
    this.buildTokens();
  }

  buildGrid() {
    const T = this.T;
    this.root.querySelector('.size').value = String(T);
    this.focus = [Math.min(this.focus[0], T - 1), Math.min(this.focus[1], T - 1)];
    this.grid.innerHTML = `<thead><tr><td></td>${this.base.map((w, j) => `<th scope="col" data-word="${j}"></th>`).join('')}</tr></thead>
      <tbody>${this.base.map((w, i) => `<tr data-row="${i}"><th scope="row" data-word="${i}"></th>${this.base.map((_, j) =>
        `<td role="gridcell"><button type="button" data-i="${i}" data-j="${j}" tabindex="-1"></button></td>`).join('')}</tr>`).join('')}</tbody>`;
    this.syncLabels();
    this.syncGrid();
  }

  // The mask as pressed; a row's weights only while it is the row they were computed with.
  syncGrid(weights) {
    const T = this.T;
    const computed = this.mask.map((r, i) => String(r) === String(this.used?.mask[i]));
    for (const b of this.grid.querySelectorAll('button')) {
      const i = Number(b.dataset.i), j = Number(b.dataset.j);
      const on = this.mask[i][j] === 1;
      b.setAttribute('aria-pressed', String(on));
      b.classList.toggle('future', j > i);
      b.tabIndex = i === this.focus[0] && j === this.focus[1] ? 0 : -1;
      const w = weights && computed[i] ? weights[i * T + j] : null;
      b.textContent = on ? (w === null ? '·' : fmt(w)) : '−∞';
      b.setAttribute('aria-label', `${this.tokens[i]} (${i + 1}) sees ${this.tokens[j]} (${j + 1}): ${on ? `visible${w === null ? '' : `, weight ${fmt(w)}`}` : 'hidden'}${j > i ? ', future' : ''}`);
    }
  }

  buildTokens() {
    const box = this.root.querySelector('.tokens');
    box.innerHTML = this.tokens.map((t, i) => `<input type="text" data-i="${i}" value="${esc(t)}" aria-label="token ${i + 1}" spellcheck="false" autocomplete="off">`).join('');
    this.syncTokens();
  }

  // The words as they are now (the leak test edits them): the inputs, and the grid's row and column labels.
  syncTokens() {
    this.root.querySelectorAll('.tokens input').forEach((inp, i) => inp.classList.toggle('edited', this.tokens[i] !== this.base[i]));
    this.syncLabels();
    this.syncGrid(this.weights);
  }

  syncLabels() {
    this.grid.querySelectorAll('th[data-word]').forEach((th) => {
      const i = Number(th.dataset.word);
      th.textContent = `${i + 1} ${this.tokens[i]}`;
    });
  }

  toggle(i, j) {
    this.markInput();
    this.mask[i][j] = this.mask[i][j] ? 0 : 1;
    this.focus = [i, j];
    this.syncGrid(this.weights);
    this.invalidate({ now: true });
  }

  onGridKey(e) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    let [i, j] = this.focus;
    if (moves[e.key]) {
      i = Math.max(0, Math.min(this.T - 1, i + moves[e.key][0]));
      j = Math.max(0, Math.min(this.T - 1, j + moves[e.key][1]));
    } else if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = this.T - 1;
    else return;
    e.preventDefault();
    this.focus = [i, j];
    this.syncGrid(this.weights);
    this.grid.querySelector(`button[data-i="${i}"][data-j="${j}"]`).focus();
  }

  // The fixed random layer: embeddings of words (seeded by the word's text) and W_Q, W_K, W_V (seeded by `seed`).
  ensureLayer() {
    if (this.layer) return this.layer;
    const { normal } = seeded(this.seed);
    const w = () => Float32Array.from({ length: D_MODEL * D_HEAD }, () => normal() / Math.sqrt(D_MODEL));
    this.layer = { wq: w(), wk: w(), wv: w() };
    return this.layer;
  }

  embed(words) {
    const x = new Float32Array(words.length * D_MODEL);
    words.forEach((word, i) => {
      const { normal } = seeded(hash(word.trim().toLowerCase()));
      for (let c = 0; c < D_MODEL; c++) x[i * D_MODEL + c] = normal();
    });
    return x;
  }

  async compute() {
    const T = this.T;
    const used = { mask: this.mask.map((r) => r.slice()), base: this.base, tokens: this.tokens.slice() };
    const mask = Uint8Array.from(used.mask.flat());
    const equal = new Float32Array(T * T);
    const layer = this.ensureLayer();
    const soft = this.ask('softmax', [equal, { rows: T, cols: T, mask }], 'grid');
    soft.catch(() => {});  // awaited below; this only keeps an early failure from going unhandled
    const words = JSON.stringify([used.base, used.tokens, this.seed]);
    if (this.projected?.words !== words) {
      // original and edited sentences stacked: rows 0..T-1 and T..2T-1
      const x = new Float32Array(2 * T * D_MODEL);
      x.set(this.embed(used.base), 0);
      x.set(this.embed(used.tokens), T * D_MODEL);
      const [q, k, v] = await Promise.all(['wq', 'wk', 'wv'].map((n) =>
        this.ask('gemm', [x, layer[n], { M: 2 * T, N: D_HEAD, K: D_MODEL }], `proj-${n}`)));
      const half = (a, h) => a.slice(h * T * D_HEAD, (h + 1) * T * D_HEAD);
      this.projected = { words, base: [half(q, 0), half(k, 0), half(v, 0)], edit: [half(q, 1), half(k, 1), half(v, 1)] };
    }
    const { base, edit } = this.projected;
    const opts = (m) => ({ T, d: D_HEAD, mask: m, weights: false });
    const full = new Uint8Array(T * T).fill(1);
    const [g, bm, em, bn, en] = await Promise.all([
      soft,
      this.ask('attention', [...base, opts(mask)], 'base-mask'),
      this.ask('attention', [...edit, opts(mask)], 'edit-mask'),
      this.ask('attention', [...base, opts(full)], 'base-none'),
      this.ask('attention', [...edit, opts(full)], 'edit-none'),
    ]);
    const diff = (a, b) => Array.from({ length: T }, (_, t) => {
      let m = 0;
      for (let c = 0; c < D_HEAD; c++) m = Math.max(m, Math.abs(a.output[t * D_HEAD + c] - b.output[t * D_HEAD + c]));
      return m;
    });
    this.used = used;
    this.weights = Array.from(g.weights);
    this.emptyRows = g.emptyRows;
    this.leak = { withMask: diff(bm, em), noMask: diff(bn, en), outputs: { base: Array.from(bm.output), edited: Array.from(em.output) } };
    this.render();
  }

  isCausal(mask) {
    for (let i = 0; i < mask.length; i++) for (let j = i + 1; j < mask.length; j++) if (mask[i][j]) return false;
    return true;
  }

  firstPeek(mask) {
    for (let i = 0; i < mask.length; i++) for (let j = i + 1; j < mask.length; j++) if (mask[i][j]) return [i, j];
    return null;
  }

  // What was computed: the mask, words and edits the weights and the leak test are of.
  render() {
    const { mask, base, tokens } = this.used;
    this.syncGrid(this.weights);
    const emptyRows = mask.map((r, i) => (r.some(Boolean) ? -1 : i)).filter((i) => i >= 0);
    this.grid.querySelectorAll('tbody tr').forEach((tr, i) => tr.classList.toggle('empty', emptyRows.includes(i)));
    const causal = this.isCausal(mask);
    const peek = this.firstPeek(mask);
    const standard = mask.every((r, i) => r.every((x, j) => x === Number(j <= i)));
    const allHidden = mask.every((r) => r.every((x) => !x));
    const selfHidden = mask.filter((r, i) => !r[i]).length;
    const word = (i) => `"${tokens[i]}" (${i + 1})`;
    this.root.querySelector('.verdict').textContent = standard
      ? 'This is the causal mask: every token sees itself and everything before it, nothing after.'
      : allHidden ? 'This mask hides every key, each token\'s own position included: no token sees anything, not even itself. '
          + 'Nothing leaks from the future, but every row is fully masked.'
        : causal ? `No token can see a later one, so nothing leaks from the future; but this is not the causal mask: it also hides `
          + `${selfHidden ? `${selfHidden === 1 ? 'one token\'s' : `${selfHidden} tokens'`} view of ${selfHidden === 1 ? 'itself' : 'themselves'}` : 'some earlier tokens'}`
          + `${selfHidden && mask.some((r, i) => r.some((x, j) => j < i && !x)) ? ' and some earlier tokens' : ''}.`
          : `This mask is not causal: ${word(peek[0])} can see ${word(peek[1])}, a later token.`;
    this.dataset.causal = String(causal);
    const warn = this.root.querySelector('.warn');
    warn.textContent = this.emptyRows > 0
      ? `Warning: ${this.emptyRows} fully masked row${this.emptyRows > 1 ? 's' : ''} (${emptyRows.map((i) => `"${tokens[i]}"`).join(', ')}): every score is −∞, so softmax has nothing to share out. Here that row's weights are set to zero; a naive softmax would compute 0/0 and return NaN.`
      : '';
    this.dataset.emptyRows = String(this.emptyRows);
    const editedAt = tokens.map((t, i) => (t !== base[i] ? i : -1)).filter((i) => i >= 0);
    const first = editedAt.length ? editedAt[0] : -1;
    const yes = (x) => x > CHANGED;
    this.root.querySelector('table.leak tbody').innerHTML = base.map((w, t) => {
      const a = yes(this.leak.withMask[t]), b = yes(this.leak.noMask[t]);
      return `<tr data-pos="${t}" class="${first >= 0 && t < first ? 'earlier' : ''}"><th scope="row">${t + 1} ${esc(tokens[t])}</th>
        <td class="${a ? 'yes' : 'no'}" data-changed="${a}">${a ? 'changed' : 'same'}</td><td class="${b ? 'yes' : 'no'}" data-changed="${b}">${b ? 'changed' : 'same'}</td></tr>`;
    }).join('');
    let say = 'Edit a word (the last one, say) to run the test.';
    if (first >= 0) {
      const leakedMask = this.leak.withMask.some((x, t) => t < first && yes(x));
      const leakedNone = this.leak.noMask.some((x, t) => t < first && yes(x));
      say = `You changed token ${first + 1}. With your mask, ${leakedMask ? 'some earlier outputs changed: the future leaks in' : 'no earlier output changed'}; `
        + `with no mask, ${leakedNone ? 'earlier outputs changed too' : 'no earlier output changed'}.`;
      this.dataset.leak = String(leakedMask);
    } else delete this.dataset.leak;
    this.root.querySelector('.leak-say').textContent = say;
    this.emit('lookback-change', { mask: mask.map((r) => r.slice()), weights: this.weights, emptyRows: this.emptyRows,
      causal, tokens: tokens.slice(), changedWithMask: this.leak.withMask.map(yes), changedWithoutMask: this.leak.noMask.map(yes) });
  }

  // The exports run only once the widget is ready (the kit's exported()), so the mask, weights and leak test of
  // the last computation are there.
  exportData() {
    const { mask, base, tokens } = this.used;
    const T = mask.length, w = this.weights;
    const json = { tokens: base, edited: tokens, mask, causal: this.isCausal(mask),
      weights: mask.map((_, i) => w.slice(i * T, (i + 1) * T)), emptyRows: this.emptyRows,
      leak: { maxChangeWithMask: this.leak.withMask, maxChangeWithoutMask: this.leak.noMask },
      layer: { dModel: D_MODEL, dHead: D_HEAD, seed: this.seed } };
    const csv = [['row', 'word', ...base.map((x, j) => `w_${j + 1}_${x}`), 'change_with_mask', 'change_without_mask'],
      ...base.map((x, i) => [i + 1, x, ...mask[i].map((m, j) => (m ? w[i * T + j] : '-inf')),
        this.leak.withMask[i], this.leak.noMask[i]])];
    return { json, csv };
  }

  exportCanvas() {
    const { mask, base, tokens } = this.used;
    const T = mask.length, w = this.weights;
    return drawReport(this, {
      title: 'Mask and weights (equal scores)',
      blocks: [
        { table: { header: ['', ...base.map((x, j) => `${j + 1} ${x}`)],
          rows: base.map((x, i) => [`${i + 1} ${x}`, ...mask[i].map((m, j) => (m ? fmt(w[i * T + j]) : '-inf'))]),
          fill: (i, c) => (c === 0 ? null : mask[i][c - 1] ? (c - 1 > i ? 'rgba(192, 57, 43, 0.35)' : 'rgba(47, 95, 208, 0.18)') : 'rgba(128, 128, 128, 0.25)') } },
        { text: this.root.querySelector('.verdict').textContent },
        ...(this.emptyRows ? [{ text: this.root.querySelector('.warn').textContent }] : []),
        { table: { caption: `Leak test: ${tokens.join(' ')}`, header: ['position', 'with your mask', 'with no mask'],
          rows: base.map((_, t) => [`${t + 1} ${tokens[t]}`, this.leak.withMask[t] > CHANGED ? 'changed' : 'same',
            this.leak.noMask[t] > CHANGED ? 'changed' : 'same']) } },
      ],
    });
  }
}

// FNV-1a of a string, as a seed.
function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

define('lookback-mask-builder', MaskBuilder);
export { MaskBuilder };
