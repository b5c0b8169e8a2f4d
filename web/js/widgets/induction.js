// <lookback-induction>: a made-up name said twice (the reader can type their own). For each token of the
// name, the probability the model gave it the first time and the second time, and the loss on each; the loss per
// piece over the pieces that can be copied (the card's measure, all but the first piece); and the
// weight the card's best induction head puts, from each token of the second copy, on the token that followed
// the same token in the first copy. Not the model: the `model` compute op (ModelWidget); the card names the head.
import { chip, define, esc, fmt } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { bestHead, nameCopies, shown, tokenProbability } from './model-view.js';

const TEMPLATE = 'In the forest lived a tiny creature named {name}. Every morning, {name} sang to the birds.';

const CSS = `
.row input { width: 12rem; }
td.t { font-family: var(--lb-mono); white-space: pre; }
.sum { font-weight: 600; }
`;

// The measure the model card reports for made-up names (wasm/src/train/evaluate.cpp): the mean loss per piece over
// the pieces that can be copied, every piece but the first (what precedes the first piece gives no hint of it), the
// first time and the second time; null for a one-piece name.
export function copyableLoss(rows) {
  const copied = rows.slice(1);
  if (!copied.length) return null;
  const mean = (k) => copied.reduce((s, r) => s + r[k], 0) / copied.length;
  return { pieces: copied.length, first: mean('loss1'), second: mean('loss2') };
}

/**
 * @attr name - the made-up name
 * @attr template - the text, with `{name}` at least twice
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @fires lookback-change - the text was computed (detail: the per-token table shown)
 */
