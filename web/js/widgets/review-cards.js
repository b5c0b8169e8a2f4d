// <lookback-review-cards>: flash cards to review the chapter: read the question, try to answer, turn the card,
// mark it "knew it" or "again"; which cards are known is kept in localStorage (attribute deck-id). Built-in deck
// via set="production", or the author's own in a child <script type="application/json">. Where a card quotes a
// softmax, the core computes it. Not spaced repetition with dates: cards you did not know simply come first.
import { LookbackWidget, builtInSet, define, esc, fmt, ownJson, storage } from './widget-kit.js';
import { drawReport } from './export.js';

export const DECKS = {
  production: {
    title: 'Flashcards: attention in production',
    cards: [
      { id: 'quadratic', front: 'Double the context. What happens to the attention scores per head?',
        back: 'They quadruple. Every token is scored against every earlier token: about T²/2 comparisons, and a T × T score matrix per head per layer.' },
      { id: 'flash', front: 'What does FlashAttention-style tiling save, and what does it not?',
        back: 'It never stores the whole T × T score matrix: the scores no longer take quadratic memory. Memory still grows with the length (queries, keys, values, outputs), and when generating, the cache of keys and values grows with the context. It still computes every score: the compute stays quadratic.' },
      { id: 'silent-mask', front: 'How does a broken causal mask show itself?',
        back: 'It does not, at first: training loss drops suspiciously low because each position can see the token it must predict, and generation is useless. The leak test catches it: change a later token; no earlier output may change.' },
      { id: 'not-explanations', front: 'Are attention weights an explanation of a prediction?',
        back: 'No. They show where a head looked, not what the prediction depends on. To find out, change or remove a token and watch the output.' },
      { id: 'sink', front: 'A head gives 80% of its weight to the start mark ◆. Is ◆ important?',
        back: 'Probably not. Weights must sum to 1; a head with nothing to fetch parks them on ◆, a token whose value does little. High weight is not importance.' },
      { id: 'overflow', front: 'Why does a softmax subtract the largest score before taking e^x?',
        back: 'e^x overflows float32 above x ≈ 88. Subtracting the maximum changes no weight and keeps every term at most 1. Scores 1000 and 999, computed now: {weights}.',
        live: { softmax: [1000, 999] } },
      { id: 'empty-row', front: 'What should a softmax do with a row where every score is masked?',
        back: 'All scores are −∞, so a naive softmax computes 0/0 = NaN, and NaN spreads through everything after it. Careful code returns zeros for that row and flags it. Computed now: {weights} with {empty} empty row.',
        live: { softmax: [0, 0, 0], mask: [0, 0, 0] } },
      { id: 'soft-dictionary', front: 'In what sense is attention a soft dictionary?',
        back: 'An infinitely sharp softmax returns the value of the key most similar to the query: a lookup of the nearest key, which need not match the query exactly as a dictionary key must. Keeping it soft gives every key a little weight, so every key gets a gradient and the lookup can be learned. Scores 2, 1, 0.5 at temperature 0.05, computed now: {weights}.',
        live: { softmax: [2, 1, 0.5], temperature: 0.05 } },
      { id: 'sqrt-d', front: 'Why divide the scores by √d?',
        back: 'Dot products of d random numbers spread like √d. Without the division, wide heads start with a saturated softmax, whose gradients are tiny; with it, the spread stays near 1 whatever d is.' },
      { id: 'myth-long', front: 'Myth or reality: "once a model is trained, a longer context costs nothing extra".',
        back: 'Myth. Every new token is compared with every token before it, so each step of generation costs more as the text grows, and the cache of keys and values grows with it.' },
    ],
  },
};

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
