// The shared base of the lookback widgets: a shadow root styled from the chapter's CSS variables (with
// fallbacks, light and dark), computation through requestCompute with stale answers ignored, work paused while
// off screen, requestAnimationFrame coalescing of input, timing marks, and the save menu (PNG/SVG/JSON/CSV).
// Not a custom element itself, and it imports neither the API nor the worker.
import { requestCompute } from './compute-event.js';
import { canvasToPNG, downloadBlob, toCSV } from './export.js';
import { inPageWords } from './page-words.js';
import { pageCSS } from '../figures/svg.js';

const BASE_CSS = `
:host {
  --lb-panel: var(--panel, #f3f2ec); --lb-page: var(--bg, #fdfcf8); --lb-fg: var(--fg, #1d1d1f);
  --lb-muted: var(--muted, #55555f); --lb-accent: var(--accent, #2f5fd0); --lb-accent-2: var(--accent-2, #b03325);
  --lb-rule: var(--rule, #d6d5cc); --lb-focus: var(--focus, #f0a500); --lb-on-accent: #fff;
  --lb-font: var(--font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --lb-mono: var(--mono, ui-monospace, Menlo, Consolas, monospace);
  display: block; position: relative; margin: 1.4rem 0; padding: .9rem 1rem .8rem; border-radius: 10px;
  background: var(--lb-panel); color: var(--lb-fg); font: 15px/1.5 var(--lb-font); text-align: left;
  border: 1px solid var(--lb-rule); container-type: inline-size;
}
@media (prefers-color-scheme: dark) {
  :host {
    --lb-panel: var(--panel, #1f2127); --lb-page: var(--bg, #15161a); --lb-fg: var(--fg, #ececf1);
    --lb-muted: var(--muted, #a3a3b0); --lb-accent: var(--accent, #7fa6ff); --lb-accent-2: var(--accent-2, #ff8a7a);
    --lb-rule: var(--rule, #33353d); --lb-focus: var(--focus, #ffc94d); --lb-on-accent: #10131a;
  }
}
:host([hidden]) { display: none; }
/* A widget grows when it first computes: until that growth is laid out the browser's scroll anchoring must not pick
   a node inside it, or the growth moves everything under it (what the reader scrolled to) down the page. */
:host(:not([data-settled])) { overflow-anchor: none; }
@media (max-width: 420px) { :host { margin: .8rem 0; padding: .7rem .65rem .6rem; font-size: 14.5px; } }
* { box-sizing: border-box; }
.title { margin: 0 0 .5rem; font-size: 1rem; font-weight: 650; }
.hint { color: var(--lb-muted); font-size: .88rem; margin: .3rem 0; }
button, select, input { font: inherit; color: inherit; }
button {
  background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 6px; padding: .3rem .7rem;
  min-height: 34px; min-width: 34px; cursor: pointer; touch-action: manipulation;
}
button:hover { border-color: var(--lb-accent); }
button[aria-pressed="true"], button[aria-selected="true"], button[aria-checked="true"] {
  background: var(--lb-accent); color: var(--lb-on-accent); border-color: var(--lb-accent);
}
button:disabled { opacity: .55; cursor: default; }
input[type="text"] {
  background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 6px; padding: .25rem .45rem;
  min-height: 34px;
}
input[type="range"] { accent-color: var(--lb-accent); min-height: 30px; }
:focus-visible { outline: 3px solid var(--lb-focus); outline-offset: 2px; }
table.num { border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.num th, table.num td { padding: .2rem .5rem; border-bottom: 1px solid var(--lb-rule); text-align: right; }
table.num th:first-child, table.num td:first-child { text-align: left; }
table.num caption { text-align: left; color: var(--lb-muted); font-size: .85rem; padding-bottom: .2rem; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll.folded { max-height: 15rem; overflow-y: hidden;
  -webkit-mask-image: linear-gradient(to bottom, #000 75%, transparent); mask-image: linear-gradient(to bottom, #000 75%, transparent); }
button.fold { display: block; margin: .3rem 0 .5rem; font-size: .85rem; min-height: 30px; }
/* a tall widget on a phone shows its top (input, headline, the start of its picture) and unfolds on request */
:host([data-folded]) { max-height: var(--lb-fold, 15rem); overflow: hidden; }
:host([data-folded]) .hint { display: none; }  /* the folded top shows the widget's picture, not how to read it */
/* and its result first: a widget's headline (class "headline" on one of its top-level parts: a verdict, a measured
   sum) moves up under its title while the widget is folded */
:host([data-folded][data-lead]) { display: flex; flex-direction: column; }
:host([data-folded][data-lead]) > * { flex-shrink: 0; }   /* each part keeps its height: the fold cuts, nothing squeezes */
:host([data-folded][data-lead]) .title { order: -2; }
:host([data-folded][data-lead]) .headline { order: -1; }
.unfold { display: none; }
:host([data-folded]) .unfold, :host([data-unfolded]) .unfold { display: block; }
:host([data-folded]) .unfold { position: absolute; left: 0; right: 0; bottom: 0; z-index: 2; padding: 2.4rem .65rem .55rem;
  background: linear-gradient(to bottom, transparent, var(--lb-panel) 60%); }
/* a fold that ends at a whole part (data-fold-end) needs no fade: the bar hides what comes after that part */
:host([data-folded][data-fold-mark]) .unfold { padding-top: .7rem; background: var(--lb-panel); }
.unfold button { width: 100%; font-size: .88rem; font-weight: 600; }
:host([data-unfolded]) .unfold { margin-top: .6rem; }
.mono { font-family: var(--lb-mono); }
.row { display: flex; flex-wrap: wrap; gap: .45rem; align-items: center; }
.sr-only {
  position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; margin: -1px; padding: 0; border: 0;
}
/* the save menu: one small button in the widget's top right corner that opens the three formats */
.title { padding-right: 4.2rem; }
.export { position: absolute; top: .55rem; right: .6rem; z-index: 3; font-size: .8rem; }
.export summary { list-style: none; cursor: pointer; color: var(--lb-muted); border: 1px solid var(--lb-rule);
  border-radius: 6px; padding: .1rem .5rem; min-height: 30px; display: flex; align-items: center; gap: .25rem;
  background: var(--lb-page); user-select: none; }
.export summary::-webkit-details-marker { display: none; }
.export summary::after { content: "▾"; font-size: .75em; }
.export[open] summary { border-color: var(--lb-accent); color: var(--lb-fg); }
.export .menu { position: absolute; right: 0; top: calc(100% + .25rem); display: flex; flex-direction: column;
  gap: .2rem; padding: .35rem; min-width: 11rem; background: var(--lb-page); border: 1px solid var(--lb-rule);
  border-radius: 8px; box-shadow: 0 4px 14px rgb(0 0 0 / .16); }
.export .menu button { font-size: .85rem; min-height: 32px; text-align: left; border-color: transparent; }
.export .menu button:hover, .export .menu button:focus-visible { border-color: var(--lb-accent); }
.error { color: var(--lb-accent-2); font-weight: 600; }
.error:empty { display: none; }
p.error { margin: .5rem 0 0; }
.status { min-height: 1.5em; }
.chip { font-family: var(--lb-mono); font-size: .9em; display: inline-block; white-space: nowrap; border: 1px solid var(--lb-rule);
  border-radius: 4px; padding: .05em .2em; margin: 0 1px; }
.chip .sp { color: var(--lb-muted); }
/* figures of lookback/figures shown in a widget take the page's colours (light or dark); their cells keep the scale */
${pageCSS({ ink: 'var(--lb-fg)', muted: 'var(--lb-muted)', rule: 'var(--lb-rule)', paper: 'var(--lb-page)', hidden: 'var(--lb-panel)',
  accent: 'var(--lb-accent)', accent2: 'var(--lb-accent-2)' })}
`;

