// <lookback-window>: a window of the last N tokens (the window model's own width by default) sliding over a
// story in the models' BPE tokens, with both models' top-5 next tokens where the window ends (the window
// model, which sees only the window, and the page's current model, Sprout, which sees everything), computed
// live; the reader can edit the story. Below, both models' measured loss from the model card.
// Not the models themselves: it asks the page's shared models through the `model` compute op (ModelWidget).
import { chip, chipText, define, esc, fmt, prob } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { shown } from './model-view.js';

const STORY = 'Mia took her doll to the park. She pushed it on the swings and showed it the ducks. Then she went '
  + "to the shop with her dad, and after that to her grandma's house for tea. At night, Mia put the";

const CSS = `
textarea { width: 100%; min-height: 4.2rem; font: inherit; background: var(--lb-page); color: inherit;
  border: 1px solid var(--lb-rule); border-radius: 6px; padding: .3rem .45rem; }
.story { line-height: 2.1; padding: .5rem .6rem; background: var(--lb-page); border-radius: 8px; cursor: pointer;
  touch-action: pan-y; user-select: none; white-space: pre-wrap; }
.tok { padding: .15rem .2em; color: var(--lb-muted); }
.tok.in { background: color-mix(in srgb, var(--lb-accent) 20%, transparent); color: var(--lb-fg); font-weight: 600; }
.tok.key { text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px; }
.blank { display: inline-block; min-width: 3.2rem; border-bottom: 2px solid var(--lb-fg); text-align: center; color: var(--lb-muted); }
label.pos { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
label.pos input { flex: 1 1 10rem; }
.sees { font-weight: 600; }
.preds { display: flex; flex-wrap: wrap; gap: 1rem; }
.preds table { flex: 1 1 14rem; }
.bar { display: inline-block; height: .6rem; background: var(--lb-accent); border-radius: 2px; vertical-align: middle; }
td.t { font-family: var(--lb-mono); white-space: pre; }
`;

/**
 * @attr size - the window in tokens (default: the window model's window)
 * @attr story - the story whose last word is predicted
 * @attr answer - the word the story needs (default `doll`)
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @fires lookback-change - the window moved (detail {end, size, visible, predictions})
 */
