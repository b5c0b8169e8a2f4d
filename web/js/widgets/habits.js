// <lookback-habits>: every head's measured habits, each beside what an even spread gives: average weight on
// the previous token, on tokens 4 or more back (◆ not counted) and on the start mark ◆, from the model card (measured over
// held-out texts), and recomputed live in the worker over the card's sample of held-out stories, one story at a
// time with a progress bar, so the live averages can be watched approaching the card's. Not the measurement
// itself (the core's headScores) and not an explanation of what the heads do.
import { define, fmt } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { habit, headName } from './model-view.js';
import { cardHabits, habitsMap } from '../figures/index.js';

// [the card's key, the same measure's key in headScores() (its camelCase), the column's title]
const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const HABITS = [['previous_token', 'previous token'], ['four_or_more_back', '4 or more back (not ◆)'], ['start_mark', 'start mark ◆']]
  .map(([card, title]) => [card, camel(card), title]);

const NARROW = 600;   // px: a figure this narrow or narrower draws its maps in one column (as the container query below)

const CSS = `
progress { width: 12rem; vertical-align: middle; }
td.live { color: var(--lb-accent); }
th small { font-weight: 400; color: var(--lb-muted); }
.figure svg { width: 100%; height: auto; display: block; }
/* a narrow widget: the maps one under another at their own size, so the numbers in their cells stay readable */
@container (max-width: 600px) { .figure svg { width: auto; max-width: 100%; } }
details { margin-top: .5rem; }
summary { cursor: pointer; }
`;

/**
 * @attr stories - how many of the card's held-out stories the live recompute uses
 * @attr model - the model: `sprout`, `window` or `current` (default)
 */
