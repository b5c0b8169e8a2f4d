// <lookback-counterfactual>: a test of what the model copies. A story names an object early; the reader swaps
// that word, removes it, or changes a word that should not matter; the widget shows the next-token
// probabilities before and after side by side, the answer's change, the attention at the blank of the heads
// that put most weight on the edit (onto the new word, off the old one), and a sentence, computed from the
// result, saying what the test decided. Every number is the model's (next, forward, tokens through the
// controller). Not the stories (counterfactual-examples.js).
import { chip, define, esc, fmt } from './widget-kit.js';
import { ModelWidget } from './model-widget.js';
import { drawReport } from './export.js';
import { EDITS, EXAMPLES, editStory } from './counterfactual-examples.js';
import { alignTokens, headsOnTheEdit } from './counterfactual-compare.js';
import { headName, shown } from './model-view.js';

const CSS = `
.story { background: var(--lb-page); border-radius: 8px; padding: .45rem .65rem; margin: .3rem 0; line-height: 1.6; }
.story .label { color: var(--lb-muted); font-size: .85rem; margin-right: .3rem; }
mark { background: color-mix(in srgb, var(--lb-accent-2) 22%, transparent); color: inherit; border-radius: 3px; padding: 0 .1rem; }
mark.new { background: color-mix(in srgb, var(--lb-accent) 25%, transparent); }
.edit-row { margin: .5rem 0; }
.edit-row input[type=text] { width: 9rem; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .6rem; margin-top: .5rem; }
tr.answer td, tr.edited td { font-weight: 700; }
td.mono { white-space: pre; }
tr.replacement td { font-weight: 700; color: var(--lb-accent); }
.verdict { font-weight: 650; margin: .6rem 0 .3rem; }
.heads h4 { margin: .6rem 0 .2rem; font-size: .92rem; }
td.up { color: var(--lb-accent); }
td.down { color: var(--lb-accent-2); }
`;

const KIND_LABELS = { swap: 'Swap the remembered word', remove: 'Remove it', neutral: 'Change a word that should not matter' };
const UNCHANGED = 0.05;  // a change of the answer's probability below this (and the same top token) counts as none

function highlight(story, word, cls) {
  if (!word) return esc(story);
  const re = new RegExp(`\\b(${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})\\b`, 'g');
  return story.split(re).map((part, i) => (i % 2 ? `<mark class="${cls}">${esc(part)}</mark>` : esc(part))).join('');
}

// The rows a head's table shows: the edited span, and up to 6 others with a weight of at least 0.03, in text order.
function shownRows(rows) {
  const all = rows.map((row, i) => ({ ...row, i }));
  const big = (row) => Math.max(row.weightBefore, row.weightAfter);
  const others = all.filter((row) => !row.edited && big(row) >= 0.03).sort((x, y) => big(y) - big(x)).slice(0, 6);
  return [...all.filter((row) => row.edited), ...others].sort((x, y) => x.i - y.i);
}

// A head's two numbers: its weight on the old word before the edit, and on the new word after it.
function headLine(h, oldWord, newWord) {
  return `Head ${h.name}: ${fmt(h.onOld)} of its weight on "${oldWord}" before the edit, `
    + (newWord ? `${fmt(h.onNew)} on "${newWord}" after it` : 'and the word is gone after it');
}

/**
 * @attr example - a built-in story: `doll` (default), `kite`, `boat`
 * @attr edit - `swap` (default), `remove` or `neutral`
 * @attr replacement - the word the edit puts in
 * @attr story - a story of your own instead of the examples
 * @attr answer - with `story`: the word the story recalls
 * @attr swap - with `story`: the swap, `"word>replacement"`
 * @attr neutral - with `story`: a neutral edit, `"word>replacement"`
 * @attr heads - how many heads are listed, 1 to 6 (default 2)
 * @attr top - rows of next tokens, 3 to 10 (default 5)
 * @attr model - the model: `sprout`, `window` or `current` (default)
 * @fires lookback-change - the edited story was computed (detail: the result shown)
 */
class CounterfactualWidget extends ModelWidget {
  static css = CSS;
  static observedAttributes = ['example', 'edit', 'replacement', 'story', 'answer', 'swap', 'neutral', 'heads', 'top', 'model'];

