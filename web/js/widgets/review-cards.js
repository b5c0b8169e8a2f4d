// <lookback-review-cards>: flash cards to review the chapter: read the question, try to answer, turn the card,
// mark it "knew it" or "again"; which cards are known is kept in localStorage (attribute deck-id). Built-in deck
// via set="production", or the author's own in a child <script type="application/json">. Where a card quotes a
// softmax, the core computes it. Not spaced repetition with dates: cards you did not know simply come first.
import { LookbackWidget, builtInSet, define, esc, fmt, ownJson, storage } from './widget-kit.js';
import { drawReport } from './export.js';
import DECKS from './content/review-decks.js';

// the built-in decks: content/review-decks.json
export { DECKS };

const CSS = `
.card { background: var(--lb-page); border: 1px solid var(--lb-rule); border-radius: 10px; padding: 1rem 1.1rem;
  min-height: 9rem; display: flex; flex-direction: column; gap: .6rem; }
.card[data-known="true"] { border-color: var(--lb-accent); }
.front { font-weight: 600; font-size: 1.05rem; margin: 0; }
.back { margin: 0; }
.back[hidden] { display: none; }
.meta { display: flex; justify-content: space-between; flex-wrap: wrap; gap: .4rem; color: var(--lb-muted); font-size: .85rem; }
.progress { height: 6px; background: var(--lb-rule); border-radius: 3px; overflow: hidden; margin: .5rem 0; }
.progress span { display: block; height: 100%; background: var(--lb-accent); width: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .6rem; }
`;

/**
 * @attr set - a built-in deck
 * @attr deck-id - the key under which progress is kept in localStorage (default: the set)
 * @fires lookback-review - the reader marked a card (detail {card, knew, known})
 */