class WindowWidget extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['size', 'story', 'answer', 'model'];

  constructor() {
    super();
    this.readAttributes();
  }

  readAttributes() {
    this.story = (this.getAttribute('story') || STORY).trim();
    this.sizeAttr = Number.parseInt(this.getAttribute('size') ?? '', 10);
    this.answer = (this.getAttribute('answer') || 'doll').trim();
    this.end = Infinity;   // the window covers tokens [end - size, end): the ones just before position `end`
    this.tokens = null;
    this.tokensFor = null;   // the story `tokens` are of
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.root.querySelector('textarea').value = this.story;
      this.invalidate({ now: true });
    }
  }

  modelChanged() {
    this.tokensFor = null;
  }

  build() {
    this.root.innerHTML = `
      <p class="title">A window of the last <span class="n">…</span> tokens</p>
      <label class="hint" for="story">The story (edit it; the tokens and both predictions follow)</label>
      <textarea id="story" spellcheck="false"></textarea>
      <div class="story" aria-hidden="true"></div>
      <label class="pos">move the window <input type="range" min="1" step="1"></label>
      <p class="sees" aria-live="polite"></p>
      <p class="hint far"></p>
      <div class="preds" aria-live="polite"></div>
      <div class="scroll"><table class="num loss"><caption>Measured on held-out stories (from the model card)</caption>
        <tbody><tr><td>computing…</td></tr></tbody></table></div>
      <p class="hint reading"></p>`;
    const area = this.root.querySelector('textarea');
    area.value = this.story;
    area.addEventListener('input', () => {
      this.markInput();
      this.story = area.value;
      this.end = Infinity;
      this.invalidate();
    });
    this.slider = this.root.querySelector('input');
    this.slider.addEventListener('input', () => {
      this.markInput();
      this.end = Number(this.slider.value);
      this.invalidate();
    });
    const story = this.root.querySelector('.story');
    const at = (e) => this.root.elementFromPoint(e.clientX, e.clientY)?.closest?.('[data-i]');
    const move = (e) => {
      const t = at(e);
      if (!t) return;
      this.markInput();
      this.end = Number(t.dataset.i) + 1;
      this.invalidate();
    };
    story.addEventListener('pointerdown', (e) => {
      if (!at(e)) return;
      this.drag = e.pointerId;
      story.setPointerCapture(e.pointerId);
      move(e);
    });
    story.addEventListener('pointermove', (e) => { if (this.drag === e.pointerId) move(e); });
    const stop = (e) => { if (this.drag === e.pointerId) this.drag = null; };
    story.addEventListener('pointerup', stop);
    story.addEventListener('pointercancel', stop);
  }

  // The window model (small, quick to load) first: the story's tokens and its prediction, shown at once; then
  // the attention model's prediction, which fills its column when it arrives (mark lookback:complete:...).
  async compute() {
    const [win, card] = await Promise.all([
      this.ask('modelInfo', ['window'], 'describe-window', { keep: true }),
      this.modelCard(),
    ]);
    this.card = card;
    this.models = { window: win, attention: this.models?.attention ?? null };
    this.size = Math.max(1, Math.min(256, Number.isFinite(this.sizeAttr) ? this.sizeAttr : win.context));
    const { story } = this;
    if (this.tokensFor !== story) {
      this.tokens = await this.askModel('tokens', [story], 'tokens', { model: 'window' });
      this.tokensFor = story;
    }
    // what this computation shows (the story and the slider may move on while it waits)
    const { tokens, size } = this;
    const end = Math.max(1, Math.min(tokens.length, this.end));
    const ids = tokens.slice(0, end).map((t) => t.id);
    this.predictions = { window: await this.askModel('next', [ids, { topK: 5 }], 'next-window', { model: 'window' }),
      attention: null };
    this.current = { tokens, end, size };
    this.render();
    this.attentionPrediction(ids, win);
  }

  async attentionPrediction(ids, win) {
    const gen = this._gen;
    try {
      const att = await this.ask('modelInfo', [this.modelName], 'describe', { keep: true });
      // the same tokenizer: the same ids; another one (a model the reader dropped in): the same text
      const same = att.info.tokenizer === win.info.tokenizer && att.info.config.vocab_size === win.info.config.vocab_size;
      const input = same ? ids : await this.askModel('decode', [ids], 'decode', { model: 'window' });
      const top = await this.askModel('next', [input, { topK: 5, window: true }], 'next');
      if (gen !== this._gen) return;
      this.models.attention = att;
      this.predictions.attention = top;
      this.render();
      performance.mark(`lookback:complete:${this.localName}`);
    } catch (err) {
      if (err?.name !== 'AbortError') this.showError(err);
    }
  }

  render() {
    const { tokens, end, size } = this.current;
    const T = tokens.length, from = Math.max(0, end - size);
    const before = (i) => (i < T ? `"${tokens[i].text.trim()}"` : 'the blank');
    this.root.querySelector('.n').textContent = String(size);
    const isKey = (t) => t.text.trim() === this.answer;
    this.root.querySelector('.story').innerHTML = `${tokens.map((t, i) => `<span class="chip tok${i >= from && i < end ? ' in' : ''}${isKey(t) ? ' key' : ''}" data-i="${i}">${chipText(t.text)}</span>`).join('')} <span class="blank">___</span>`;
    const at = Math.min(this.end, T);   // the slider stays where the reader put it
    this.slider.max = String(T);
    this.slider.value = String(at);
    this.slider.setAttribute('aria-label', `end of the ${size}-token window`);
    this.slider.setAttribute('aria-valuetext', `window before ${before(at)}`);
    const next = before(end);
    const seen = tokens.slice(from, end).map((t) => t.text);
    this.visibleTokens = seen;
    this.root.querySelector('.sees').innerHTML = `Before ${esc(next)}, the window sees: ${seen.map((t) => chip(t)).join('')}`;
    let last = -1;
    for (let i = end - 1; i >= 0; i--) if (isKey(tokens[i])) { last = i; break; }
    const far = this.root.querySelector('.far');
    if (last < 0) far.textContent = `"${this.answer}" has not appeared yet.`;
    else {
      const back = end - last;
      far.textContent = back <= size
        ? `"${this.answer}" is ${back} token${back > 1 ? 's' : ''} back: inside the window.`
        : `"${this.answer}" is ${back} tokens back: it fell out of the window, and a window model cannot recover it.`;
    }
    const table = (label, list, cls) => `<table class="num ${cls}"><caption>${esc(label)}: next token</caption>
      <thead><tr><th scope="col">token</th><th scope="col">probability</th><th scope="col"><span class="sr-only">bar</span></th></tr></thead>
      <tbody>${list.map((p) => `<tr><td class="t">${chip(p.token)}</td><td class="p">${prob(p.p)}</td>
        <td><span class="bar" style="width:${Math.round(p.p * 90)}px"></span></td></tr>`).join('')}</tbody></table>`;
    const { window: w, attention: a } = this.models;
    this.root.querySelector('.preds').innerHTML = table(`${w.label} (sees ${size})`, this.predictions.window, 'window')
      + (this.predictions.attention ? table(`${a.label} (sees all ${Math.min(end, a.context)})`, this.predictions.attention, 'attention')
        : '<p class="hint attention">The attention model is computing…</p>');
    this.renderLoss();
    this.emit('lookback-change', { end, size, visible: seen, predictions: this.predictions });
  }

  renderLoss() {
    const v = this.card?.validation;
    const body = this.root.querySelector('table.loss tbody');
    const reading = this.root.querySelector('.reading');
    if (!v?.sprout || !v?.window) {
      body.innerHTML = '<tr><td>This model ships without measurements (no model card).</td></tr>';
      reading.textContent = '';
      this.loss = null;
      return;
    }
    this.loss = [['Sprout', v.sprout.loss_nats], [this.models.window.label, v.window.loss_nats]];
    body.innerHTML = `<tr><th scope="col">model</th><th scope="col">loss, nats per token</th><th scope="col">e<sup>loss</sup></th></tr>
      ${this.loss.map(([m, l]) => `<tr data-model="${esc(m)}"><td>${esc(m)}</td><td class="nats">${fmt(l, 3)}</td><td class="exp">${fmt(Math.exp(l), 2)}</td></tr>`).join('')}`;
    reading.textContent = `Over ${v.stories} held-out stories (${v.tokens.toLocaleString('en-US')} tokens), Sprout is as unsure as `
      + `choosing among ${fmt(Math.exp(v.sprout.loss_nats), 1)} equally likely tokens at each step; the window model, among `
      + `${fmt(Math.exp(v.window.loss_nats), 1)}.`;
  }

  exportData() {
    const { tokens, end, size } = this.current;
    const from = Math.max(0, end - size);
    const rows = [['position', 'token', 'in_window'], ...tokens.map((t, i) => [i, t.text, i >= from && i < end])];
    for (const [name, list] of Object.entries(this.predictions).filter(([, l]) => l)) {
      rows.push([], [`${name} model: next token`, 'probability']);
      for (const p of list) rows.push([p.token, p.p]);
    }
    return { json: { size, end, tokens: tokens.map((t) => t.text), visible: this.visibleTokens,
      predictions: this.predictions, loss: this.loss }, csv: rows };
  }

  exportCanvas() {
    const { tokens, end, size } = this.current;
    const from = Math.max(0, end - size);
    const text = tokens.map((t, i) => (i >= from && i < end ? `[${t.text}]` : t.text)).join('');
    const preds = Object.entries(this.predictions).filter(([, l]) => l).map(([name, list]) => ({
      table: { caption: `${name} model: next token`, header: ['token', 'p'], rows: list.map((p) => [shown(p.token), prob(p.p)]) } }));
    return drawReport(this, {
      title: `A window of the last ${size} tokens`,
      blocks: [{ text: `${text} ___` }, { text: this.root.querySelector('.sees').textContent, bold: true },
        { text: this.root.querySelector('.far').textContent }, ...preds],
    });
  }
}

define('lookback-window', WindowWidget);
export { WindowWidget };