const sheets = new Map();
function sheet(css) {
  if (!sheets.has(css)) {
    const s = new CSSStyleSheet();
    s.replaceSync(css);
    sheets.set(css, s);
  }
  return sheets.get(css);
}

// One observer for all widgets: a widget computes only while it is on (or near) the screen.
let observer = null;
function visibility() {
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) e.target.setVisible(e.isIntersecting);
  }, { rootMargin: '120px 0px' });
  return observer;
}

// Canvases are drawn with the palette of the moment: redraw every widget when the system theme changes.
const live = new Set();
if (typeof matchMedia === 'function') {
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    for (const w of live) w.themeChanged();
  });
}

let serial = 0;
// Also thrown by a compute that finds, after an await, that the state it read has changed (what it would keep
// belongs to the older state): dropped like a stale answer, the newer state is computed next.
export const abortError = () => Object.assign(new Error('superseded by a newer computation'), { name: 'AbortError' });

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// One token display for every widget: a token's text as HTML, each space a muted ␣ and each line break ↵, to go
// inside an element of class "chip" (its own box, so where one piece ends and the next begins shows).
export function chipText(text) {
  return esc(text).replace(/ /g, '<span class="sp">\u2423</span>').replace(/\n/g, '<span class="sp">\u21b5</span>');
}

