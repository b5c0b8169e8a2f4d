// <lookback-explorer>: where the trained model looks. Example texts or the reader's own (recomputed as they
// type; the worker's key/value cache keeps the unchanged start, stale requests are dropped), a layer and a head
// (or the layer's heads averaged), a query token picked by mouse, touch or arrow keys; a heat strip over the
// earlier tokens (the future hatched, the start mark ◆ labelled), the head's habits from the model card, and a
// table of the weights. Heads are named layer.head counting from 1. Not the model: the `model` compute op (ModelWidget).
import { chip, chipText, define, esc, fmt } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { EXAMPLES } from './examples.js';
import { attentionRow, habit, headName, shown } from './model-view.js';
import { inkOn, strip, weightColour, weightLab } from '../figures/index.js';

// the weights' colour bar under the strip: the one scale of every attention figure
const LEGEND = `linear-gradient(to right, ${Array.from({ length: 11 }, (_, i) => weightColour(i / 10)).join(', ')})`;

const CSS = `
.row { margin: .35rem 0; }
textarea { width: 100%; min-height: 3.2rem; font: inherit; background: var(--lb-page); color: inherit;
  border: 1px solid var(--lb-rule); border-radius: 6px; padding: .3rem .45rem; }
select { background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 6px; min-height: 34px; }
.strip { line-height: 2.6; padding: .5rem .4rem; background: var(--lb-page); border-radius: 8px; white-space: pre-wrap;
  touch-action: manipulation; user-select: none; }
.strip:focus-visible { outline: 3px solid var(--lb-focus); }
.tok { position: relative; padding: .25rem .2em; cursor: pointer;
  background: var(--shade, transparent); color: var(--ink, inherit); }
.tok.future { color: var(--lb-muted); background: repeating-linear-gradient(135deg, transparent 0 4px, var(--lb-rule) 4px 6px); }
.tok.query { outline: 2px solid var(--lb-accent-2); }
.tok.start::after { content: 'start mark'; position: absolute; left: 0; top: -1.1rem; font-size: .62rem; color: var(--lb-muted);
  white-space: nowrap; line-height: 1; }
.strip .tok.start { margin-left: .2rem; }
.caption { font-weight: 600; }
.legend { display: flex; align-items: center; gap: .4rem; font-size: .75rem; color: var(--lb-muted); margin-top: .3rem; }
.legend .bar { width: 10rem; height: .6rem; border-radius: 2px; border: 1px solid var(--lb-rule); }
details { margin-top: .4rem; }
td.t { font-family: var(--lb-mono); white-space: pre; }
.bar { display: inline-block; height: .6rem; background: var(--lb-accent); border-radius: 2px; vertical-align: middle; }
`;

const clampInt = (v, lo, hi, d) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : d;
};

/**
 * @attr text - the text whose attention is shown
 * @attr example - a built-in text instead: `pronoun`, `made-up`, `recall`
 * @attr layer - the layer, counting from 1
 * @attr head - the head, counting from 1, or `all` (the layer's average)
 * @attr token - the query token, by position (0 = the start mark ◆)
 * @attr query-text - the query token, by its text
 * @attr query-where - `start-mark`: the query whose largest weight is on ◆ (in the head shown, else in a head that has one)
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @fires lookback-change - a head or query was chosen (detail {layer, head, query, weights}, counting from 0)
 */
