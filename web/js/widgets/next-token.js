// <lookback-next-token>: type a text and see the model's most probable next tokens at a temperature, with the
// top-p set marked; generate token by token, streamed into the page a few tokens per request (generation.js),
// cancellable (Stop or Escape); the same seed gives the same text. Holds the "use your own model" box, which
// switches every model widget on the page. Not the sampler: every probability and token comes from the core.
import { chip, define, esc, fmt, prob } from './widget-kit.js';
import { shown } from './model-view.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { generateInSteps } from './generation.js';
import { modelPicker, PICKER_CSS } from './model-picker.js';

const CSS = `
textarea { width: 100%; min-height: 4.2rem; font: inherit; color: inherit; background: var(--lb-page);
  border: 1px solid var(--lb-rule); border-radius: 6px; padding: .35rem .5rem; resize: vertical; }
.controls { display: flex; flex-wrap: wrap; gap: .4rem 1.4rem; margin: .5rem 0; }
.controls label { display: flex; gap: .4rem; align-items: center; flex: 1 1 12rem; }
.controls output { min-width: 2.6rem; }
.controls input[type=range] { flex: 1; min-width: 5rem; }
.controls input[type=number] { width: 6.5rem; background: var(--lb-page); border: 1px solid var(--lb-rule);
  border-radius: 6px; padding: .2rem .35rem; min-height: 34px; }
table.top { width: 100%; }
.scroll { position: relative; }
td.bar { width: 35%; min-width: 2rem; }
td.tok { white-space: pre; }
td.bar span { display: block; height: .8rem; background: var(--lb-accent); border-radius: 3px; }
tr.outside td { color: var(--lb-muted); }
tr.outside td.bar span { background: var(--lb-rule); }
.gen { background: var(--lb-page); border-radius: 8px; padding: .5rem .65rem; min-height: 2.4rem; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.gen .out { background: color-mix(in srgb, var(--lb-accent) 16%, transparent); }
.model-line { margin: 0 0 .4rem; color: var(--lb-muted); font-size: .9rem; }
.reading:empty { display: none; }
.reading { color: var(--lb-fg); border-left: 3px solid var(--lb-accent-2); padding-left: .5rem; }
${PICKER_CSS}
`;

const STOPS = { end: 'the model ended the text', context: 'the context is full', max_tokens: 'the token budget is spent',
  cancelled: 'you stopped it', model: 'the model was changed' };

const num = (el, name, fallback, lo, hi) => {
  const v = Number(el.getAttribute(name));
  return el.hasAttribute(name) && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : fallback;
};

// Below this, the most probable next token is a weak guess (at temperature 1 the model spreads its bets).
export const WEAK_GUESS = 0.3;
// Above this many tokens per word, much of the text is made of pieces, not whole words: the tokenizer knows
// few of its words, so it is unlike the text the model learned from (plain English stories take about 1.1-1.2).
export const PIECES_PER_WORD = 1.6;

// Sentences that say, in words, where the model's reading of this text is weak (none when it reads it well):
// a text made of pieces rather than words, and a top guess with little probability. `tokens` excludes ◆.
export function readingNotes(text, tokens, top, temperature) {
  const notes = [];
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  if (words >= 3 && tokens / words > PIECES_PER_WORD) {
    notes.push(`Unfamiliar text: its ${words} words split into ${tokens} tokens (${fmt(tokens / words, 1)} a word), so many `
      + 'of them are pieces the model rarely saw together in training; expect weak guesses.');
  }
  const best = top[0];
  if (best && best.p < WEAK_GUESS) {
    notes.push(`Unsure: the most probable next token, ${JSON.stringify(best.token)}, has only ${fmt(best.p, 2)}${temperature > 0 && temperature !== 1 ? ` at temperature ${fmt(temperature)}` : ''}; `
      + 'the model does not know what comes next here, so do not read much into its top guess.');
  }
  return notes;
}

/**
 * @attr text - the prompt
 * @attr temperature - 0 to 2 (0: always the most probable token)
 * @attr top-p - sample only from the most probable tokens holding this mass
 * @attr seed - the same seed and settings give the same text
 * @attr tokens - how many tokens to generate, up to 256
 * @attr top - how many rows the table of next tokens lists
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @attr no-picker - present: no "Use your own model" box
 * @fires lookback-change - the next tokens were computed (detail {text, top, reading})
 * @fires lookback-token - generation added tokens (detail {ids, text})
 * @fires lookback-generated - generation ended (detail: the generated ids, text and stop reason)
 */