// A token as a chip: <span class="chip ..."> around chipText (attrs: extra attributes, already escaped).
export function chip(text, cls = '', attrs = '') {
  return `<span class="chip${cls ? ` ${cls}` : ''}"${attrs ? ` ${attrs}` : ''}>${chipText(text)}</span>`;
}

// A probability as a table of next tokens shows it: three decimals, and a small one to its first digit instead of a
// row of 0.000 (0.0004), under 0.0001 as "< 0.0001".
export function prob(p) {
  if (p >= 0.0005 || p <= 0) return fmt(p, 3);
  return p >= 0.0001 ? p.toFixed(4) : '< 0.0001';
}

// Fixed-point text without "-0.00".
export function fmt(x, digits = 2) {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '-∞' : 'NaN';
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

export function grouped(n) {
  return Math.round(n).toLocaleString('en-US');
}

// Reads a JSON attribute; a malformed one falls back (and says so once in the console as a warning).
export function jsonAttr(el, name, fallback, check = () => true) {
  const raw = el.getAttribute(name);
  if (raw === null || raw.trim() === '') return fallback;
  try {
    const v = JSON.parse(raw);
    if (check(v)) return v;
  } catch { /* fall through */ }
  console.warn(`<${el.localName}>: ignoring attribute ${name}="${raw}" (not the expected JSON)`);
  return fallback;
}

// The built-in set named by the element's `set` attribute: `fallback` when the attribute is absent, the table's
// own entry when there is one, else { missing } with a sentence naming the sets there are (never an inherited
// property such as "constructor" or "__proto__").
export function builtInSet(el, table, fallback) {
  const name = el.getAttribute('set');
  if (name === null || name === '') return { data: table[fallback] };
  if (Object.hasOwn(table, name)) return { data: table[name] };
  return { missing: `No such set "${name}" (built-in sets: ${Object.keys(table).join(', ')}).` };
}

// The element's own <script type="application/json"> child, parsed, when `check` accepts it; otherwise null
// (a malformed one is reported once in the console as a warning).
export function ownJson(el, what, check) {
  const own = el.querySelector('script[type="application/json"]');
  if (!own) return null;
  try {
    const data = JSON.parse(own.textContent);
    if (check(data)) return data;
  } catch (err) {
    console.warn(`<${el.localName}>: the ${what} JSON could not be read (${err.message})`);
    return null;
  }
  console.warn(`<${el.localName}>: the ${what} JSON is not the expected shape`);
  return null;
}

export { seeded } from './seeded.js';

// localStorage that never throws (private modes refuse it; then nothing is remembered).
export const storage = {
  get(key) {
    try { return JSON.parse(localStorage.getItem(key) || 'null'); } catch { return null; }
  },
  set(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* not remembered */ }
  },
  remove(key) {
    try { localStorage.removeItem(key); } catch { /* nothing to remove */ }
  },
};

