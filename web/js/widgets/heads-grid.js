// <lookback-heads-grid>: every head of the trained model at once, as small maps of its attention weights
// (queries down, keys across, the future blank) for the chosen text, each labelled with its habits measured
// over held-out texts (from the model card), or, for a model without a card (the reader's own), measured live on the
// text shown and on random tokens repeated twice (the model's headScores, one repeat per request, with a progress
// bar; the same numbers as `lookback heads TEXT --json`); sorted by layer or by a habit; a table alternative. Clicking a
// head (or Enter on it) emits `lookback-open-head` {layer, head} (counting from 0; shown from 1) for the page to
// open it in the explorer. Not the model: the `model` compute op (ModelWidget).
import { define, esc, fmt } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { EXAMPLES } from './examples.js';
import { habit, headName } from './model-view.js';
import { headThumb, headsGrid } from '../figures/index.js';

const HABITS = [['previous_token', 'previous token', 'prev'], ['start_mark', 'start mark', '◆'],
  ['induction', 'induction', 'ind']];

const CSS = `
select { background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 6px; min-height: 34px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .5rem; margin-top: .5rem; }
.cell { display: flex; flex-direction: column; align-items: stretch; gap: .15rem; padding: .3rem; font-size: .78rem;
  line-height: 1.3; text-align: left; }
.cell svg { width: 100%; height: auto; display: block; border-radius: 3px; }
.cell b { font-size: .9rem; }
.cell .s { color: var(--lb-muted); font-variant-numeric: tabular-nums; display: flex; flex-wrap: wrap; column-gap: .5rem; }
.cell .s span { white-space: nowrap; }
/* on a phone: four maps a row and no habit line under each (the table under the grid has the numbers); after the rules
   above, which it overrides */
@container (max-width: 520px) { .grid { grid-template-columns: repeat(4, minmax(0, 1fr)); } .cell .s { display: none; } }
details { margin-top: .5rem; }
.live[hidden] { display: none; }
.live progress { width: 12rem; vertical-align: middle; }
`;

// the live measure's repeats (the API's default for headScores, so the numbers equal `lookback heads --json`)
const REPEATS = 4;
const API_KEY = { previous_token: 'previousToken', start_mark: 'startMark', induction: 'induction' };

/**
 * @attr text - the text whose attention maps are drawn
 * @attr sort - `layer` (default), `previous_token`, `start_mark` or `induction`
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @fires lookback-change - the grid was drawn (detail {order}: the heads as shown, layer.head from 1)
 * @fires lookback-open-head - a head was clicked or Enter pressed on it (detail {layer, head, text, model}, counting from 0; model: this grid's `model`)
 */
