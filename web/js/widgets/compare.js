// <lookback-compare>: the model widget inside it, shown twice side by side on the same text: once with its own model
// (the page's current one: the reader's, once they load one) and once with the model named by `with` (Sprout by
// default), each side with the model's name above it, its own heads and numbers; the attributes named by `sync`
// (text by default) are kept equal on both sides, so an edit on either side recomputes both. Stacked on a narrow
// screen. Not a model widget itself: the two sides compute, through the page's models (their `model` attribute).
import { LookbackWidget, define, esc } from './widget-kit.js';
import { drawReport } from './export.js';

const CSS = `
:host { background: none; border: 0; padding: 0; }
/* one line (the toggle, and while there is nothing to compare, why) until both sides show; the save menu at its right */
.top { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; padding-right: 4.6rem; min-height: 34px; }
.top .title { margin: 0; padding-right: 0; flex: 1 1 100%; }
:host(:not([data-on])) .top .title { display: none; }
/* one save menu while one side shows: the widget's own */
:host(:not([data-on])) .export { display: none; }
.top .hint { margin: 0; flex: 1 1 14rem; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
/* on a phone, while there is nothing to compare, the toggle alone (its description says why) */
@container (max-width: 640px) { :host(:not([data-available])) .top .hint { display: none; } }
.sides { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 .8rem; align-items: start; }
:host([data-on]) .sides { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
/* on a phone (a narrow container) the two sides stack */
@container (max-width: 640px) { :host([data-on]) .sides { grid-template-columns: minmax(0, 1fr); } }
.side { min-width: 0; }
.name { margin: .6rem 0 0; font-weight: 650; overflow-wrap: anywhere; }
:host(:not([data-on])) .side.with, :host(:not([data-on])) .name { display: none; }
::slotted(*) { margin: .3rem 0 0; }
`;

/**
 * @attr with - the model of the added side, as a model widget's `model` attribute names it: `sprout` (default), `window`, `current`
 * @attr compare - present: both sides are shown whenever the two models differ (the toggle button sets and removes it)
 * @attr sync - the attributes kept equal on both sides, space-separated (default `text`); each is read from the property of the same name of the side that last drew
 * @fires lookback-change - the comparison was turned on or off, or a side's model changed (detail {compare, models: the models' names as shown, left first})
 */