// On a narrow screen a long table starts folded: its first rows show, and a button under it unfolds the rest
// (and folds it again). `box` is the table's .scroll box; it stays folded or open across recomputations.
const LONG_TABLE = 10;   // rows
export const narrow = () => typeof matchMedia === 'function' && matchMedia('(max-width: 600px)').matches;
export function foldLongTable(box) {
  const rows = box.querySelectorAll(':scope > table > tbody > tr').length;
  let toggle = box.nextElementSibling?.classList.contains('fold') ? box.nextElementSibling : null;
  const long = rows > LONG_TABLE;
  if (!long || (!toggle && !narrow())) {
    box.classList.remove('folded');
    toggle?.remove();
    return;
  }
  if (!toggle) {
    toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'fold';
    toggle.addEventListener('click', () => {
      box.classList.toggle('folded');
      foldLongTable(box);
      if (box.classList.contains('folded')) box.scrollIntoView({ block: 'nearest' });
    });
    box.after(toggle);
    box.classList.add('folded');
  }
  const folded = box.classList.contains('folded');
  toggle.textContent = folded ? `Show all ${rows} rows` : 'Show fewer rows';
  toggle.setAttribute('aria-expanded', String(!folded));
}

export function keyboardScrollable(el) {
  const scrolls = el.scrollWidth > el.clientWidth + 1;
  if (scrolls && !el.hasAttribute('tabindex')) {
    el.tabIndex = 0;
    el.setAttribute('role', 'region');
    const what = el.querySelector('caption')?.textContent.trim() || (el.matches('.formula') ? 'formula' : 'table');
    el.setAttribute('aria-label', `${what} (scrolls sideways)`);
  } else if (!scrolls && el.getAttribute('role') === 'region') {
    el.removeAttribute('tabindex');
    el.removeAttribute('role');
    el.removeAttribute('aria-label');
  }
}

// runs fn once the current changes have been laid out and painted (the frame after the next)
export const afterLayout = (fn) => requestAnimationFrame(() => requestAnimationFrame(fn));

const FOLD_ABOVE = 560;  // px: a widget taller than this on a phone starts folded
const FOLD_STRETCH = 40;  // px: a fold ending across a control grows by this much at most to show it whole
const CONTROLS = 'button, select, input, textarea, summary';

