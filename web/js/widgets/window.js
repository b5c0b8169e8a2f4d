// <lookback-window>: a fixed window of the last N tokens (N = 8 by default) sliding over a story, showing what
// a window model can and cannot see before the blank. Not yet the model comparison: the slot for both models'
// predictions stays empty (and says so) until the trained models ship with the chapter.
import { LookbackWidget, define, esc } from './widget-kit.js';
import { drawReport } from './export.js';

const STORY = 'Mia took her doll to the park . She pushed it on the swings and showed it the ducks . Then she went '
  + "to the shop with her dad , and after that to her grandma's house for tea . At night , Mia put the";

const CSS = `
.story { line-height: 2.1; padding: .5rem .6rem; background: var(--lb-page); border-radius: 8px; cursor: pointer;
  touch-action: pan-y; user-select: none; }
.tok { padding: .15rem .12rem; border-radius: 4px; color: var(--lb-muted); }
.tok.in { background: color-mix(in srgb, var(--lb-accent) 20%, transparent); color: var(--lb-fg); font-weight: 600; }
.tok.key { text-decoration: underline; text-decoration-thickness: 2px; text-underline-offset: 3px; }
.blank { display: inline-block; min-width: 3.2rem; border-bottom: 2px solid var(--lb-fg); text-align: center; color: var(--lb-muted); }
label.pos { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
label.pos input { flex: 1 1 10rem; }
.slot { border: 2px dashed var(--lb-rule); border-radius: 8px; padding: .6rem .8rem; margin-top: .6rem; color: var(--lb-muted); }
.sees { font-weight: 600; }
`;

class WindowWidget extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['size', 'story', 'answer'];

  constructor() {
    super();
    this.readAttributes();
  }

  readAttributes() {
    this.tokens = (this.getAttribute('story') || STORY).trim().split(/\s+/);
    this.size = Math.max(1, Math.min(64, Number.parseInt(this.getAttribute('size') ?? '8', 10) || 8));
    this.answer = this.getAttribute('answer') || 'doll';
    this.end = this.tokens.length;   // the window covers tokens [end - size, end): the ones just before position `end`
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.buildStory();
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">A window of the last <span class="n"></span> tokens</p>
      <div class="story"></div>
      <label class="pos">move the window <input type="range" min="1" step="1"></label>
      <p class="sees" aria-live="polite"></p>
      <p class="hint far"></p>
      <div class="slot" data-slot="predictions" role="note">Predictions at the blank, from the window model and from the
        attention model, appear here once the trained models ship with the chapter. Until then this box stays empty
        rather than show made-up numbers.</div>`;
    this.slider = this.root.querySelector('input');
    this.slider.addEventListener('input', () => {
      this.markInput();
      this.end = Number(this.slider.value);
      this.invalidate();
    });
    const story = this.root.querySelector('.story');
    const at = (e) => this.root.elementFromPoint(e.clientX, e.clientY)?.closest?.('[data-i]');
    story.addEventListener('pointerdown', (e) => {
      const t = at(e);
      if (!t) return;
      this.drag = e.pointerId;
      story.setPointerCapture(e.pointerId);
      this.markInput();
      this.end = Number(t.dataset.i) + 1;
      this.invalidate();
    });
    story.addEventListener('pointermove', (e) => {
      if (this.drag !== e.pointerId) return;
      const t = at(e);
      if (!t) return;
      this.markInput();
      this.end = Number(t.dataset.i) + 1;
      this.invalidate();
    });
    const stop = (e) => { if (this.drag === e.pointerId) this.drag = null; };
    story.addEventListener('pointerup', stop);
    story.addEventListener('pointercancel', stop);
    this.buildStory();
  }

  buildStory() {
    this.root.querySelector('.n').textContent = String(this.size);
    this.root.querySelector('.story').innerHTML = `${this.tokens.map((t, i) => `<span class="tok${t === this.answer ? ' key' : ''}" data-i="${i}">${esc(t)}</span>`).join(' ')} <span class="blank">___</span>`;
    this.slider.max = String(this.tokens.length);
    this.slider.setAttribute('aria-label', `end of the ${this.size}-token window`);
  }

  async compute() {
    this.end = Math.max(1, Math.min(this.tokens.length, this.end));
    const from = Math.max(0, this.end - this.size);
    this.root.querySelectorAll('.tok').forEach((el, i) => el.classList.toggle('in', i >= from && i < this.end));
    this.slider.value = String(this.end);
    const next = this.end < this.tokens.length ? `"${this.tokens[this.end]}"` : 'the blank';
    this.slider.setAttribute('aria-valuetext', `window before ${next}`);
    const seen = this.tokens.slice(from, this.end);
    this.root.querySelector('.sees').textContent = `Before ${next}, the window sees: ${seen.join(' ')}`;
    const last = this.tokens.lastIndexOf(this.answer, this.end - 1);
    const far = this.root.querySelector('.far');
    if (last < 0) far.textContent = `"${this.answer}" has not appeared yet.`;
    else {
      const back = this.end - last;
      far.textContent = back <= this.size
        ? `"${this.answer}" is ${back} token${back > 1 ? 's' : ''} back: inside the window.`
        : `"${this.answer}" is ${back} tokens back: it fell out of the window, and a window model cannot recover it.`;
    }
    this.visibleTokens = seen;
    this.emit('lookback-change', { end: this.end, size: this.size, visible: seen });
  }

  exportData() {
    const from = Math.max(0, this.end - this.size);
    return { json: { size: this.size, end: this.end, tokens: this.tokens, visible: this.visibleTokens, predictions: null },
      csv: [['position', 'token', 'in_window'], ...this.tokens.map((t, i) => [i + 1, t, i >= from && i < this.end])] };
  }

  exportCanvas() {
    const from = Math.max(0, this.end - this.size);
    const text = this.tokens.map((t, i) => (i >= from && i < this.end ? `[${t}]` : t)).join(' ');
    return drawReport(this, {
      title: `A window of the last ${this.size} tokens`,
      blocks: [{ text: `${text} ___` }, { text: this.root.querySelector('.sees').textContent, bold: true },
        { text: this.root.querySelector('.far').textContent }],
    });
  }
}

define('lookback-window', WindowWidget);
export { WindowWidget };