class ReviewCards extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['set', 'deck-id'];

  constructor() {
    super();
    this.live = new Map();
  }

  get storageKey() {
    return `lookback.cards.${this.getAttribute('deck-id') || this.getAttribute('set') || 'default'}`;
  }

  loadDeck() {
    const data = ownJson(this, 'cards', (d) => Array.isArray(d?.cards));
    if (data) return { data: { ...data, cards: data.cards.map((c, i) => ({ id: String(c.id ?? i), ...c })) } };
    return builtInSet(this, DECKS, 'production');
  }

  attributeChangedCallback() {
    if (this._built) {
      this.live.clear();
      this.build();
      this.root.append(this.exportBar());
      this.invalidate({ now: true });
    }
  }

  build() {
    const { data, missing } = this.loadDeck();
    this.deck = data || { title: 'Flashcards', cards: [] };
    this.missing = missing;
    if (missing) {
      this.root.innerHTML = `<p class="title">Flashcards</p><p class="missing" role="status">${esc(missing)}</p>`;
      return;
    }
    const saved = storage.get(this.storageKey) || {};
    this.known = saved.known || {};
    this.index = Math.min(Math.max(0, saved.index || 0), this.deck.cards.length - 1);
    this.open = false;
    this.root.innerHTML = `<p class="title">${esc(this.deck.title || 'Flashcards')}</p>
      <div class="meta"><span class="pos" aria-live="polite"></span><span class="known-count"></span></div>
      <div class="progress" role="progressbar" aria-label="cards known" aria-valuemin="0"><span></span></div>
      <div class="card" role="group" aria-roledescription="card" tabindex="0">
        <p class="front"></p>
        <p class="back" hidden aria-live="polite"></p>
      </div>
      <div class="actions">
        <button type="button" class="flip" aria-expanded="false">Show answer</button>
        <button type="button" class="knew" disabled>I knew it</button>
        <button type="button" class="again" disabled>Again</button>
        <span style="flex:1"></span>
        <button type="button" class="prev" aria-label="Previous card">←</button>
        <button type="button" class="next" aria-label="Next card">→</button>
        <button type="button" class="reset">Start over</button>
      </div>
      <p class="hint">Keys on the card: Space turns it, ← and → move, K for "knew it", A for "again".</p>`;
    const on = (sel, fn) => this.root.querySelector(sel).addEventListener('click', fn);
    on('.flip', () => this.flip());
    on('.knew', () => this.mark(true));
    on('.again', () => this.mark(false));
    on('.prev', () => this.go(this.index - 1));
    on('.next', () => this.go(this.index + 1));
    on('.reset', () => {
      this.known = {};
      this.index = 0;
      this.open = false;
      this.save();
      this.show();
    });
    this.root.querySelector('.card').addEventListener('keydown', (e) => {
      const act = { ' ': () => this.flip(), Enter: () => this.flip(), ArrowRight: () => this.go(this.index + 1),
        ArrowLeft: () => this.go(this.index - 1), k: () => this.open && this.mark(true), a: () => this.open && this.mark(false) }[e.key];
      if (!act) return;
      e.preventDefault();
      act();
    });
    this.show();
  }

  save() {
    storage.set(this.storageKey, { known: this.known, index: this.index });
  }

  flip() {
    this.open = !this.open;
    this.show();
  }

  go(i) {
    const n = this.deck.cards.length;
    this.index = (i + n) % n;
    this.open = false;
    this.save();
    this.show();
  }

  // Marks the card, then moves to the next card not yet known (or the next card when all are known).
  mark(knew) {
    const cards = this.deck.cards;
    this.known[cards[this.index].id] = knew;
    const n = cards.length;
    let next = (this.index + 1) % n;
    for (let s = 1; s <= n; s++) {
      const j = (this.index + s) % n;
      if (!this.known[cards[j].id]) { next = j; break; }
    }
    this.emit('lookback-review', { card: cards[this.index].id, knew, known: this.knownCount() });
    this.index = next;
    this.open = false;
    this.save();
    this.show();
    this.root.querySelector('.card').focus();
  }

  knownCount() {
    return this.deck.cards.filter((c) => this.known[c.id]).length;
  }

  async compute() {
    const { deck } = this;
    await Promise.all(deck.cards.map(async (c) => {
      if (!c.live?.softmax || this.live.has(c.id)) return;
      const x = Float32Array.from(c.live.softmax);
      const opts = { rows: 1, cols: x.length, temperature: c.live.temperature ?? 1 };
      if (c.live.mask) opts.mask = Uint8Array.from(c.live.mask);
      const r = await this.ask('softmax', [x, opts], `live-${c.id}`);
      if (this.deck === deck) this.live.set(c.id, r);   // not if another deck came meanwhile
    }));
    this.show();
  }

  backText(card) {
    const r = this.live.get(card.id);
    if (!card.back.includes('{')) return card.back;
    if (!r) return card.back.replace(/\{weights\}/g, '(computing…)').replace(/\{empty\}/g, '?');
    return card.back.replace(/\{weights\}/g, `(${Array.from(r.weights, (w) => fmt(w, 3)).join(', ')})`)
      .replace(/\{empty\}/g, String(r.emptyRows));
  }

  show() {
    if (this.missing) return;
    const cards = this.deck.cards, card = cards[this.index], n = cards.length, k = this.knownCount();
    const q = (s) => this.root.querySelector(s);
    q('.pos').textContent = `Card ${this.index + 1} of ${n}`;
    q('.known-count').textContent = `${k} of ${n} known`;
    const bar = q('.progress');
    bar.setAttribute('aria-valuemax', String(n));
    bar.setAttribute('aria-valuenow', String(k));
    bar.querySelector('span').style.width = `${(100 * k) / n}%`;
    q('.front').textContent = card.front;
    const back = q('.back');
    back.textContent = this.backText(card);
    back.hidden = !this.open;
    const el = q('.card');
    el.dataset.known = String(!!this.known[card.id]);
    el.setAttribute('aria-label', `Card ${this.index + 1} of ${n}${this.known[card.id] ? ', known' : ''}`);
    q('.flip').textContent = this.open ? 'Hide answer' : 'Show answer';
    q('.flip').setAttribute('aria-expanded', String(this.open));
    q('.knew').disabled = !this.open;
    q('.again').disabled = !this.open;
    this.dataset.known = String(k);
    this.dataset.card = card.id;
  }

  exportData() {
    const rows = this.deck.cards.map((c) => ({ id: c.id, front: c.front, back: this.backText(c), known: !!this.known[c.id] }));
    return { json: { deck: this.storageKey, known: this.knownCount(), total: rows.length, current: this.deck.cards[this.index]?.id ?? null, cards: rows },
      csv: [['id', 'front', 'back', 'known'], ...rows.map((r) => [r.id, r.front, r.back, r.known])] };
  }

  exportCanvas() {
    const card = this.deck.cards[this.index];
    if (!card) return drawReport(this, { title: 'Flashcards', blocks: [{ text: this.missing }] });
    return drawReport(this, {
      title: this.deck.title || 'Flashcards',
      blocks: [
        { text: `Card ${this.index + 1} of ${this.deck.cards.length} (${this.knownCount()} known)`, size: 12 },
        { text: card.front, bold: true },
        { text: this.open ? this.backText(card) : '(answer hidden)' },
      ],
    });
  }
}

define('lookback-review-cards', ReviewCards);
export { ReviewCards };
