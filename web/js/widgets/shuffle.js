// <lookback-shuffle>: the shuffle test. The earlier words of a text are shuffled (again at a press, or moved by
// drag or keyboard; a word's pieces move together, each word read with the space before it so its pieces are the
// same wherever it stands) while the start mark and the last token stay put, and every token's output is compared
// before and after: one attention layer alone (the core's attention, each token's embedding as its query, key
// and value, no positions), and the whole model (named as the page names it) with its positions (rotary or learned)
// off and on. Every number comes from the core; the widget only compares them. Its model is the page's (attribute
// `model`, as every model widget's: the reader's own once they bring one). Not a claim checker: it reports whatever
// the core measures.
import { abortError, chip, define, esc, fmt, seeded } from './widget-kit.js';
import { drawReport } from './export.js';
import { ModelWidget } from './model-widget.js';

const TEXT = 'The dog bites the man.';
// A layer output counts as changed past this relative difference (float32 sums in another order differ by ~1e-7).
const LAYER_TOL = 1e-5;
// A next-token distribution counts as changed when more than this share of its probability moved to other tokens
// (the total variation distance: half the summed absolute differences).
const MODEL_TOL = 1e-3;

// The three computations compared, for the model named `model` (its label) whose positions are 'rope' or 'learned'.
const runsOf = (model, positions) => {
  const kind = positions === 'learned' ? 'learned positions' : 'rotary positions';
  return [
    { id: 'layer', label: 'One attention layer', note: 'each token\'s embedding as its query, key and value; no positions' },
    { id: 'off', label: `${model}, positions off`, note: `all layers, ${kind} switched off` },
    { id: 'on', label: `${model}, positions on`, note: `all layers, with ${positions === 'learned' ? kind : `${kind} (RoPE)`}, as trained` },
  ];
};

const CSS = `
.tokens { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; margin: .3rem 0 .5rem; touch-action: none; }
.tokens .lab { color: var(--lb-muted); font-size: .85rem; min-width: 5.2rem; }
.word { display: inline-flex; align-items: center; gap: 0; padding: .2rem .3rem; border-radius: 6px; border: 1px solid var(--lb-rule);
  background: var(--lb-page); min-height: 32px; font-size: .9rem; }
.word .chip { margin: 0; }
button.tok { cursor: grab; }
button.tok.dragging { cursor: grabbing; outline: 2px dashed var(--lb-accent); }
.tok.fixed { color: var(--lb-muted); }
.tok.moved { border-color: var(--lb-accent); }
.result { margin: .5rem 0; }
.result b { font-variant-numeric: tabular-nums; }
td.same { color: var(--lb-muted); }
td.changed { color: var(--lb-accent-2); font-weight: 600; }
table.summary th .note { display: block; font-weight: 400; }
table.summary td.top { white-space: nowrap; }
@container (max-width: 520px) { table.summary th .note { display: none; } table.summary { font-size: .85rem; } }
label.text { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .4rem; }
label.text input { flex: 1 1 14rem; }
`;

/**
 * @attr text - the text shuffled
 * @attr seed - the seed of the shuffle (default 1)
 * @attr model - the model: `current` (default: the page's model, the reader's own once they bring one) or `sprout`
 * @attr order - the order, JSON: the words between the start mark and the last token, numbered from 1, in their shuffled order (a word's pieces move together)
 * @fires lookback-change - an order was computed (detail {order, layer, positionsOff, positionsOn})
 */