class Habits extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['stories', 'model'];

  constructor() {
    super();
    this.live = null;
    this.card = undefined;
  }

  attributeChangedCallback(name) {
    this.live = null;
    if (name === 'model') this.card = undefined;   // another model's card
    if (this._built) this.invalidate({ now: true });
  }

  modelChanged() {
    this.live = null;
    this.card = undefined;
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Measured habits of every head</p>
      <div class="figure"></div>
      <details class="numbers"><summary>The numbers: every head, from the card and recomputed live</summary>
      <div class="row"><button type="button" class="again">Recompute live</button>
        <progress max="1" value="0" aria-label="live recompute progress"></progress><span class="progress-text" aria-live="polite"></span></div>
      <p class="hint source"></p>
      <div class="scroll"><table class="num habits"></table></div></details>`;
    this.root.querySelector('.again').addEventListener('click', () => {
      this.markInput();
      this.live = null;
      this.invalidate({ now: true });
    });
  }

  async compute() {
    if (this.card === undefined) this.card = await this.modelCard();
    const texts = this.card?.validation?.sample?.texts;
    if (!this.card?.heads || !Array.isArray(texts)) {
      this.root.querySelector('.source').textContent = 'This model has no card: nothing measured to show or to recompute.';
      this.render();
      return;
    }
    if (!this.live) this.live = this.freshLive(texts);
    this.render();
    this.resume();
  }

  setVisible(on) {
    super.setVisible(on);
    if (on && this.live) this.resume();
  }

  freshLive(texts) {
    const max = Number.parseInt(this.getAttribute('stories') ?? '', 10);
    const list = texts.slice(0, Number.isFinite(max) && max > 0 ? max : texts.length);
    return { list, next: 0, used: 0, skipped: 0, H: 0,
      acc: Object.fromEntries(HABITS.map(([, k]) => [k, { sum: null, count: 0, evenSum: 0 }])) };
  }

  // The live recompute: one story per request, averages weighted by each habit's count, the table redrawn after
  // each story. It runs only while the widget is on screen and resumes where it stopped.
  async resume() {
    const live = this.live;
    if (this._loop === live || live.next >= live.list.length) return;
    this._loop = live;
    const bar = this.root.querySelector('progress'), note = this.root.querySelector('.progress-text');
    bar.max = live.list.length;
    this.dataset.live = 'running';
    try {
      while (live.next < live.list.length && this._visible && this.isConnected && this.live === live) {
        bar.value = live.next;
        note.textContent = `${live.next} of ${live.list.length} stories`;
        let r = null;
        try {
          r = await this.askModel('headScores', [[live.list[live.next]], { repeats: 0 }], 'habits', { keep: true });
        } catch (err) {
          if (!/context holds/.test(err?.message)) throw err;   // longer than the context: left out, and said so
        }
        if (this.live !== live) return;
        live.next++;
        if (r) this.add(live, r);
        else live.skipped++;
        this.render();
      }
    } catch (err) {
      if (err?.name !== 'AbortError') this.showError(err);
    } finally {
      if (this._loop === live) this._loop = null;
    }
    const done = live.next >= live.list.length;
    if (this.live === live) this.dataset.live = done ? 'done' : 'paused';
    bar.value = live.next;
    note.textContent = `${live.used} of ${live.list.length} stories${done ? '' : ' so far (paused off screen)'}`
      + `${live.skipped ? ` (${live.skipped} longer than the context, left out)` : ''}`;
  }

  add(live, r) {
    live.used++;
    live.H = r.heads;
    for (const [, k] of HABITS) {
      const h = r[k], a = live.acc[k];
      const flat = h.byLayer.flat();
      a.sum ??= flat.map(() => 0);
      flat.forEach((x, j) => { a.sum[j] += x * h.count; });
      a.evenSum += h.even * h.count;
      a.count += h.count;
    }
  }

  liveValue(k, l, h) {
    const a = this.live?.acc[k];
    return a?.count ? a.sum[l * this.live.H + h] / a.count : null;
  }

  liveEven(k) {
    const a = this.live?.acc[k];
    return a?.count ? a.evenSum / a.count : null;
  }

  rows() {
    const c = this.card?.heads;
    if (!c) return [];
    const out = [];
    for (let l = 0; l < c.layers; l++) {
      for (let h = 0; h < c.heads; h++) {
        out.push({ head: headName(l, h), ...Object.fromEntries(HABITS.flatMap(([key, k]) => [[key, habit(this.card, key, l, h)],
          [`${key}_live`, this.liveValue(k, l, h)]])) });
      }
    }
    return out;
  }

  render() {
    const c = this.card?.heads;
    const table = this.root.querySelector('table.habits');
    const fig = this.root.querySelector('.figure');
    if (!c) {
      table.innerHTML = '';
      fig.innerHTML = '';
      return;
    }
    // drawn once per card and layout: the live numbers go to the table
    const width = fig.clientWidth, narrow = width > 0 && width <= NARROW;
    const drawn = `${this.modelKey} ${narrow ? width : 'wide'}`;
    if (fig.dataset.card !== drawn) {
      // (narrow: cells of 31 px, whose numbers are drawn at 10 px or more)
      fig.innerHTML = narrow ? habitsMap({ habits: this.habitList(), maxWidth: width, cell: 31 }) : this.figure();
      fig.dataset.card = drawn;
      // folded on a phone, the widget shows the first map whole, down to its legend with the even spread marked
      fig.querySelector('g.habit g.legend')?.setAttribute('data-fold-end', '');
    }
    const ev = this.card.evaluation;
    this.root.querySelector('.source').textContent = `Card: averaged over ${ev?.head_texts ?? 'the'} held-out texts. `
      + `Live: the card's sample of ${this.card.validation.sample.texts.length} held-out stories, measured as you watch. `
      + 'Each is the average weight per query; "even" is what spreading the weight evenly over the visible tokens would give.';
    const live = (v) => (v === null ? '…' : fmt(v, 3));
    table.innerHTML = `<caption>Average weight per head (layer.head, counting from 1): card, and live</caption>
      <thead><tr><th scope="col">head</th>${HABITS.map(([key, k, label]) => `<th scope="col">${label}<br><small>card (even ${fmt(c[key].even, 3)})</small></th>
        <th scope="col">${label}<br><small>live (even ${live(this.liveEven(k))})</small></th>`).join('')}</tr></thead>
      <tbody>${this.rows().map((r) => `<tr data-head="${r.head}"><td>${r.head}</td>${HABITS.map(([key]) => `<td class="card" data-habit="${key}">${fmt(r[key], 3)}</td>
        <td class="live" data-habit="${key}">${live(r[`${key}_live`])}</td>`).join('')}</tr>`).join('')}</tbody>`;
  }

  /** the card's habits as heat maps (lookback/figures' habitsMap: what `lookback heads --habits` draws) */
  figure() {
    return habitsMap({ habits: this.habitList() });
  }

  habitList() {
    return cardHabits(this.card, [...HABITS.map(([key]) => key), 'induction']);
  }

  exportData() {
    const rows = this.rows();
    const keys = HABITS.flatMap(([key]) => [key, `${key}_live`]);
    return { json: { stories: this.live ? { used: this.live.used, of: this.live.list.length } : null, heads: rows },
      csv: [['head', ...keys], ...rows.map((r) => [r.head, ...keys.map((k) => r[k] ?? '')])] };
  }

  exportCanvas() {
    const rows = this.rows();
    return drawReport(this, {
      title: 'Measured habits of every head (card | live)',
      blocks: [{ table: { header: ['head', ...HABITS.flatMap(([, , l]) => [`${l} card`, 'live'])],
        rows: rows.map((r) => [r.head, ...HABITS.flatMap(([key]) => [fmt(r[key], 3), r[`${key}_live`] === null ? '…' : fmt(r[`${key}_live`], 3)])]) } }],
    });
  }
}

define('lookback-habits', Habits);
export { Habits };