class HeadsGrid extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['text', 'sort', 'model'];

  constructor() {
    super();
    this.text = EXAMPLES[0].text;
    this.sort = 'layer';
    this.result = null;
  }

  attributeChangedCallback(name, _old, v) {
    if (name === 'text' && v != null) this.text = v;
    if (name === 'model') this.result = null;
    if (name === 'sort') this.sort = ['layer', ...HABITS.map((h) => h[0])].includes(v) ? v : 'layer';
    if (this._built) {
      this.syncControls();
      this.invalidate({ now: true });
    }
  }

  modelChanged() {
    this.result = null;
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Every head at once</p>
      <div class="row">
        <label>text <select class="text">${EXAMPLES.map((e) => `<option value="${e.id}">${esc(e.label)}</option>`).join('')}
          <option value="own" hidden>the text given</option></select></label>
        <label>order <select class="sort"><option value="layer">by layer</option>${HABITS.map(([k, l]) => `<option value="${k}">by ${l}</option>`).join('')}</select></label>
      </div>
      <p class="hint">Each map: queries down, earlier tokens across; darker is more weight. Under it, the head's habits measured over
        held-out texts (model card; for a model without one, measured now on this text and on random tokens repeated twice):
        weight on the previous token, on the start mark ◆, and the induction score. Heads are named
        layer.head, counting from 1. Click a head, or focus it and press Enter, to open it in the explorer; arrow keys move between heads.</p>
      <p class="live" hidden><progress max="${REPEATS + 1}" value="0" aria-label="measuring the heads' habits"></progress>
        <span class="live-text" aria-live="polite"></span></p>
      <div class="grid" role="group" aria-label="Heads"></div>
      <details><summary>Table of the heads</summary><div class="scroll"><table class="num heads"></table></div></details>`;
    this.root.querySelector('select.text').addEventListener('change', (e) => {
      this.markInput();
      this.text = EXAMPLES.find((x) => x.id === e.target.value)?.text ?? this.text;
      this.invalidate({ now: true });
    });
    this.root.querySelector('select.sort').addEventListener('change', (e) => {
      this.markInput();
      this.sort = e.target.value;
      this.invalidate({ now: true });
    });
    const grid = this.root.querySelector('.grid');
    grid.addEventListener('click', (e) => {
      const b = e.target.closest('[data-head]');
      if (b) this.open(b);
    });
    grid.addEventListener('keydown', (e) => {
      const b = e.target.closest('[data-head]');
      if (!b) return;
      const cells = [...grid.querySelectorAll('[data-head]')];
      const cols = getComputedStyle(grid).gridTemplateColumns.split(' ').length;
      const i = cells.indexOf(b);
      const to = { ArrowLeft: i - 1, ArrowRight: i + 1, ArrowUp: i - cols, ArrowDown: i + cols, Home: 0, End: cells.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      this.focusCell(cells, Math.max(0, Math.min(cells.length - 1, to)));
    });
    this.syncControls();
  }

  focusCell(cells, i) {
    cells.forEach((c, j) => { c.tabIndex = j === i ? 0 : -1; });
    cells[i].focus();
  }

  open(cell) {
    const [layer, head] = cell.dataset.head.split('.').map((x) => Number(x) - 1);
    this.emit('lookback-open-head', { layer, head, text: this.result?.text ?? this.text, model: this.modelName });   // the text and model of the maps shown
  }

  syncControls() {
    const sel = this.root.querySelector('select.text');
    sel.value = EXAMPLES.find((x) => x.text === this.text)?.id ?? 'own';
    this.root.querySelector('select.sort').value = this.sort;
  }

  async compute() {
    if (!this.result || this.result.text !== this.text || this.result.model !== this.modelKey) {
      const { text, modelKey: model } = this;
      const [card, f] = await Promise.all([
        this.modelCard(),
        this.askModel('forward', [text, { attention: true, window: true }], 'forward'),
      ]);
      const tokens = (await this.askModel('tokens', [f.ids], 'tokens')).map((t) => t.text);
      this.result = { text, model, attention: f.attention, shape: f.shape, tokens, ids: Array.from(f.ids) };
      this.card = card?.heads ? card : null;
      this.measured = null;
      this.root.querySelector('.live').hidden = !!this.card;
    }
    this.syncControls();
    this.render();
    if (!this.card && !this.measured) {
      this.measured = await this.measure(this.result);
      this.render();
    }
  }

  // Without a card: the habits measured now, in the card's shape ({ heads: { key: { by_layer, even } } }), as
  // headScores([ids of the tokens shown]) gives them (for a text within the context, headScores([text])): the text's scores first, then the induction score one random repeat at a time
  // (seeds 1, 2, ...), averaged by count, the progress bar advancing with each.
  async measure(result) {
    const bar = this.root.querySelector('.live progress'), note = this.root.querySelector('.live-text');
    bar.parentElement.hidden = false;
    this.dataset.live = 'running';
    const step = (i) => { bar.value = i; note.textContent = `measuring the habits of every head: ${i} of ${REPEATS + 1} steps`; };
    step(0);
    const own = await this.askModel('headScores', [[result.ids], { repeats: 0 }], 'live-text');   // the tokens shown: a long text's end
    const heads = {};
    for (const k of ['previous_token', 'start_mark']) heads[k] = { by_layer: own[API_KEY[k]].byLayer, even: own[API_KEY[k]].even };
    const sum = own.induction.byLayer.map((row) => row.map(() => 0));
    let count = 0, even = 0;
    for (let r = 0; r < REPEATS; r++) {
      step(r + 1);
      const { induction: h } = await this.askModel('headScores', [[], { repeats: 1, seed: 1 + r }], `live-repeat-${r}`);
      h.byLayer.forEach((row, l) => row.forEach((x, j) => { sum[l][j] += x * h.count; }));
      even += h.even * h.count;
      count += h.count;
    }
    heads.induction = { by_layer: sum.map((row) => row.map((x) => (count ? x / count : 0))), even: count ? even / count : 0 };
    step(REPEATS + 1);
    note.textContent = `measured now on the text shown and on ${REPEATS} random sequences repeated twice`;
    this.dataset.live = 'done';
    return { heads };
  }

  // the habits shown: the card's, else the ones measured now (null while they are measured)
  get habits() {
    return this.card ?? this.measured;
  }

  // heads in display order: [{layer, head}]
  order() {
    const { L, H } = this.result.shape;
    const all = [];
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) all.push({ layer: l, head: h });
    if (this.sort !== 'layer') {
      const v = (x) => habit(this.habits, this.sort, x.layer, x.head) ?? -1;
      all.sort((a, b) => v(b) - v(a));
    }
    return all;
  }

  render() {
    const { shape } = this.result;
    const grid = this.root.querySelector('.grid');
    const heads = this.order();
    const score = (key, x) => habit(this.habits, key, x.layer, x.head);
    // the visible text is the accessible name: "5.1 prev 0.53 start 0.00 ind 0.00"; each habit's pair never wraps
    // each map without a title per cell: it sits hidden from screen readers in a button its text names, its cells are
    // a few pixels wide, and L × H maps of T × T titles made the page slow to lay out (the head opens in full beside)
    const { attention } = this.result;
    grid.innerHTML = heads.map((x, i) => `<button type="button" class="cell" tabindex="${i ? -1 : 0}"${i ? '' : ' data-fold-end'} data-head="${headName(x.layer, x.head)}">
      <span aria-hidden="true">${headThumb({ attention, shape, layer: x.layer, head: x.head, size: 150, titles: false })}</span><b>${headName(x.layer, x.head)}</b>
      <span class="s">${HABITS.map(([k, , s]) => (score(k, x) === null ? '' : `<span>${s} ${fmt(score(k, x), 2)}</span>`)).filter(Boolean).join('') || (this.card === null ? 'measuring…' : 'no card')}</span></button>`).join('');
    const table = this.root.querySelector('table.heads');
    const even = (k) => (this.habits?.heads?.[k] ? ` (even ${fmt(this.habits.heads[k].even, 2)})` : '');
    table.innerHTML = `<caption>Habits ${this.card ? 'measured over held-out texts (model card)' : 'measured now on the text shown and on random repeated tokens'}, ${this.sort === 'layer' ? 'by layer' : `highest ${this.sort.replace(/_/g, ' ')} first`}</caption>
      <thead><tr><th scope="col">head</th>${HABITS.map(([k, l]) => `<th scope="col">${l}${even(k)}</th>`).join('')}</tr></thead>
      <tbody>${heads.map((x) => `<tr data-head="${headName(x.layer, x.head)}"><td>${headName(x.layer, x.head)}</td>${HABITS.map(([k]) => `<td>${score(k, x) === null ? '—' : fmt(score(k, x), 3)}</td>`).join('')}</tr>`).join('')}</tbody>`;
    this.emit('lookback-change', { order: heads.map((x) => headName(x.layer, x.head)) });
  }

  /** the grid as one standalone SVG (lookback/figures' headsGrid: what `lookback heads` draws for the same text) */
  figure() {
    const { attention, shape } = this.result;
    return headsGrid({ tokens: this.result.tokens, attention, shape, order: this.order(),
      habits: (l, h) => Object.fromEntries(HABITS.map(([k]) => [k, habit(this.habits, k, l, h)])) });
  }

  exportData() {
    const heads = this.order();
    const row = (x) => [headName(x.layer, x.head), ...HABITS.map(([k]) => habit(this.habits, k, x.layer, x.head))];
    return {
      json: { text: this.result.text, sort: this.sort, heads: heads.map((x) => Object.fromEntries([['head', headName(x.layer, x.head)],
        ...HABITS.map(([k]) => [k, habit(this.habits, k, x.layer, x.head)])])) },
      csv: [['head', ...HABITS.map((h) => h[0])], ...heads.map(row)],
    };
  }

  exportCanvas() {
    const heads = this.order();
    return drawReport(this, {
      title: `Every head: habits ${this.card ? 'measured over held-out texts (model card)' : 'measured now'}`,
      blocks: [{ text: this.result.text }, { table: { header: ['head', ...HABITS.map((h) => h[1])],
        rows: heads.map((x) => [headName(x.layer, x.head), ...HABITS.map(([k]) => fmt(habit(this.habits, k, x.layer, x.head) ?? NaN, 3))]) } }],
    });
  }
}

define('lookback-heads-grid', HeadsGrid);
export { HeadsGrid };