export class LookbackWidget extends HTMLElement {
  // Subclasses: static css, static title; build() once; compute() (async, may call this.ask); exportData()
  // -> {json, csv}; exportCanvas() -> canvas.
  static css = '';

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    this.root.adoptedStyleSheets = [sheet(BASE_CSS), sheet(this.constructor.css)];
    this.key = `${this.localName}#${++serial}`;
    this._gen = 0;
    this._visible = false;
    this._dirty = true;
    this._frame = 0;
    this._micro = false;
    this._marked = false;
    this._measures = 0;
  }

  connectedCallback() {
    if (!this._built) {
      this._built = true;
      this.build();
      this.root.append(this.exportBar(), this.unfoldBar());
      this._scrollers = new ResizeObserver((entries) => entries.forEach((e) => keyboardScrollable(e.target)));
    }
    this.watchScrollers();
    visibility().observe(this);
    live.add(this);
  }

  // Subclasses that draw on a canvas redraw here (the default calls draw() if there is one).
  themeChanged() {
    this.draw?.();
  }

  // Tables that may scroll sideways on a narrow screen become focusable while they do (so the keyboard can scroll them).
  watchScrollers() {
    for (const el of this.root.querySelectorAll('.scroll')) {
      if (!el._watched) {
        el._watched = true;
        this._scrollers.observe(el);
      }
    }
  }

  disconnectedCallback() {
    live.delete(this);
    visibility().unobserve(this);
    this.setVisible(false);
  }

  setVisible(on) {
    this._visible = on;
    this.toggleAttribute('data-paused', !on);
    if (!on && this._frame) {
      cancelAnimationFrame(this._frame);
      this._frame = 0;
      this._dirty = true;
    }
    if (on && this._dirty) this.schedule(true);
  }

  // Something changed: recompute on the next frame (continuous input) or at the end of this task (discrete
  // input, `now`); many changes before then make one computation. Off screen, it only remembers.
  invalidate({ now = false } = {}) {
    this._dirty = true;
    if (this._visible) this.schedule(now);
  }

  schedule(now) {
    if (now) {
      if (this._frame) {
        cancelAnimationFrame(this._frame);
        this._frame = 0;
      }
      if (!this._micro) {
        this._micro = true;
        queueMicrotask(() => {
          this._micro = false;
          this._run();
        });
      }
    } else if (!this._frame && !this._micro) {
      this._frame = requestAnimationFrame(() => {
        this._frame = 0;
        this._run();
      });
    }
  }

  // One computation at a time: input that arrives meanwhile only marks the widget dirty, and the newest state is
  // computed as soon as the running one has been displayed (so a slow machine shows fewer updates, never none).
  async _run() {
    if (!this._dirty || !this._visible || !this.isConnected || this._busy) return;
    this._busy = true;
    this._dirty = false;
    const gen = ++this._gen;
    try {
      await this.compute();
      if (gen === this._gen) this._rendered();
    } catch (err) {
      if (err?.name !== 'AbortError') this.showError(err);
    } finally {
      this._busy = false;
      if (this._dirty && this._visible) this.schedule(true);
    }
  }

  // One request to the core; its answer is dropped (AbortError) if a newer computation started meanwhile,
  // unless `keep` (for work that does not depend on the live state).
  // onProgress(value) receives what the operation reports on the way (loadModel: {loaded, total} bytes).
  ask(op, args, name = op, { keep = false, onProgress } = {}) {
    const gen = this._gen;
    return requestCompute(this, op, args, `${this.key}:${name}`, { onProgress }).then((r) => {
      if (!keep && gen !== this._gen) throw abortError();
      return r;
    });
  }

  // Called by subclasses at the moment of user input; the next render measures input -> display.
  markInput() {
    performance.mark(`lookback:input:${this.key}`);
    this._marked = true;
  }

  // On a phone a widget much taller than the screen's third starts folded to its top part, with a button at its
  // foot that shows the rest (and folds it again); keyboard focus that lands in the hidden part unfolds it.
  unfoldBar() {
    const bar = document.createElement('div');
    bar.className = 'unfold';
    bar.innerHTML = '<button type="button" aria-expanded="false"></button>';
    const button = bar.firstChild;
    button.addEventListener('click', () => {
      const open = this.hasAttribute('data-folded');
      this._unfolded = open;
      this.fitToPhone();
      if (!open) this.scrollIntoView({ block: 'nearest' });
    });
    this.root.addEventListener('focusin', (e) => {
      if (!this.hasAttribute('data-folded') || bar.contains(e.target)) return;
      const r = e.target.getBoundingClientRect(), host = this.getBoundingClientRect();
      if (r.bottom > host.bottom - bar.offsetHeight) {
        this._unfolded = true;
        this.fitToPhone();
      }
    });
    this._unfoldButton = button;
    return bar;
  }

  // Shows all of a folded widget: a widget calls it when what an action of the reader's produces lies under its fold.
  unfold() {
    if (!this.hasAttribute('data-folded')) return;
    this._unfolded = true;
    this.fitToPhone();
  }

  fitToPhone() {
    const button = this._unfoldButton;
    if (!button) return;
    const fold = narrow() && !this._unfolded && this.scrollHeight > FOLD_ABOVE;
    this.toggleAttribute('data-folded', fold);
    this.toggleAttribute('data-lead', fold && [...this.root.children].some((el) => el.classList.contains('headline')));
    this.toggleAttribute('data-unfolded', narrow() && !fold && this._unfolded === true);
    // a widget may mark the part its folded top must show whole (data-fold-end on it: the first row of maps, the first
    // stage of a figure): the fold then ends under that part, with the button below it instead of over it
    const end = fold ? this.root.querySelector('[data-fold-end]') : null;
    this.toggleAttribute('data-fold-mark', !!end);
    if (end) {
      const cs = getComputedStyle(this), px = (v) => parseFloat(v) || 0;
      // the whole height: down to the part's foot, then the button (at the foot of the padding box) and the border
      const whole = end.getBoundingClientRect().bottom - this.getBoundingClientRect().top + button.parentElement.offsetHeight + px(cs.borderBottomWidth);
      const frame = cs.boxSizing === 'border-box' ? 0 : px(cs.borderTopWidth) + px(cs.paddingTop) + px(cs.paddingBottom) + px(cs.borderBottomWidth);
      this.style.setProperty('--lb-fold', `${Math.ceil(whole - frame + 1)}px`);
      this._watchFold(end);
    } else {
      this.style.removeProperty('--lb-fold');
      this._foldWatch?.disconnect();
      this._foldEnd = null;
      if (fold) this._foldClearOfControls(button.parentElement);
    }
    button.textContent = fold ? `Show all of this widget ▾` : 'Fold this widget ▴';
    button.setAttribute('aria-expanded', String(!fold));
  }

  // A fold at the default height may end across a control (a text box, a button, a row of cells): half of it would
  // show above the bar. The fold moves to the near side of it: down, when a few pixels show it whole; else up, so
  // it lies wholly under the bar.
  _foldClearOfControls(bar) {
    for (let i = 0; i < 4; i++) {
      const line = bar.getBoundingClientRect().top;
      const cut = [...this.root.querySelectorAll(CONTROLS)]
        .filter((c) => !bar.contains(c) && (c.checkVisibility?.({ visibilityProperty: true }) ?? c.getClientRects().length > 0))
        .map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0 && r.top < line - 0.5 && r.bottom > line + 0.5);
      if (!cut.length) return;
      const down = Math.max(...cut.map((r) => r.bottom)) - line + 2, up = line - Math.min(...cut.map((r) => r.top)) + 2;
      const now = parseFloat(getComputedStyle(this).maxHeight);
      this.style.setProperty('--lb-fold', `${Math.ceil(down <= FOLD_STRETCH ? now + down : now - up)}px`);
    }
  }

  // The marked part moves when a part above it changes height without a new render (a status line that wraps
  // once it says more, a legend that grows): the fold is measured again then, so it still ends under that part.
  _watchFold(end) {
    if (this._foldEnd === end) return;
    this._foldEnd = end;
    const above = [...this.root.children].filter((c) => c === end || c.contains(end)
      || (c.compareDocumentPosition(end) & Node.DOCUMENT_POSITION_FOLLOWING));
    this._foldWatch?.disconnect();
    let frame = 0;
    this._foldWatch = new ResizeObserver(() => {
      if (!frame) frame = requestAnimationFrame(() => { frame = 0; if (this.hasAttribute('data-folded')) this.fitToPhone(); });
    });
    above.forEach((c) => this._foldWatch.observe(c));
  }

  _rendered() {
    this.root.querySelectorAll('.scroll').forEach(foldLongTable);
    this.fitToPhone();
    // new content may have changed which tables scroll; check once things settle
    clearTimeout(this._scrollCheck);
    this._scrollCheck = setTimeout(() => {
      this.watchScrollers();
      this.root.querySelectorAll('.scroll').forEach(keyboardScrollable);
    }, 150);
    if (this.dataset.state !== 'ready') {
      this.dataset.state = 'ready';
      afterLayout(() => this.toggleAttribute('data-settled', true));
      performance.mark(`lookback:ready:${this.localName}`);
      this.dispatchEvent(new CustomEvent('lookback-ready', { bubbles: true, composed: true }));
    }
    if (this._marked) {
      this._marked = false;
      const name = `lookback:update:${this.localName}`;
      if (++this._measures % 400 === 0) performance.clearMeasures(name);
      performance.measure(name, `lookback:input:${this.key}`);
    }
    this.showError(null);
  }

  showError(err) {
    const el = this.root.querySelector('.error');
    if (err) console.error(err);
    if (el) el.textContent = err ? `Could not compute: ${inPageWords(err.message)}` : '';
    this.toggleAttribute('data-error', !!err);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
  }

  // The save menu (PNG, JSON, CSV), the same small menu in every widget, with SVG in the widgets whose picture
  // lookback/figures draws (they have figure()); a failed export says why in the widget's error line.
  exportBar() {
    const menu = document.createElement('details');
    menu.className = 'export';
    menu.innerHTML = `<summary aria-label="Save this view">Save</summary>
      <div class="menu" role="group" aria-label="Save this view">
        <button type="button" data-format="png" aria-label="Save the current view as a PNG image">Picture (PNG)</button>${
  typeof this.figure === 'function' ? `
        <button type="button" data-format="svg" aria-label="Save the figure as an SVG image">Figure (SVG)</button>` : ''}
        <button type="button" data-format="json" aria-label="Save the numbers as JSON">Numbers (JSON)</button>
        <button type="button" data-format="csv" aria-label="Save the numbers as CSV">Table (CSV)</button></div>`;
    menu.addEventListener('click', (e) => {
      const format = e.target.closest('button')?.dataset.format;
      if (!format) return;
      menu.open = false;
      menu.querySelector('summary').focus();
      this.download(format).catch((err) => this.showError(err));
    });
    menu.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && menu.open) {
        e.preventDefault();
        e.stopPropagation();
        menu.open = false;
        menu.querySelector('summary').focus();
      }
    });
    // a click anywhere else closes it
    menu.addEventListener('toggle', () => {
      if (!menu.open) return;
      const away = (e) => {
        if (!e.composedPath().includes(menu)) {
          menu.open = false;
          document.removeEventListener('pointerdown', away, true);
        }
      };
      document.addEventListener('pointerdown', away, true);
    });
    const error = document.createElement('p');
    error.className = 'error';
    error.setAttribute('role', 'alert');
    const frag = document.createDocumentFragment();
    frag.append(error, menu);
    return frag;
  }

  // The exports describe the last computed view; before the first there is none, and they say so.
  exported() {
    if (this.dataset.state !== 'ready') {
      throw new Error(`<${this.localName}>: nothing to export yet: a widget computes once it is on screen (wait for its lookback-ready event)`);
    }
  }

  async exportPNG() {
    this.exported();
    return canvasToPNG(await this.exportCanvas());
  }

  // The figure as a standalone SVG file: figure()'s string (lookback/figures, light on white, with its title and
  // description), byte for byte the file `npx lookback … --svg` writes for the same input.
  exportSVG() {
    this.exported();
    return `${this.figure()}\n`;
  }

  exportJSON() {
    this.exported();
    return `${JSON.stringify({ widget: this.localName, ...this.exportData().json }, null, 2)}\n`;
  }

  exportCSV() {
    this.exported();
    return toCSV(this.exportData().csv);
  }

  // Emits a cancelable `lookback-export` {format, blob, filename}; unless cancelled, the browser saves the file.
  async download(format) {
    const TEXT = { svg: ['exportSVG', 'image/svg+xml'], json: ['exportJSON', 'application/json'], csv: ['exportCSV', 'text/csv'] };
    const blob = format === 'png' ? await this.exportPNG() : new Blob([this[TEXT[format][0]]()], { type: TEXT[format][1] });
    const filename = `${this.localName.replace(/^lookback-/, '')}.${format}`;
    const ev = new CustomEvent('lookback-export', { bubbles: true, composed: true, cancelable: true,
      detail: { format, blob, filename } });
    if (this.dispatchEvent(ev)) downloadBlob(blob, filename);
    return blob;
  }
}

export function define(name, cls) {
  if (!customElements.get(name)) customElements.define(name, cls);
}
