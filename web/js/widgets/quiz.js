// <lookback-quiz>: multiple-choice questions with an explanation for every answer, a score, and the reader's
// answers kept in localStorage (attribute quiz-id) so they survive a reload. Built-in sets via set="sinks" |
// "mask" | "order", or the author's own in a child <script type="application/json">. Where an explanation quotes a
// softmax, the core computes it. Not a grading system: nothing leaves the browser.
import { LookbackWidget, builtInSet, define, esc, fmt, ownJson, storage } from './widget-kit.js';
import { drawReport } from './export.js';
import QUIZ_SETS from './content/quiz-sets.js';

// the built-in sets: content/quiz-sets.json
export { QUIZ_SETS };

const CSS = `
ol { list-style: none; padding-left: 0; margin: .3rem 0; }
li { margin-bottom: .9rem; }
fieldset { border: 0; padding: 0; margin: 0; }
legend { font-weight: 600; padding: 0; margin-bottom: .3rem; }
label.opt { display: flex; gap: .5rem; align-items: flex-start; padding: .35rem .5rem; border-radius: 6px;
  border: 1px solid transparent; cursor: pointer; }
label.opt:hover { border-color: var(--lb-rule); }
label.opt input { margin-top: .3rem; accent-color: var(--lb-accent); width: 1.1rem; height: 1.1rem; flex: none; }
label.opt.right { border-color: var(--lb-accent); }
label.opt.wrong { border-color: var(--lb-accent-2); }
.feedback { margin: .3rem 0 0 .5rem; }
.feedback b.ok { color: var(--lb-accent); }
.feedback b.no { color: var(--lb-accent-2); }
.score { font-weight: 600; }
`;


/**
 * @attr set - a built-in question set (such as `sinks`, `mask`)
 * @attr quiz-id - the key under which answers are kept in localStorage (default: the set)
 * @fires lookback-answer - the reader answered a question (detail {quiz, question, chosen, correct, score})
 */