class NextTokenWidget extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['text', 'temperature', 'top-p', 'seed', 'tokens', 'top', 'model', 'no-picker'];

  constructor() {
    super();
    this.top = [];
    this.topFor = null;  // the model, text and settings of this.top (set by compute)
    this.generated = null;
    this.running = null;
  }

  // Every control from its attribute, or (`name` given: that attribute changed) only that one, so that a text set
  // from outside (the other side of a <lookback-compare>) keeps the reader's settings.
  readAttributes(name) {
    const only = (n) => !name || name === n;
    if (only('text')) this.textBox.value = this.getAttribute('text') ?? 'Once upon a time, there was a little girl named';
    if (only('temperature')) this.temp.value = String(num(this, 'temperature', 0.8, 0, 2));
    if (only('top-p')) this.topP.value = String(num(this, 'top-p', 0.95, 0.05, 1));
    if (only('seed')) this.seedBox.value = String(Math.round(num(this, 'seed', 1, 0, 4294967295)));
    if (only('tokens')) this.maxBox.value = String(Math.round(num(this, 'tokens', 40, 1, 256)));
    if (only('top')) this.k = Math.round(num(this, 'top', 8, 1, 50));
    if (only('no-picker')) this.picker.hidden = this.hasAttribute('no-picker');
  }

  // the text in the box and the temperature on the slider, as the reader left them
  get text() {
    return this.textBox ? this.textBox.value : this.getAttribute('text');
  }

  get temperature() {
    return this.temp ? Number(this.temp.value) : num(this, 'temperature', 0.8, 0, 2);
  }

  build() {
    this.root.innerHTML = `
      <p class="title">What comes next</p>
      <p class="model-line">Model: <b class="model-name">…</b> <span class="model-size"></span></p>
      <label><span class="sr-only">Text to continue</span><textarea class="text" spellcheck="false"></textarea></label>
      <div class="scroll"><table class="num top">
        <caption></caption>
        <thead><tr><th scope="col">next token</th><th scope="col">probability</th><th scope="col">sampled?</th><th scope="col"><span class="sr-only">bar</span></th></tr></thead>
        <tbody></tbody></table></div>
      <p class="reading hint" role="status"></p>
      <div class="controls">
        <label>temperature <input type="range" class="temp" min="0" max="2" step="0.05"><output class="temp-out mono"></output></label>
        <label>top-p <input type="range" class="top-p" min="0.05" max="1" step="0.05"><output class="top-p-out mono"></output></label>
        <label>seed <input type="number" class="seed" min="0" max="4294967295" step="1"></label>
        <label>tokens <input type="number" class="max" min="1" max="256" step="1"></label>
      </div>
      <div class="row"><button type="button" class="go">Generate</button>
        <button type="button" class="stop" disabled>Stop</button>
        <span class="hint">Escape stops. The same seed and settings give the same text.</span></div>
      <div class="gen mono" role="region" aria-label="generated text"><span class="prompt"></span><span class="out"></span></div>
      <p class="gen-status hint" role="status"></p>`;
    const $ = (s) => this.root.querySelector(s);
    this.textBox = $('.text');
    this.temp = $('.temp');
    this.topP = $('.top-p');
    this.seedBox = $('.seed');
    this.maxBox = $('.max');
    this.picker = modelPicker(this);
    this.root.append(this.picker);
    this.readAttributes();
    const changed = () => {
      this.markInput();
      this.invalidate();
    };
    this.textBox.addEventListener('input', changed);
    this.temp.addEventListener('input', changed);
    this.topP.addEventListener('input', changed);
    $('.go').addEventListener('click', () => this.generate());
    $('.stop').addEventListener('click', () => this.stop());
    this.root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.running) {
        e.preventDefault();
        this.stop();
      }
    });
  }

  get settings() {
    return {
      temperature: Number(this.temp.value), topP: Number(this.topP.value),
      seed: Math.max(0, Math.min(4294967295, Math.round(Number(this.seedBox.value) || 0))),
      maxTokens: Math.max(1, Math.min(256, Math.round(Number(this.maxBox.value) || 1))),
    };
  }

  modelChanged() {
    this.stop();
  }

  async compute() {
    const { temperature, topP } = this.settings;
    this.root.querySelector('.temp-out').textContent = fmt(temperature);
    this.root.querySelector('.top-p-out').textContent = fmt(topP);
    const text = this.textBox.value;
    const shown = temperature > 0 ? temperature : 1;
    // the model line follows the model as soon as it is known, whether or not its prediction succeeds (a text
    // the new model cannot read leaves an error under the name of the model that refused it)
    const described = this.describeModel().then((model) => {
      this.root.querySelector('.model-name').textContent = model.label;
      this.root.querySelector('.model-size').textContent = `(${model.info.config.n_layers} layers × ${model.info.config.n_heads} heads, `
        + `${model.info.parameters.toLocaleString('en-US')} parameters, context ${model.context})`;
      return model;
    });
    const [model, top, ids] = await Promise.all([described,
      this.askModel('next', [text, { topK: this.k, temperature: shown }]), this.askModel('encode', [text], 'encode-shown')]);
    let mass = 0;
    this.top = top.map((t) => {
      const inside = mass < topP || mass === 0;
      mass += t.p;
      return { ...t, inTopP: temperature > 0 && inside };
    });
    // (the box and sliders may be newer than the rows shown: the exports name what the rows are of)
    this.topFor = { model: model.label, text, temperature, topP };
    this.root.querySelector('caption').textContent = temperature > 0
      ? `The ${top.length} most probable next tokens at temperature ${fmt(temperature)}; tokens outside the top-p ${fmt(topP)} set are never sampled`
      : `The ${top.length} most probable next tokens (at temperature 1); temperature 0 always picks the first`;
    this.root.querySelector('tbody').innerHTML = this.top.map((t) => `<tr class="${t.inTopP || temperature === 0 ? '' : 'outside'}" data-id="${t.id}">
      <td class="tok">${chip(t.token)}</td><td class="p">${prob(t.p)}</td><td class="in">${temperature === 0 ? (t === this.top[0] ? 'always' : 'never') : t.inTopP ? 'yes' : 'no'}</td>
      <td class="bar" aria-hidden="true"><span style="width:${(100 * t.p).toFixed(1)}%"></span></td></tr>`).join('');
    this.temp.setAttribute('aria-valuetext', fmt(temperature));
    this.topP.setAttribute('aria-valuetext', fmt(topP));
    this.reading = readingNotes(text, ids.length - 1, top, temperature);
    this.root.querySelector('.reading').textContent = this.reading.join(' ');
    this.emit('lookback-change', { text, top: this.top, reading: this.reading });
  }

  // Streams a continuation of the current text into the page; resolves when it ends or is stopped.
  async generate() {
    if (this.running) return this.running.done;
    const $ = (s) => this.root.querySelector(s);
    const settings = this.settings;
    const prompt = this.textBox.value;
    const run = { cancelled: false, model: this.modelKey };
    this.running = run;
    this.generated = { prompt, ...settings, ids: [], text: '', stop: null };
    $('.prompt').textContent = prompt;
    $('.out').textContent = '';
    const focusWasOnGo = this.root.activeElement === $('.go');
    $('.go').disabled = true;
    $('.stop').disabled = false;
    if (focusWasOnGo) $('.stop').focus();  // a disabled button drops the focus; Stop (and Escape) keep it in the widget
    $('.gen').setAttribute('aria-busy', 'true');
    $('.gen-status').textContent = 'Generating…';
    run.done = (async () => {
      try {
        const ids = await this.askModel('encode', [prompt], 'encode', { keep: true });
        const step = (x, o) => this.askModel('generate', [x, o], 'generate', { keep: true });
        for await (const part of generateInSteps(step, ids, settings)) {
          if (run.cancelled || run.model !== this.modelKey) break;   // stopped, or another model (its ids differ)
          this.generated.ids.push(...part.ids);
          this.generated.text += part.text;
          $('.out').textContent = this.generated.text;
          this.generated.stop = part.stop;
          this.emit('lookback-token', { ids: part.ids, text: part.text });
          await this.onScreen(run);
        }
        // a model change (the page's or the model attribute) ends the run; its ids are the old model's, so they are
        // not decoded again
        const switched = run.model !== this.modelKey;
        if (switched) this.generated.stop = 'model';
        else if (run.cancelled) this.generated.stop = 'cancelled';
        if (this.generated.ids.length && !switched) {
          this.generated.text = await this.askModel('decode', [this.generated.ids], 'decode', { keep: true });
          $('.out').textContent = this.generated.text;
        }
        const n = this.generated.ids.length;
        $('.gen-status').textContent = `${n} token${n === 1 ? '' : 's'} generated with seed ${settings.seed}; stopped because ${STOPS[this.generated.stop]}.`;
      } catch (err) {
        if (err?.name !== 'AbortError') this.showError(err);
        $('.gen-status').textContent = 'Generation stopped by an error.';
      } finally {
        this.running = null;
        const focusWasOnStop = this.root.activeElement === $('.stop');
        $('.go').disabled = false;
        $('.stop').disabled = true;
        if (focusWasOnStop) $('.go').focus();
        $('.gen').setAttribute('aria-busy', 'false');
        this.emit('lookback-generated', { ...this.generated });
      }
    })();
    return run.done;
  }

  stop() {
    if (this.running) this.running.cancelled = true;
  }

  // Generation pauses while the widget is off screen (widgets compute only while seen).
  onScreen(run) {
    if (this._visible || run.cancelled) return Promise.resolve();
    return new Promise((resolve) => {
      const poll = () => (this._visible || run.cancelled ? resolve() : setTimeout(poll, 200));
      poll();
    });
  }

  exportData() {
    const { model, text, temperature, topP } = this.topFor;
    return {
      json: { model, text, temperature, topP, top: this.top, reading: this.reading,
        generated: this.generated },
      csv: [['rank', 'id', 'token', 'p', 'in_top_p'], ...this.top.map((t, i) => [i + 1, t.id, t.token, t.p, t.inTopP])],
    };
  }

  exportCanvas() {
    const { model, text } = this.topFor;
    const blocks = [{ text: `Model: ${model}` }, { text, bold: true },
      { table: { caption: this.root.querySelector('caption').textContent, header: ['next token', 'probability'],
        rows: this.top.map((t) => [shown(t.token), prob(t.p)]) } }];
    if (this.reading.length) blocks.push({ text: this.reading.join(' ') });
    if (this.generated) blocks.push({ text: `Generated (seed ${this.generated.seed}): ${this.generated.prompt}${this.generated.text}` });
    return drawReport(this, { title: 'What comes next', blocks });
  }
}

define('lookback-next-token', NextTokenWidget);
export { NextTokenWidget };