class Explorer extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['text', 'example', 'layer', 'head', 'token', 'query-text', 'query-where', 'model'];

  constructor() {
    super();
    this.text = EXAMPLES[0].text;
    this.layer = 0;
    this.head = 0;       // -1: the layer's heads averaged
    this.query = null;   // null: the last token
    this.result = null;
  }

  attributeChangedCallback(name, _old, v) {
    if (name === 'text' && v != null) this.text = v;
    if (name === 'example' && EXAMPLES.some((x) => x.id === v)) this.text = EXAMPLES.find((x) => x.id === v).text;
    if (name === 'query-text') this.queryText = v?.trim() || null;
    if (name === 'query-where') this.queryWhere = v === 'start-mark' ? v : null;
    if (name === 'text' || name === 'example') this.query = null;
    if (name === 'layer') this.layer = clampInt(v, 1, 64, 1) - 1;
    if (name === 'head') this.head = v === 'all' ? -1 : clampInt(v, 1, 64, 1) - 1;
    if (name === 'token') this.query = v == null ? null : clampInt(v, 0, 4096, 0);
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
      <p class="title">Where the model looks</p>
      <div class="row" role="radiogroup" aria-label="Example text">${EXAMPLES.map((e) => `<button type="button" role="radio"
        data-example="${e.id}" aria-checked="false">${esc(e.label)}</button>`).join('')}</div>
      <label class="hint" for="text">The text (type your own; it is recomputed as you type)</label>
      <textarea id="text" spellcheck="false"></textarea>
      <div class="row">
        <label>layer <select class="layer"></select></label>
        <label>head <select class="head"></select></label>
        <span class="hint">Heads are named layer.head, counting from 1.</span>
      </div>
      <p class="hint">Pick the token that looks back: click or touch it, or focus the strip and use the arrow keys.</p>
      <div class="strip" role="listbox" tabindex="0" aria-label="Tokens; the selected one looks back"></div>
      <div class="legend" aria-hidden="true">weight 0 <span class="bar" style="background: ${LEGEND}"></span> 1</div>
      <p class="caption" aria-live="polite"></p>
      <p class="hint habits"></p>
      <details><summary>Table of the weights</summary><div class="scroll"><table class="num weights"></table></div></details>`;
    this.area = this.root.querySelector('textarea');
    this.area.value = this.text;
    this.area.addEventListener('input', () => {
      this.markInput();
      this.text = this.area.value;
      this.query = null;
      this.syncExamples();
      this.invalidate();
    });
    this.root.querySelector('[role=radiogroup]').addEventListener('click', (e) => {
      const b = e.target.closest('[data-example]');
      if (!b) return;
      this.markInput();
      this.text = EXAMPLES.find((x) => x.id === b.dataset.example).text;
      this.area.value = this.text;
      this.query = null;
      this.syncExamples();
      this.invalidate({ now: true });
    });
    this.layerSel = this.root.querySelector('select.layer');
    this.headSel = this.root.querySelector('select.head');
    this.layerSel.addEventListener('change', () => { this.markInput(); this.layer = Number(this.layerSel.value); this.invalidate({ now: true }); });
    this.headSel.addEventListener('change', () => { this.markInput(); this.head = Number(this.headSel.value); this.invalidate({ now: true }); });
    this.strip = this.root.querySelector('.strip');
    this.strip.addEventListener('click', (e) => {
      const t = e.target.closest('[data-i]');
      if (!t) return;
      this.pick(Number(t.dataset.i));
    });
    this.strip.addEventListener('keydown', (e) => {
      if (!this.result) return;
      const T = this.result.tokens.length, q = this.queryIndex();
      const to = { ArrowLeft: q - 1, ArrowRight: q + 1, ArrowUp: q - 1, ArrowDown: q + 1, Home: 0, End: T - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      this.pick(Math.max(0, Math.min(T - 1, to)));
    });
    this.syncExamples();
  }

  pick(i) {
    this.markInput();
    this.queryText = null;
    this.queryWhere = null;
    this.query = i;
    this.invalidate({ now: true });
  }

  syncExamples() {
    for (const b of this.root.querySelectorAll('[data-example]')) {
      b.setAttribute('aria-checked', String(EXAMPLES.find((x) => x.id === b.dataset.example).text === this.text));
    }
  }

  syncControls() {
    if (this.area && this.area.value !== this.text) this.area.value = this.text;
    this.syncExamples();
    if (this.result) this.fillSelects();
  }

  fillSelects() {
    const { L, H } = this.result.shape;
    this.layer = Math.min(this.layer, L - 1);
    this.head = Math.min(this.head, H - 1);
    if (this.layerSel.options.length !== L) {
      this.layerSel.innerHTML = Array.from({ length: L }, (_, l) => `<option value="${l}">${l + 1}</option>`).join('');
    }
    if (this.headSel.options.length !== H + 1) {
      this.headSel.innerHTML = `${Array.from({ length: H }, (_, h) => `<option value="${h}">${h + 1}</option>`).join('')}
        <option value="-1">all, averaged</option>`;
    }
    this.layerSel.value = String(this.layer);
    this.headSel.value = String(this.head);
  }

  // the picked token; unpicked: the last token whose text is the query-text attribute, else the last token
  queryIndex() {
    const { tokens } = this.result;
    if (this.query !== null) return Math.min(this.query, tokens.length - 1);
    const named = this.queryText ? tokens.findLastIndex((t) => t.text.trim() === this.queryText) : -1;
    return named >= 0 ? named : tokens.length - 1;
  }

  async compute() {
    if (!this.result || this.result.text !== this.text || this.result.model !== this.modelKey) {
      const { text, modelKey: model } = this;
      const [describe, card, tokens, f] = await Promise.all([
        this.ask('modelInfo', [this.modelName], 'describe', { keep: true }),
        this.modelCard(),
        this.askModel('tokens', [text], 'tokens'),
        this.askModel('forward', [text, { attention: true, window: true }], 'forward'),
      ]);
      const ids = f.ids;
      // a text longer than the context is cut to its start mark and last tokens, as the model reads it
      const shownTokens = ids.length === tokens.length ? tokens : await this.askModel('tokens', [ids], 'tokens-window');
      this.result = { text, model, tokens: shownTokens, attention: f.attention, shape: f.shape };
      this.describe = describe;
      this.card = card;
    }
    this.fillSelects();
    if (this.queryWhere === 'start-mark') this.pickStartMark();
    this.render();
  }

  // query-where="start-mark": a query whose largest weight really is on ◆, with the most weight there: in the head
  // shown if it has one (queries 2 on, where ◆ is not one of only two keys), else in the head that has.
  pickStartMark() {
    const { attention, shape, tokens } = this.result;
    const best = (l, h) => {
      let at = null;
      for (let t = 2; t < tokens.length; t++) {
        const row = attentionRow(attention, shape, l, h, t);
        if (row.every((w, s) => s === 0 || w < row[0]) && (!at || row[0] > at.w)) at = { t, w: row[0] };
      }
      return at;
    };
    let pick = this.head >= 0 ? best(this.layer, this.head) : null;
    if (pick) pick = { ...pick, l: this.layer, h: this.head };
    else {
      for (let l = 0; l < shape.L; l++) for (let h = 0; h < shape.H; h++) {
        const at = best(l, h);
        if (at && (!pick || at.w > pick.w)) pick = { ...at, l, h };
      }
    }
    this.queryWhere = null;
    if (!pick) return;
    [this.layer, this.head, this.query, this.queryText] = [pick.l, pick.h, pick.t, null];
    this.layerSel.value = String(this.layer);
    this.headSel.value = String(this.head);
  }

  get modelName() {
    return this.getAttribute('model') || 'current';
  }

  render() {
    const { tokens, attention, shape } = this.result;
    const q = this.queryIndex();
    const row = attentionRow(attention, shape, this.layer, this.head, q);
    this.row = row;
    this.shown = { layer: this.layer, head: this.head, q };   // what the exports describe (the controls may move on)
    this.strip.innerHTML = tokens.map((t, i) => {
      const cls = `chip tok${i > q ? ' future' : ''}${i === q ? ' query' : ''}${i === 0 ? ' start' : ''}`;
      const w = i <= q ? row[i] : 0;
      const label = i > q ? `${t.text}, in the future: hidden` : `${t.text}, weight ${fmt(w, 2)}`;
      const shade = i <= q ? `--shade:${weightColour(w)};--ink:${inkOn(weightLab(w))}` : '';
      return `<span class="${cls}" data-i="${i}" id="t${i}" role="option" aria-selected="${i === q}" aria-label="${esc(label)}"
        data-w="${i <= q ? w.toFixed(4) : ''}" style="${shade}">${chipText(t.text)}</span>`;
    }).join('');
    this.strip.setAttribute('aria-activedescendant', `t${q}`);
    const name = this.head < 0 ? `layer ${this.layer + 1}, all heads averaged` : `head ${headName(this.layer, this.head)}`;
    let top = 0;
    for (let s = 1; s <= q; s++) if (row[s] > row[top]) top = s;
    // the largest weight, then the token before and ◆, each named once
    const word = (s) => (s === q ? 'itself' : s === 0 ? '◆ (the start mark)' : s === q - 1 ? `the token before it ("${tokens[s].text.trim() || tokens[s].text}")`
      : `"${tokens[s].text.trim() || tokens[s].text}"`);
    const keys = [top, ...[q - 1, 0].filter((s, i, a) => s >= 0 && s !== top && a.indexOf(s) === i)];
    const parts = keys.map((s) => `${fmt(row[s], 2)} ${s === top ? 'of its weight ' : ''}on ${s === 0 && s !== top ? '◆' : word(s)}`);
    this.root.querySelector('.caption').textContent = `${name}: "${tokens[q].text.trim() || tokens[q].text}" puts `
      + `${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]}.`;
    const habits = this.root.querySelector('.habits');
    if (this.head >= 0 && this.card?.heads) {
      const c = this.card.heads;
      const part = (key, label) => (habit(this.card, key, this.layer, this.head) === null ? ''
        : `${label} ${fmt(habit(this.card, key, this.layer, this.head), 2)} (even spread ${fmt(c[key].even, 2)})`);
      habits.textContent = `Measured over held-out texts (model card), head ${headName(this.layer, this.head)}: `
        + [part('previous_token', 'previous token'), part('start_mark', 'start mark'), part('four_or_more_back', '4 or more back (not ◆)'),
          part('induction', 'induction (random tokens repeated)')].filter(Boolean).join('; ') + '.';
    } else habits.textContent = this.card ? '' : 'This model has no card: no measured habits to show.';
    this.root.querySelector('table.weights').innerHTML = `<caption>${esc(name)}, query ${q} "${esc(shown(tokens[q].text))}"</caption>
      <thead><tr><th scope="col">position</th><th scope="col">token</th><th scope="col">weight</th><th scope="col"><span class="sr-only">bar</span></th></tr></thead>
      <tbody>${tokens.slice(0, q + 1).map((t, i) => `<tr data-i="${i}"><td>${i}</td><td class="t">${chip(t.text)}</td>
        <td class="w">${fmt(row[i], 3)}</td><td><span class="bar" style="width:${Math.round(row[i] * 80)}px"></span></td></tr>`).join('')}</tbody>`;
    this.emit('lookback-change', { layer: this.layer, head: this.head, query: q, weights: Array.from(row) });
  }

  /** the strip as a standalone SVG (lookback/figures' strip: what `lookback attend --query` draws) */
  figure() {
    const { tokens, attention, shape } = this.result;
    const { layer, head, q } = this.shown;
    return strip({ tokens: tokens.map((t) => t.text), attention, shape, layer, head, query: q });
  }

  exportData() {
    const { tokens } = this.result;
    const { layer, head, q } = this.shown;
    return {
      json: { text: this.result.text, layer: layer + 1, head: head < 0 ? 'all' : head + 1, query: q,
        tokens: tokens.map((t) => t.text), weights: Array.from(this.row) },
      csv: [['position', 'token', 'weight'], ...tokens.slice(0, q + 1).map((t, i) => [i, t.text, this.row[i]])],
    };
  }

  exportCanvas() {
    const { tokens } = this.result;
    const { q } = this.shown;
    return drawReport(this, {
      title: this.root.querySelector('.caption').textContent,
      blocks: [{ text: this.result.text },
        { table: { header: ['position', 'token', 'weight'], rows: tokens.slice(0, q + 1).map((t, i) => [i, shown(t.text), fmt(this.row[i], 3)]),
          fill: (r, c) => (c === 2 ? weightColour(this.row[r]) : null) } }],
    });
  }
}

define('lookback-explorer', Explorer);
export { Explorer };