class Quiz extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['set', 'quiz-id'];

  constructor() {
    super();
    this.live = new Map();
  }

  get storageKey() {
    return `lookback.quiz.${this.getAttribute('quiz-id') || this.getAttribute('set') || 'default'}`;
  }

  // { data } or { missing }: the author's own JSON, else the built-in set the attribute names
  loadSet() {
    const own = ownJson(this, 'quiz', (d) => Array.isArray(d?.questions));
    return own ? { data: own } : builtInSet(this, QUIZ_SETS, 'sinks');
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
    const { data, missing } = this.loadSet();
    this.data = data || { title: 'Quiz', questions: [] };
    this.missing = missing;
    if (missing) {
      this.root.innerHTML = `<p class="title">Quiz</p><p class="missing" role="status">${esc(missing)}</p>`;
      return;
    }
    this.answers = storage.get(this.storageKey)?.answers || {};
    this.root.innerHTML = `<p class="title">${esc(this.data.title || 'Quiz')}</p>
      <ol>${this.data.questions.map((item, i) => `<li><fieldset data-q="${i}"><legend><span class="qn">${i + 1}.</span> ${esc(item.q)}</legend>
        ${item.options.map((o, j) => `<label class="opt"><input type="radio" name="q${i}" value="${j}"><span>${esc(o.text)}</span></label>`).join('')}
        <p class="feedback" aria-live="polite"></p></fieldset></li>`).join('')}</ol>
      <div class="row"><p class="score" aria-live="polite"></p><button type="button" class="reset">Clear my answers</button></div>`;
    this.root.querySelector('ol').addEventListener('change', (e) => {
      const input = e.target;
      if (input.type !== 'radio') return;
      const q = Number(input.name.slice(1));
      this.answers[q] = Number(input.value);
      storage.set(this.storageKey, { answers: this.answers });
      this.show();
      const item = this.data.questions[q];
      this.emit('lookback-answer', { quiz: this.storageKey, question: q, chosen: this.answers[q],
        correct: !!item.options[this.answers[q]].correct, score: this.score() });
    });
    this.root.querySelector('.reset').addEventListener('click', () => {
      this.answers = {};
      storage.remove(this.storageKey);
      this.show();
    });
    this.show();
  }

  score() {
    const qs = this.data.questions;
    const answered = Object.keys(this.answers).filter((k) => qs[k]);
    return { right: answered.filter((k) => qs[k].options[this.answers[k]]?.correct).length, answered: answered.length, total: qs.length };
  }

  async compute() {
    const { data } = this;
    const jobs = data.questions.map(async (item, i) => {
      if (!item.live?.softmax || this.live.has(i)) return;
      const x = Float32Array.from(item.live.softmax);
      const opts = { rows: 1, cols: x.length, temperature: item.live.temperature ?? 1 };
      if (item.live.mask) opts.mask = Uint8Array.from(item.live.mask);
      const r = await this.ask('softmax', [x, opts], `live-${i}`);
      if (this.data === data) this.live.set(i, r);   // not if another set came meanwhile
    });
    await Promise.all(jobs);
    this.show();
  }

  explain(i, text) {
    const r = this.live.get(i);
    if (!text.includes('{')) return text;
    if (!r) return text.replace(/\{weights\}/g, '(computing…)');
    return text.replace(/\{weights\}/g, Array.from(r.weights, (w) => fmt(w, 3)).join(', '))
      .replace(/\{sum\}/g, fmt(Array.from(r.weights).reduce((a, w) => a + w, 0), 3));
  }

  show() {
    if (this.missing) return;
    this.data.questions.forEach((item, i) => {
      const fs = this.root.querySelector(`fieldset[data-q="${i}"]`);
      const chosen = this.answers[i];
      fs.querySelectorAll('input').forEach((inp, j) => {
        inp.checked = chosen === j;
        inp.closest('label').classList.toggle('right', chosen === j && !!item.options[j].correct);
        inp.closest('label').classList.toggle('wrong', chosen === j && !item.options[j].correct);
      });
      const fb = fs.querySelector('.feedback');
      if (chosen === undefined || !item.options[chosen]) {
        fb.innerHTML = '';
        fs.dataset.state = 'open';
      } else {
        const o = item.options[chosen];
        fs.dataset.state = o.correct ? 'right' : 'wrong';
        fb.innerHTML = `<b class="${o.correct ? 'ok' : 'no'}">${o.correct ? 'Right.' : 'Not quite.'}</b> ${esc(this.explain(i, o.why))}`;
      }
    });
    const s = this.score();
    const el = this.root.querySelector('.score');
    el.textContent = s.answered ? `Score: ${s.right} of ${s.total} right${s.answered < s.total ? ` (${s.answered} answered)` : ''}` : `${s.total} questions`;
    this.dataset.score = `${s.right}/${s.total}`;
  }

  exportData() {
    const qs = this.data.questions;
    const rows = qs.map((item, i) => ({ question: item.q, chosen: this.answers[i] === undefined ? null : item.options[this.answers[i]].text,
      right: this.answers[i] === undefined ? null : !!item.options[this.answers[i]].correct,
      answer: item.options.find((o) => o.correct)?.text }));
    return { json: { quiz: this.storageKey, score: this.score(), questions: rows },
      csv: [['question', 'chosen', 'right', 'correct_answer'], ...rows.map((r) => [r.question, r.chosen, r.right, r.answer])] };
  }

  exportCanvas() {
    const s = this.score();
    return drawReport(this, {
      title: this.data.title || 'Quiz',
      blocks: [
        ...this.data.questions.flatMap((item, i) => {
          const c = this.answers[i];
          return [{ text: `${i + 1}. ${item.q}`, bold: true, size: 13 },
            { text: c === undefined ? 'not answered' : `${item.options[c].correct ? 'right' : 'not quite'}: ${item.options[c].text}`, size: 13 }];
        }),
        { text: `Score: ${s.right} of ${s.total} right`, bold: true },
      ],
    });
  }
}

define('lookback-quiz', Quiz);
export { Quiz };