class Induction extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['name', 'template', 'model'];

  constructor() {
    super();
    this.name = 'Zibblor';
    this.template = TEMPLATE;
  }

  attributeChangedCallback(attr, _old, v) {
    if (attr === 'name' && v) this.name = v.trim();
    if (attr === 'template' && v && v.split('{name}').length >= 3) this.template = v;
    if (this._built) {
      this.input.value = this.name;
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">A made-up name, said twice</p>
      <div class="row"><label for="name">made-up name</label>
        <input type="text" id="name" spellcheck="false" autocomplete="off" maxlength="24"></div>
      <p class="text" data-fold-end></p>
      <div class="scroll"><table class="num tokens"></table></div>
      <p class="sum headline" aria-live="polite"></p>
      <p class="hint head"></p>`;
    this.input = this.root.querySelector('input');
    this.input.value = this.name;
    this.input.addEventListener('input', () => {
      this.markInput();
      this.name = this.input.value.trim();
      this.invalidate();
    });
  }

  get text() {
    return this.template.split('{name}').join(this.name);
  }

  async compute() {
    const { text, name } = this;
    if (!/^[\p{L}][\p{L}'-]*$/u.test(name)) {
      this.root.querySelector('.text').textContent = text;
      this.data = { text, name, first: -1, second: -1, head: null, rows: [], copyable: null };
      this.root.querySelector('table.tokens').innerHTML = '';
      this.root.querySelector('.sum').textContent = 'Type a name: letters only, one word.';
      return;
    }
    const [card, f] = await Promise.all([
      this.modelCard(),
      this.askModel('forward', [text, { attention: true }], 'forward'),
    ]);
    const { text: decoded, tokens } = await this.askModel('decodeTokens', [f.ids], 'tokens');
    const copies = nameCopies(tokens, decoded, text, this.template, name);
    if (copies.split) {
      // a tokenizer whose pieces depend on the neighbours can split the two copies differently: no piece-by-piece
      // comparison then, and the reader is told why
      this.root.querySelector('.text').textContent = text;
      this.data = { text, name, first: -1, second: -1, head: null, rows: [], copyable: null };
      this.root.querySelector('table.tokens').innerHTML = '';
      const [one, two] = copies.split.map((p) => (p.length ? `“${p.join('|')}”` : 'not found'));
      this.root.querySelector('.sum').textContent = `This model's tokenizer splits the name differently the two times `
        + `(${one}, then ${two}), so its pieces cannot be compared one by one. Try another name.`;
      return;
    }
    const { a, b, part } = copies;
    const pieces = tokens.slice(a, a + part.length);
    const { V, T, H } = f.shape;
    const head = bestHead(card, 'induction');
    const rows = part.map((id, k) => {
      const p1 = tokenProbability(f.logits, V, a + k, id), p2 = tokenProbability(f.logits, V, b + k, id);
      // the induction move: the query before the second copy's token k looks at what followed its twin earlier
      const w = head && k > 0 ? f.attention[((head.layer * H + head.head) * T + (b + k - 1)) * T + (a + k)] : null;
      return { token: pieces[k].text, p1, p2, loss1: -Math.log(p1), loss2: -Math.log(p2), w };
    });
    this.data = { text, name, first: a, second: b, head: head?.name ?? null, rows, copyable: copyableLoss(rows) };
    this.render();
  }

  render() {
    const { rows, head, text } = this.data;
    this.root.querySelector('.text').textContent = text;   // the text these numbers are of
    this.root.querySelector('table.tokens').innerHTML = `<caption>Each piece of the name, the first time and the second time</caption>
      <thead><tr><th scope="col">token</th><th scope="col">p, first</th><th scope="col">p, second</th>
        <th scope="col">loss first (nats)</th><th scope="col">loss second</th>
        <th scope="col">head ${esc(head ?? '?')}: weight on the first copy's next token</th></tr></thead>
      <tbody>${rows.map((r, k) => `<tr data-k="${k}"><td class="t">${chip(r.token)}</td><td class="p1">${fmt(r.p1, 3)}</td>
        <td class="p2">${fmt(r.p2, 3)}</td><td class="l1">${fmt(r.loss1, 2)}</td><td class="l2">${fmt(r.loss2, 2)}</td>
        <td class="w">${r.w === null ? '—' : fmt(r.w, 2)}</td></tr>`).join('')}</tbody>`;
    const c = this.data.copyable;
    this.root.querySelector('.sum').textContent = c
      ? `Loss per piece that can be copied (the ${c.pieces === 1 ? 'piece' : `${c.pieces} pieces`} after the first): `
        + `${fmt(c.first, 2)} nats the first time, ${fmt(c.second, 2)} nats the second time.`
      : 'This name is a single piece: the first piece of a name cannot be copied (the word before it gives no hint), '
        + 'so there is nothing here to copy. Try a longer made-up name.';
    this.root.querySelector('.head').textContent = head
      ? `Head ${head} is the model card's best induction head (measured on random tokens repeated). The first piece of the `
        + 'second copy has no earlier twin to follow (its query is the word before the name), so its column is empty.'
      : 'This model has no card, so no induction head is named.';
    this.emit('lookback-change', this.data);
  }

  exportData() {
    return { json: this.data, csv: [['token', 'p_first', 'p_second', 'loss_first', 'loss_second', 'induction_weight'],
      ...this.data.rows.map((r) => [r.token, r.p1, r.p2, r.loss1, r.loss2, r.w ?? ''])] };
  }

  exportCanvas() {
    return drawReport(this, {
      title: `A made-up name said twice: ${this.data.name}`,
      blocks: [{ text: this.data.text }, { table: { header: ['token', 'p first', 'p second', 'loss 1', 'loss 2', `head ${this.data.head}`],
        rows: this.data.rows.map((r) => [shown(r.token), fmt(r.p1, 3), fmt(r.p2, 3), fmt(r.loss1, 2), fmt(r.loss2, 2), r.w === null ? '—' : fmt(r.w, 2)]) } },
      { text: this.root.querySelector('.sum').textContent, bold: true }],
    });
  }
}

define('lookback-induction', Induction);
export { Induction };