  constructor() {
    super();
    this.result = null;
  }

  readAttributes() {
    const story = this.getAttribute('story');
    if (story) {
      const [word, other] = (this.getAttribute('neutral') || '').split('>').map((s) => s.trim());
      this.examples = [{ id: 'custom', story: story.trim(), answer: this.getAttribute('answer') || '', swap: this.getAttribute('swap') || '',
        neutral: [word || '', other || ''] }];
    } else this.examples = EXAMPLES;
    this.example = this.examples.find((e) => e.id === this.getAttribute('example')) ?? this.examples[0];
    this.kind = EDITS.includes(this.getAttribute('edit')) ? this.getAttribute('edit') : 'swap';
    this.replacement = this.getAttribute('replacement') ?? this.defaultReplacement();
    this.nHeads = Math.max(1, Math.min(6, Number.parseInt(this.getAttribute('heads') ?? '2', 10) || 2));
    this.k = Math.max(3, Math.min(10, Number.parseInt(this.getAttribute('top') ?? '5', 10) || 5));
    this.buildChoices();
  }

  defaultReplacement() {
    return this.kind === 'swap' ? this.example.swap : this.kind === 'neutral' ? this.example.neutral[1] : '';
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Test what the model copies</p>
      <div class="row examples" role="group" aria-label="Story"></div>
      <div class="row edit-row kinds" role="group" aria-label="Edit"></div>
      <label class="row edit-row repl"><span class="repl-label"></span> <input type="text" class="replacement" spellcheck="false"></label>
      <p class="story before"></p>
      <p class="story after"></p>
      <p class="verdict headline" aria-live="polite"></p>
      <p class="hint change"></p>
      <div class="sides">
        <div class="scroll"><table class="num side-before"><caption>Before the edit: next token</caption><thead><tr><th scope="col">token</th><th scope="col">p</th></tr></thead><tbody></tbody></table></div>
        <div class="scroll"><table class="num side-after"><caption>After the edit: next token</caption><thead><tr><th scope="col">token</th><th scope="col">p</th></tr></thead><tbody></tbody></table></div>
      </div>
      <div class="heads"></div>
      <p class="hint model-line"></p>`;
    this.input = this.root.querySelector('.replacement');
    this.input.addEventListener('input', () => {
      this.markInput();
      this.replacement = this.input.value.trim();
      this.invalidate();
    });
    this.root.querySelector('.examples').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-example]');
      if (!b) return;
      this.markInput();
      this.example = this.examples.find((x) => x.id === b.dataset.example);
      this.replacement = this.defaultReplacement();
      this.buildChoices();
      this.invalidate({ now: true });
    });
    this.root.querySelector('.kinds').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-kind]');
      if (!b) return;
      this.markInput();
      this.kind = b.dataset.kind;
      this.replacement = this.defaultReplacement();
      this.buildChoices();
      this.invalidate({ now: true });
    });
    this.readAttributes();
  }

  buildChoices() {
    const ex = this.examples.length > 1 ? this.examples : [];
    this.root.querySelector('.examples').innerHTML = ex.map((e) => `<button type="button" data-example="${esc(e.id)}"
      aria-pressed="${e === this.example}">${esc(e.story.split(' ').slice(0, 3).join(' '))}…</button>`).join('');
    this.root.querySelector('.kinds').innerHTML = EDITS.map((k) => `<button type="button" data-kind="${k}" aria-pressed="${k === this.kind}">${
      k === 'swap' ? `${KIND_LABELS.swap} (${esc(this.example.answer)})` : k === 'neutral' ? `${KIND_LABELS.neutral} (${esc(this.example.neutral[0])})` : KIND_LABELS.remove}</button>`).join('');
    this.input.value = this.replacement;
    this.root.querySelector('.repl').hidden = this.kind === 'remove';
    this.root.querySelector('.repl-label').textContent = `put instead of "${this.edited()}":`;
  }

  edited() {
    return this.kind === 'neutral' ? this.example.neutral[0] : this.example.answer;
  }

  // The first token of a word as it follows a space (skipping a lone space piece some tokenizers make).
  async wordToken(word, name) {
    if (!word) return null;
    const toks = await this.askModel('tokens', [` ${word}`, { bos: false }], name);
    return toks.find((t) => t.text.trim() !== '') ?? null;
  }

  async compute() {
    const { example: ex, kind } = this;
    const word = this.edited();
    const replacement = kind === 'remove' ? '' : this.replacement;
    const before = ex.story;
    const after = editStory(before, kind, word, replacement);
    const model = await this.describeModel();
    const V = model.info.config.vocab_size;
    const [bTok, aTok, bNext, aNext, bFwd, aFwd, answer, repl] = await Promise.all([
      this.askModel('tokens', [before], 'tokensBefore'), this.askModel('tokens', [after], 'tokensAfter'),
      this.askModel('next', [before, { topK: V }], 'nextBefore'), this.askModel('next', [after, { topK: V }], 'nextAfter'),
      this.askModel('forward', [before, { attention: true }], 'forwardBefore'),
      this.askModel('forward', [after, { attention: true }], 'forwardAfter'),
      this.wordToken(ex.answer, 'answer'), kind === 'swap' ? this.wordToken(replacement, 'replacement') : null]);
    const pOf = (dist, tok) => (tok ? dist.find((t) => t.id === tok.id)?.p ?? 0 : null);
    const rows = alignTokens(bTok, aTok);
    const moved = headsOnTheEdit(bFwd, aFwd, rows).slice(0, this.nHeads);
    this.result = {
      model: model.label, story: before, edited: after, edit: { kind, word, replacement },
      answer: answer && { word: ex.answer, id: answer.id, token: answer.text, before: pOf(bNext, answer), after: pOf(aNext, answer) },
      replacement: repl && { word: replacement, id: repl.id, token: repl.text, before: pOf(bNext, repl), after: pOf(aNext, repl) },
      before: bNext.slice(0, this.k), after: aNext.slice(0, this.k),
      heads: moved.map((m) => ({ name: headName(m.layer, m.head), layer_index: m.layer, head_index: m.head, onOld: m.onOld, onNew: m.onNew,
        rows: rows.map((r, i) => ({ edited: !!r.edited, before: r.before.map((j) => bTok[j].text).join(''), after: r.after.map((j) => aTok[j].text).join(''),
          weightBefore: m.weights[i].before, weightAfter: m.weights[i].after })) })),
    };
    this.result.verdict = this.verdict();
    this.render();
    this.emit('lookback-change', this.result);
  }

  verdict() {
    const r = this.result;
    const a = r.answer;
    if (!a) return 'Give the story an answer word to test.';
    const { word, replacement } = r.edit;
    const top = r.after[0];
    const topText = `"${top.token.trim()}" at ${fmt(top.p)}`;
    const aMove = `${fmt(a.before)} → ${fmt(a.after)} for ${a.word}`;
    let s;
    if (r.edited === r.story) return `This edit leaves the story as it was: type a different word to test.`;
    if (r.edit.kind === 'swap') {
      const n = r.replacement;
      const nMove = n ? `${fmt(n.before)} → ${fmt(n.after)} for ${replacement}` : '';
      if (n && top.id === n.id) s = `The prediction followed the edit: ${aMove}, ${nMove}.`;
      else if (top.id === a.id) s = `The prediction did not follow the edit: ${a.word} stays first (${aMove}${n ? `; ${nMove}` : ''}).`;
      else s = `The prediction left ${a.word} (${aMove}) but did not pick ${replacement}${n ? ` (${nMove})` : ''}: the top guess is now ${topText}.`;
    } else if (r.edit.kind === 'remove') {
      s = top.id !== a.id
        ? `Without its early mention, ${a.word} fell (${aMove}) and the top guess is now ${topText}: the answer came from that mention.`
        : `Even without its early mention the model still puts ${a.word} first (${aMove}): something else in the text points to it.`;
    } else {
      const same = r.before[0].id === top.id && Math.abs(a.after - a.before) < UNCHANGED;
      s = same
        ? `Changing ${word} to ${replacement} left the prediction alone (${aMove}), as a word that does not matter should.`
        : `Changing ${word} to ${replacement} moved the prediction (${aMove}; top guess ${topText}): the model used that word.`;
    }
    if (r.before[0].id !== a.id) s += ` (Before the edit the top guess was "${r.before[0].token.trim()}", not ${a.word}, so this test says less.)`;
    return s;
  }

  render() {
    const r = this.result;
    const $ = (s) => this.root.querySelector(s);
    const changedWord = r.edit.word;
    $('.before').innerHTML = `<span class="label">before</span>${highlight(r.story, changedWord, 'old')}<span class="label"> ___</span>`;
    $('.after').innerHTML = `<span class="label">after</span>${highlight(r.edited, r.edit.replacement, 'new')}<span class="label"> ___</span>`;
    $('.verdict').textContent = r.verdict;
    const a = r.answer;
    const d = a ? a.after - a.before : 0;
    $('.change').innerHTML = a ? `Probability of ${chip(a.token)}: ${fmt(a.before, 3)} before, ${fmt(a.after, 3)} after (change ${d >= 0 ? '+' : ''}${fmt(d, 3)}).` : '';
    const table = (list) => list.map((t) => `<tr class="${t.id === a?.id ? 'answer' : t.id === r.replacement?.id ? 'replacement' : ''}">
      <td>${chip(t.token)}</td><td class="p">${fmt(t.p, 3)}</td></tr>`).join('');
    $('.side-before tbody').innerHTML = table(r.before);
    $('.side-after tbody').innerHTML = table(r.after);
    const oldWord = r.edit.word, newWord = r.edit.replacement;
    $('.heads').innerHTML = `<p class="hint">Attention from the last token (where the next token is predicted), in the
      head${r.heads.length > 1 ? 's' : ''} that ${newWord ? `put most weight on "${esc(newWord)}" after the edit` : `had most weight on "${esc(oldWord)}" before it was removed`}:</p>${r.heads.map((h) => {
      const shown = shownRows(h.rows);
      return `<h4>${esc(headLine(h, oldWord, newWord))}</h4>
        <div class="scroll"><table class="num head" data-head="${h.name}"><caption>The edited words, and weights of at least 0.03 before or after</caption>
        <thead><tr><th scope="col">token before</th><th scope="col">weight</th><th scope="col">token after</th><th scope="col">weight</th><th scope="col">change</th></tr></thead>
        <tbody>${shown.map((row) => {
          const c = row.weightAfter - row.weightBefore;
          return `<tr class="${row.edited ? 'edited' : ''}"><td>${row.before ? chip(row.before) : '—'}</td><td>${fmt(row.weightBefore)}</td><td>${row.after ? chip(row.after) : '—'}</td>
            <td>${fmt(row.weightAfter)}</td><td class="${c > 0.005 ? 'up' : c < -0.005 ? 'down' : ''}">${c >= 0 ? '+' : ''}${fmt(c)}</td></tr>`;
        }).join('')}</tbody></table></div>`;
    }).join('')}`;
    $('.model-line').textContent = `Predictions by ${r.model}.`;
  }

  exportData() {
    const r = this.result;
    const rows = [['rank', 'before_token', 'before_p', 'after_token', 'after_p']];
    r.before.forEach((t, i) => rows.push([i + 1, t.token, t.p, r.after[i].token, r.after[i].p]));
    return { json: r, csv: rows };
  }

  exportCanvas() {
    const r = this.result;
    return drawReport(this, {
      title: 'Test what the model copies',
      blocks: [{ text: `Before: ${r.story} ___` }, { text: `After: ${r.edited} ___` }, { text: r.verdict, bold: true },
        { table: { caption: 'Next token, before and after', header: ['before', 'p', 'after', 'p'],
          rows: r.before.map((t, i) => [shown(t.token), fmt(t.p, 3), shown(r.after[i].token), fmt(r.after[i].p, 3)]) } },
        ...r.heads.map((h) => ({ table: { caption: headLine(h, r.edit.word, r.edit.replacement),
          header: ['token before', 'weight', 'token after', 'weight'],
          rows: shownRows(h.rows)
            .map((row) => [shown(row.before), fmt(row.weightBefore), shown(row.after), fmt(row.weightAfter)]) } }))],
    });
  }
}

define('lookback-counterfactual', CounterfactualWidget);
export { CounterfactualWidget };