class Shuffle extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['text', 'seed', 'model', 'order'];

  constructor() {
    super();
    this.readAttributes();
  }

  readAttributes() {
    this.text = this.getAttribute('text') || TEXT;
    const seed = Number.parseInt(this.getAttribute('seed') ?? '1', 10);
    this.seed = Number.isFinite(seed) ? seed : 1;
    this.wantOrder = null;
    const raw = this.getAttribute('order');
    if (raw) {
      try {
        this.wantOrder = JSON.parse(raw);
      } catch {
        console.warn(`<${this.localName}>: ignoring order="${raw}" (not JSON)`);
      }
    }
    this.tokens = null;
  }

  // the page's model changed: the text is read again with the new model's tokens
  modelChanged() {
    this.tokens = null;
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.root.querySelector('input.text').value = this.text;
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">The shuffle test</p>
      <label class="text">text <input type="text" class="text" spellcheck="false"></label>
      <div class="tokens original" role="group" aria-label="The text in order"></div>
      <div class="tokens shuffled" role="group" aria-label="The shuffled text: move a word with Shift or Alt and the arrow keys, or drag it"></div>
      <div class="row"><button type="button" class="again">Shuffle again</button><button type="button" class="reset">Put back in order</button></div>
      <p class="hint">The start mark ◆ and the last token stay where they are; the words between them are shuffled, each
        word's pieces kept together. Drag a word, or focus it and press Shift + ← or → to move it.</p>
      <p class="result" aria-live="polite"></p>
      <div class="scroll"><table class="num summary"><caption>The last token's output, before and after the shuffle</caption>
        <thead><tr><th scope="col">computation</th><th scope="col">last token's output</th><th scope="col">how much the next-token probabilities moved</th></tr></thead>
        <tbody></tbody></table></div>
      <details open><summary>Every token's output</summary><div class="scroll"><table class="num each">
        <caption>Each token's output, compared with the same token's output in the original order</caption>
        <thead></thead>
        <tbody></tbody></table></div></details>`;
    const input = this.root.querySelector('input.text');
    input.value = this.text;
    input.addEventListener('change', () => {
      const text = input.value.trim() || TEXT;
      // the same text committed again (the browser sends a change when the field loses focus): the words keep
      // the order the reader gave them, and a word moved meanwhile is not dropped while the text is read again
      if (text === this.text) return;
      this.markInput();
      this.text = text;
      this.tokens = null;
      this.wantOrder = null;
      this.invalidate({ now: true });
    });
    this.root.querySelector('.again').addEventListener('click', () => {
      if (!this.tokens) return;   // a new text is being read
      this.markInput();
      this.seed += 1;
      this.order = this.shuffled(this.order.length);
      this.invalidate({ now: true });
    });
    this.root.querySelector('.reset').addEventListener('click', () => {
      if (!this.tokens) return;   // a new text is being read
      this.markInput();
      this.order = this.order.map((_, i) => i + 1);
      this.invalidate({ now: true });
    });
    const row = this.root.querySelector('.shuffled');
    row.addEventListener('keydown', (e) => this.onKey(e));
    row.addEventListener('pointerdown', (e) => {
      const b = e.target.closest('button.tok');
      if (!b) return;
      this.drag = { id: e.pointerId, from: Number(b.dataset.pos) };
      row.setPointerCapture(e.pointerId);
      b.classList.add('dragging');
    });
    row.addEventListener('pointermove', (e) => {
      if (this.drag?.id !== e.pointerId) return;
      const over = this.root.elementFromPoint(e.clientX, e.clientY)?.closest?.('button.tok');
      if (!over) return;
      const to = Number(over.dataset.pos);
      if (to !== this.drag.from) {
        this.markInput();
        this.move(this.drag.from, to);
        this.drag.from = to;
      }
    });
    const stop = (e) => {
      if (this.drag?.id === e.pointerId) this.drag = null;
      this.root.querySelectorAll('.dragging').forEach((b) => b.classList.remove('dragging'));
    };
    row.addEventListener('pointerup', stop);
    row.addEventListener('pointercancel', stop);
  }

  // A seeded shuffle of the word numbers 1..n that is never the original order (when n > 1).
  shuffled(n) {
    const { uniform } = seeded(this.seed);
    const p = Array.from({ length: n }, (_, i) => i + 1);
    for (let tries = 0; tries < 20; tries++) {
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(uniform() * (i + 1));
        [p[i], p[j]] = [p[j], p[i]];
      }
      if (n < 2 || p.some((x, i) => x !== i + 1)) break;
    }
    return p;
  }

  // Moves the word at shuffled position `from` (1-based, inside the span) to `to`, shifting the others.
  move(from, to, focus = false) {
    if (!this.tokens) return;   // a new text is being read: its chips come with its tokens
    const n = this.order.length;
    if (from < 1 || from > n || to < 1 || to > n || from === to) return;
    const [t] = this.order.splice(from - 1, 1);
    this.order.splice(to - 1, 0, t);
    this.drawTokens(focus ? to : null);
    this.invalidate();
  }

  onKey(e) {
    const b = e.target.closest('button.tok');
    if (!b) return;
    const pos = Number(b.dataset.pos), d = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (d !== undefined && (e.shiftKey || e.altKey)) {
      e.preventDefault();
      this.markInput();
      this.move(pos, pos + d, true);
    } else if (d !== undefined || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      const n = this.order.length;
      const next = e.key === 'Home' ? 1 : e.key === 'End' ? n : Math.max(1, Math.min(n, pos + d));
      this.root.querySelector(`button.tok[data-pos="${next}"]`)?.focus();
    }
  }

  // The token positions, in the order the shuffled text has them: the start mark, the words in `order`, the last.
  static tokenOrder(words, order, T) {
    return [0, ...order.flatMap((o) => words[o - 1]), T - 1];
  }

  shuffledTokens({ tokens, words, order }) {
    return Shuffle.tokenOrder(words, order, tokens.length).map((i) => tokens[i]);
  }

  drawTokens(focusPos = null) {
    const T = this.tokens.length, n = this.words.length;
    const word = (w) => w.map((i) => chip(this.tokens[i].text)).join('');
    const fixed = (i) => `<span class="word fixed">${chip(this.tokens[i].text)}</span>`;
    const said = (w) => w.map((i) => this.tokens[i].text).join('').trim();
    this.root.querySelector('.original').innerHTML = `<span class="lab">in order</span>${fixed(0)}${this.words.map((w) => `<span class="word">${word(w)}</span>`).join('')}${fixed(T - 1)}`;
    const mid = this.order.map((o, k) => `<button type="button" class="word tok${o !== k + 1 ? ' moved' : ''}" data-pos="${k + 1}"
      tabindex="${(focusPos ?? 1) === k + 1 ? 0 : -1}" aria-label="${esc(said(this.words[o - 1]))}, word ${k + 1} of ${n}${o !== k + 1 ? `, was ${o}` : ''}">${word(this.words[o - 1])}</button>`).join('');
    this.root.querySelector('.shuffled').innerHTML = `<span class="lab">shuffled</span>${fixed(0)}${mid}${fixed(T - 1)}`;
    if (focusPos) this.root.querySelector(`button.tok[data-pos="${focusPos}"]`)?.focus();
  }

  async compute() {
    const model = this.modelKey, source = this.modelName;
    if (!this.tokens) {
      const { text, wantOrder } = this;
      const said = text.trim().split(/\s+/).filter(Boolean);
      // each word read with the space before it, so its pieces are the same wherever it moves; a space the tokenizer
      // puts before any text (sentencepiece's) is not the word's: its pieces are those whose place overlaps the word
      // and its space, at the end of the text they decode to
      const [all, ...read] = await Promise.all([this.askModel('tokens', [text], 'tokens'),
        ...said.map((w, k) => this.askModel('tokens', [` ${w}`, { bos: false }], `word-${k}`))]);
      if (text !== this.text || wantOrder !== this.wantOrder || model !== this.modelKey) throw abortError();   // changed meanwhile
      const pieces = read.map((p, k) => {
        const before = (p.at(-1)?.end ?? 0) - said[k].length - 1;
        return p.filter((t) => t.end > before);
      });
      const tokens = [all[0], ...pieces.flat()];   // the start mark, then every word's pieces
      const words = [];
      let at = 1;
      for (const p of pieces) {
        words.push(Array.from({ length: p.length }, (_, i) => at + i));
        at += p.length;
      }
      words.at(-1).pop();   // the last token stays put: it is the one whose output is compared
      if (!words.at(-1).length) words.pop();
      this.tokens = tokens;
      this.words = words;
      const n = words.length;
      if (n < 2) throw new Error('the text needs at least two words before its last token');
      const want = this.wantOrder;
      const valid = Array.isArray(want) && want.length === n && [...want].sort((a, b) => a - b).every((x, i) => x === i + 1);
      if (want && !valid) console.warn(`<${this.localName}>: ignoring order (not a permutation of the ${n} words 1..${n})`);
      this.order = valid ? want.slice() : this.shuffled(n);
    }
    this.drawTokens(this.root.activeElement?.closest?.('button.tok') ? Number(this.root.activeElement.dataset.pos) : null);
    // what this computation measures (the order may move on while it waits)
    const { text, tokens, words } = this, order = this.order.slice();
    const described = await this.describeModel();
    const runs = runsOf(described.label, described.info.config.positions);
    const ids = tokens.map((t) => t.id);
    const T = ids.length;
    const tokenOrder = Shuffle.tokenOrder(words, order, T);
    const shuffledIds = tokenOrder.map((i) => ids[i]);
    const run = (x, positions, name) => this.askModel('forward', [x, { positions, residuals: !positions }], name);
    const [off0, off1, on0, on1] = await Promise.all([
      run(ids, false, 'off0'), run(shuffledIds, false, 'off1'), run(ids, true, 'on0'), run(shuffledIds, true, 'on1'),
    ]);
    const { C, H, V } = off0.shape;
    const attend = (f, name) => this.ask('attention', [f.residuals.subarray(0, T * C), f.residuals.subarray(0, T * C),
      f.residuals.subarray(0, T * C), { T, heads: H, d: C / H, causal: true, weights: false }], name);
    const probs = (f, name) => this.ask('softmax', [f.logits, { rows: T, cols: V }], name);
    const next = (x, positions, name) => this.askModel('next', [x, { topK: 1, positions }], name);
    const [l0, l1, p00, p01, p10, p11, n00, n01, n10, n11] = await Promise.all([
      attend(off0, 'layer0'), attend(off1, 'layer1'),
      probs(off0, 'p-off0'), probs(off1, 'p-off1'), probs(on0, 'p-on0'), probs(on1, 'p-on1'),
      next(ids, false, 'n-off0'), next(shuffledIds, false, 'n-off1'), next(ids, true, 'n-on0'), next(shuffledIds, true, 'n-on1'),
    ]);
    // where each original token sits in the shuffled text
    const where = new Array(T);
    tokenOrder.forEach((i, k) => { where[i] = k; });
    const layer = compareRows(l0.output, l1.output, C, where, relativeDifference);
    const off = compareRows(p00.weights, p01.weights, V, where, totalVariation);
    const on = compareRows(p10.weights, p11.weights, V, where, totalVariation);
    this.result = {
      text, source, label: described.label, runs, tokens, words, order, tokenOrder, ids, shuffledIds, where,
      layer: { change: layer, changed: layer.map((x) => x > LAYER_TOL) },
      off: { change: off, changed: off.map((x) => x > MODEL_TOL), top: [n00[0], n01[0]] },
      on: { change: on, changed: on.map((x) => x > MODEL_TOL), top: [n10[0], n11[0]] },
    };
    this.render();
  }

  render() {
    const r = this.result, T = r.ids.length, last = T - 1;
    const lastText = r.tokens[last].text.trim() || r.tokens[last].text;
    const moved = (run, i) => (run.id === 'layer' ? '—' : share(r[run.id].change[i]));
    this.root.querySelector('table.summary tbody').innerHTML = r.runs.map((run) => {
      const changed = r[run.id].changed[last];
      return `<tr data-run="${run.id}"><th scope="row">${esc(run.label)}<span class="hint note">${esc(run.note)}</span></th>
        <td class="${changed ? 'changed' : 'same'}">${changed ? 'changed' : 'same'}</td><td class="change">${esc(moved(run, last))}</td></tr>`;
    }).join('');
    this.root.querySelector('table.each thead').innerHTML = `<tr><th scope="col">token</th>${r.runs.map((run) => `<th scope="col">${esc(run.label)}</th>`).join('')}</tr>`;
    this.root.querySelector('table.each tbody').innerHTML = r.tokens.map((t, i) => `<tr data-i="${i}"><th scope="row">${chip(t.text)}</th>${
      r.runs.map((run) => {
        const changed = r[run.id].changed[i];
        return `<td class="${changed ? 'changed' : 'same'}">${changed ? 'changed' : 'same'}${run.id === 'layer' ? '' : ` (${esc(moved(run, i))} moved)`}</td>`;
      }).join('')}</tr>`).join('');
    const anyMoved = r.where.some((w, i) => w !== i);
    const off = r.off, on = r.on;
    const earlier = r.layer.changed.filter(Boolean).length;
    this.root.querySelector('.result').textContent = !anyMoved
      ? 'The text is in its original order: nothing moved, so no output changes. Shuffle it.'
      : `One attention layer: the output at "${lastText}" is ${r.layer.changed[last] ? 'different' : 'the same as before the shuffle'}, `
        + `while ${earlier} earlier token${earlier === 1 ? '\'s' : 's\''} output${earlier === 1 ? '' : 's'} changed with ${earlier === 1 ? 'its' : 'their'} prefix. `
        + `All of ${r.label} with positions off: ${off.changed[last] ? `${share(off.change[last])} of the next-token probability moved to other tokens, `
          + 'so stacked layers still notice the order' : 'the next-token probabilities did not move: no order leaked through the layers for this text'}. `
        + `With positions on: ${share(on.change[last])} moved.`;
    this.dataset.layerChange = String(r.layer.change[last]);
    this.dataset.modelChange = String(off.change[last]);
    this.emit('lookback-change', { order: r.order.slice(), layer: r.layer.change[last], positionsOff: off.change[last], positionsOn: on.change[last] });
  }

  // The exports run only once the widget is ready (the kit's exported()), so there is a result.
  exportData() {
    const r = this.result;
    const json = {
      text: r.text, model: r.source, tokens: r.tokens, words: r.words, wordOrder: r.order, order: r.tokenOrder,
      shuffledIds: r.shuffledIds, tolerances: { layerRelative: LAYER_TOL, totalVariation: MODEL_TOL },
      runs: Object.fromEntries(r.runs.map((run) => [run.id, { label: run.label, change: r[run.id].change, changed: r[run.id].changed,
        top: r[run.id].top ?? null }])),
    };
    const csv = [['position', 'token', 'shuffled_position', ...r.runs.flatMap((run) => [`${run.id}_change`, `${run.id}_changed`])],
      ...r.tokens.map((t, i) => [i, t.text, r.where[i], ...r.runs.flatMap((run) => [r[run.id].change[i], r[run.id].changed[i]])])];
    return { json, csv };
  }

  exportCanvas() {
    const r = this.result;
    return drawReport(this, {
      title: 'The shuffle test',
      blocks: [
        { text: `in order: ${r.tokens.map((t) => t.text).join(' | ')}` },
        { text: `shuffled: ${this.shuffledTokens(r).map((t) => t.text).join(' | ')}` },
        { text: this.root.querySelector('.result').textContent, size: 13 },
        { table: { header: ['token', ...r.runs.map((x) => x.label)], rows: r.tokens.map((t, i) => [t.text,
          ...r.runs.map((run) => (r[run.id].changed[i] ? 'changed' : 'same'))]) } },
      ],
    });
  }
}

// A share of probability in plain words: "12%", "0.4%", "less than 0.1%".
function share(x) {
  if (x < 0.001) return 'less than 0.1%';
  return `${fmt(100 * x, x < 0.1 ? 1 : 0)}%`;
}

// For every original token i: how far its row in b (at shuffled position where[i]) is from its row in a.
function compareRows(a, b, width, where, measure) {
  return where.map((w, i) => measure(a.subarray(i * width, (i + 1) * width), b.subarray(w * width, (w + 1) * width)));
}

function relativeDifference(x, y) {
  let diff = 0, size = 0;
  for (let i = 0; i < x.length; i++) {
    diff = Math.max(diff, Math.abs(x[i] - y[i]));
    size = Math.max(size, Math.abs(x[i]));
  }
  return size > 0 ? diff / size : diff;
}

function totalVariation(p, q) {
  let s = 0;
  for (let i = 0; i < p.length; i++) s += Math.abs(p[i] - q[i]);
  return s / 2;
}

define('lookback-shuffle', Shuffle);
export { Shuffle };