class CompareWidget extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['with', 'compare', 'sync'];

  constructor() {
    super();
    this.other = null;    // the added side (a copy of the widget inside, with model = `with`), while shown
    this.labels = null;   // [with's name, the inner widget's model's name]
    this.available = false;
    this.seenModel = null;   // the inner widget's modelKey when this last computed
  }

  attributeChangedCallback() {
    if (this._built) this.invalidate({ now: true });
  }

  // the widget inside (the first element that is not the added side)
  get main() {
    return [...this.children].find((el) => el !== this.other && el.localName.startsWith('lookback-')) ?? null;
  }

  get withName() {
    return this.getAttribute('with') || 'sprout';
  }

  get synced() {
    return (this.getAttribute('sync') ?? 'text').split(/\s+/).filter(Boolean);
  }

  build() {
    this.root.innerHTML = `
      <div class="top"><p class="title">Two models side by side</p>
        <button type="button" class="toggle" aria-pressed="false" disabled>Show both models</button>
        <p class="hint status" aria-live="polite"></p></div>
      <div class="sides">
        <div class="side with"><p class="name"></p><slot name="with"></slot></div>
        <div class="side own"><p class="name"></p><slot></slot></div>
      </div>`;
    this.root.querySelector('.toggle').addEventListener('click', () => {
      this.markInput();
      this.toggleAttribute('compare');
    });
    // a side drew: the other side takes the attributes kept in sync (a no-op once they agree); the widget inside
    // drew with another model (the page's model changed): the names and the toggle are asked again
    this.addEventListener('lookback-change', (e) => {
      const from = e.target;
      const to = from === this.other ? this.main : from === this.main ? this.other : null;
      if (to) this.copySynced(from, to);
      if (from === this.main && from.modelKey !== this.seenModel) this.invalidate({ now: true });
    });
  }

  copySynced(from, to) {
    for (const name of this.synced) {
      const v = from[name] ?? from.getAttribute(name);
      if (v === null || v === undefined || typeof v === 'object') continue;
      if (String(to[name] ?? to.getAttribute(name)) !== String(v)) to.setAttribute(name, String(v));
    }
  }

  // The sides fold themselves on a phone; the wrapper does not fold them again.
  fitToPhone() {}

  async compute() {
    const main = this.main;
    const status = this.root.querySelector('.status');
    const toggle = this.root.querySelector('.toggle');
    if (!main) {
      status.textContent = 'Put one model widget inside <lookback-compare> to compare two models on it.';
      return;
    }
    this.seenModel = main.modelKey;
    const [a, b] = await Promise.all([this.ask('modelInfo', [this.withName], 'with'), this.ask('modelInfo', [main.getAttribute('model') || 'current'], 'own')]);
    this.available = a.label !== b.label || a.custom !== b.custom;
    const on = this.available && this.hasAttribute('compare');
    if (on && !this.other) this.addSide(main);
    if (!on && this.other) {
      this.other.remove();
      this.other = null;
    }
    const labels = on ? [a.label, b.label] : [b.label];
    const changed = JSON.stringify(labels) !== JSON.stringify(this.labels);
    this.labels = labels;
    this.toggleAttribute('data-on', on);
    const [withName, ownName] = this.root.querySelectorAll('.name');
    withName.textContent = a.label;
    ownName.textContent = b.label;
    toggle.disabled = !this.available;
    this.toggleAttribute('data-available', this.available);

    toggle.setAttribute('aria-pressed', String(on));
    toggle.textContent = on ? `Show ${b.label} alone` : `Show ${a.label} beside ${this.available ? b.label : 'your model'}`;
    status.innerHTML = this.available
      ? (on ? `Left: <b>${esc(a.label)}</b>; right (below on a narrow screen): <b>${esc(b.label)}</b>, on the same text.` : '')
      : `Load a model of your own ("Use your own model" under a model widget) to see it here beside ${esc(a.label)} on the same text.`;
    toggle.title = this.available ? '' : status.textContent;
    // the first result shown is the widget's own, so that what this wrapper exports exists
    if (this.dataset.state !== 'ready' && main.dataset.state !== 'ready') {
      await new Promise((resolve) => main.addEventListener('lookback-ready', resolve, { once: true }));
    }
    if (changed) this.emit('lookback-change', { compare: on, models: labels });
  }

  // the added side: a copy of the widget inside (its attributes, and the synced ones as it shows them now) with
  // model = `with` and no model picker
  addSide(main) {
    const other = main.cloneNode(false);
    other.removeAttribute('id');
    for (const { name } of [...other.attributes]) if (name.startsWith('data-')) other.removeAttribute(name);   // the state of the original's view
    other.setAttribute('model', this.withName);
    other.setAttribute('no-picker', '');   // the page's "Use your own model" box stays on the widget inside alone
    other.slot = 'with';
    this.copySynced(main, other);
    this.other = other;
    main.before(other);
  }

  // [{ label, el }] of the sides shown that have computed, left first
  shownSides() {
    const sides = this.other ? [{ label: this.labels[0], el: this.other }, { label: this.labels[1], el: this.main }]
      : [{ label: this.labels?.[0], el: this.main }];
    return sides.filter(({ el }) => el?.dataset.state === 'ready' && typeof el.exportData === 'function');
  }

  exportData() {
    const sides = this.shownSides().map(({ label, el }) => ({ label, el, data: el.exportData() }));
    if (!sides.length) throw new Error('<lookback-compare>: nothing to export yet: the widget inside has not computed');
    const header = sides[0].data.csv[0];
    return {
      json: { compare: sides.length > 1, models: sides.map((s) => s.label),
        sides: sides.map((s) => ({ model: s.label, widget: s.el.localName, ...s.data.json })) },
      csv: [['model', ...header], ...sides.flatMap((s) => s.data.csv.slice(1).map((row) => [s.label, ...row]))],
    };
  }

  async exportCanvas() {
    const blocks = [];
    for (const { label, el } of this.shownSides()) blocks.push({ text: label, bold: true }, { picture: await el.exportCanvas() });
    return drawReport(this, { title: this.other ? 'Two models side by side' : 'One model', blocks });
  }
}

define('lookback-compare', CompareWidget);
export { CompareWidget };
