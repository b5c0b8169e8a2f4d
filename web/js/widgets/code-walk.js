// <lookback-code-walk>: the core's own reference attention (attention_row_ref in wasm/src/kernels/reference.cpp,
// copied into web/build/source by the build, so the page shows the source it was built from), highlighted
// with highlight.js, walked line by line through one row of the worked example's four words: beside each line,
// the values it produced (scores, max, exponentials, sum, weights, output), all returned by the core's
// attentionRow. The vectorised kernel's softmax is shown too, with its weights for the same row.
// Not an editor and not a debugger: the numbers come from one call, not from stepping the WebAssembly.
import { LookbackWidget, define, esc, fmt } from './widget-kit.js';
import { rows, workedInputs } from './worked-example.js';
import { drawReport } from './export.js';
import { servedUrl } from '../served.js';

// highlight.js is loaded when the first code walk computes (it sits far down the chapter), once per page.
let highlighter = null;
function loadHighlighter() {
  highlighter ??= Promise.all([import('../../vendor/highlight/core.js'), import('../../vendor/highlight/cpp.js')])
    .then(([{ default: hljs }, { default: cpp }]) => {
      hljs.registerLanguage('cpp', cpp);
      return hljs;
    });
  return highlighter;
}

// The functions shown: file, the line their definition starts with, and the comment lines kept above it.
export const SHOWN = {
  row: { file: 'wasm/src/kernels/reference.cpp', start: 'bool attention_row_ref(' },
  fast: { file: 'wasm/src/kernels/attention.cpp', start: 'void softmax_columns(' },
};

const CSS = `
.controls { display: flex; flex-wrap: wrap; gap: .4rem .9rem; align-items: center; margin-bottom: .5rem; }
.code { background: var(--lb-page); border-radius: 8px; padding: .4rem 0; overflow-x: auto; font-family: var(--lb-mono);
  font-size: .8rem; line-height: 1.45; }
.code:focus-visible { outline: 3px solid var(--lb-focus); }
.ln { display: grid; grid-template-columns: 2.6rem minmax(0, 1fr); column-gap: .8rem; padding: 0 .6rem 0 0;
  border-left: 3px solid transparent; cursor: pointer; }
.ln .no { text-align: right; color: var(--lb-muted); user-select: none; }
.ln code { white-space: pre-wrap; overflow-wrap: anywhere; font-family: inherit; }
/* a line's values sit right under it, in the code's column */
.ln .val { grid-column: 2; color: var(--lb-accent); white-space: pre-wrap; overflow-wrap: anywhere; font-family: inherit;
  padding-left: 1.2rem; }
.ln .val:empty { display: none; }
.ln .val::before { content: "→ "; }
.ln.done .val { color: var(--lb-muted); }
.ln.cur { background: color-mix(in srgb, var(--lb-focus) 14%, transparent); border-left-color: var(--lb-focus); }
.ln.cur .val, .ln.cur .no, .ln.cur .hljs-comment { color: var(--lb-fg); }
.ln.cur .val { font-weight: 600; }
.nav { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0; }
.say { min-height: 1.5em; }
details { margin-top: .6rem; }
summary { cursor: pointer; color: var(--lb-muted); }
.hljs-keyword, .hljs-type, .hljs-built_in { color: #7a3db8; }
.hljs-comment { color: var(--lb-muted); font-style: italic; }
.hljs-number, .hljs-literal { color: #a4461a; }
.hljs-string { color: #2d7a3a; }
.hljs-title, .hljs-title.function_ { color: #1f5fa8; }
.hljs-meta { color: #8a6d00; }
@media (prefers-color-scheme: dark) {
  .hljs-keyword, .hljs-type, .hljs-built_in { color: #c9a2ff; }
  .hljs-number, .hljs-literal { color: #ffab80; }
  .hljs-string { color: #8fd694; }
  .hljs-title, .hljs-title.function_ { color: #8cc4ff; }
  .hljs-meta { color: #e5c76b; }
}
`;

// The lines of `text` that make up the function whose definition line starts with `start` (after leading
// spaces and a template line): the comment lines right above it, through the first line that is exactly "}".
export function cutFunction(text, start) {
  const lines = text.split('\n');
  let first = lines.findIndex((l) => l.trimStart().startsWith(start));
  if (first < 0) throw new Error(`code walk: "${start}" is not in the source any more`);
  let last = first;
  while (last < lines.length && lines[last] !== '}') last++;
  if (/^template\b/.test(lines[first - 1] || '')) first--;
  while (first > 0 && lines[first - 1].startsWith('//')) first--;
  return { from: first + 1, to: last + 1, lines: lines.slice(first, last + 1) };
}

const sourceCache = new Map();
function source(file) {
  if (!sourceCache.has(file)) {
    sourceCache.set(file, fetch(servedUrl(`build/source/${file}`)).then((r) => {
      if (!r.ok) throw new Error(`code walk: cannot load ${file} (HTTP ${r.status}); build with \`npm run build\``);
      return r.text();
    }));
  }
  return sourceCache.get(file);
}

const list = (a, dg = 2) => `[${Array.from(a, (x) => fmt(x, dg)).join(', ')}]`;

/**
 * @attr words - the tokens' labels, JSON, as the worked example
 * @attr x - the token vectors, JSON matrix, as the worked example
 * @attr wq - the query projection, JSON matrix
 * @attr wk - the key projection, JSON matrix
 * @attr wv - the value projection, JSON matrix
 * @attr query - the query row followed, from 0
 * @attr causal - `true` (default) or `false`
 * @attr step - the source line the walk is on, from 0
 * @fires lookback-change - the reader moved to another line or query (detail {line, query})
 */
class CodeWalk extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['words', 'x', 'wq', 'wk', 'wv', 'query', 'causal', 'step'];

  constructor() {
    super();
    this.step = 0;
    this.readAttributes();
  }

  readAttributes() {
    Object.assign(this, workedInputs(this));
    this.T = this.x.length;
    const q = Number.parseInt(this.getAttribute('query') ?? '', 10);
    this.query = Number.isFinite(q) ? Math.max(0, Math.min(this.T - 1, q)) : Math.min(2, this.T - 1);
    this.causal = this.getAttribute('causal') !== 'false';
    const s = Number.parseInt(this.getAttribute('step') ?? '', 10);
    if (Number.isFinite(s)) this.step = Math.max(0, s);
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.sync();
      this.invalidate({ now: true });
    }
  }

  build() {
    this.root.innerHTML = `
      <p class="title">The core's attention, one row at a time</p>
      <div class="controls">
        <div class="row words" role="radiogroup" aria-label="Query word (the row computed)"></div>
        <label><input type="checkbox" class="causal"> causal mask</label>
      </div>
      <p class="hint">One query's row of attention: <code class="file"></code>, lines <span class="range"></span>.
        Step with the buttons, or focus the code and use ↑ ↓ (Home, End).</p>
      <div class="code" tabindex="0" role="list" aria-label="attention_row_ref, line by line"></div>
      <div class="nav"><button type="button" class="prev">← Back</button><button type="button" class="next">Next line →</button>
        <button type="button" class="end">To the end</button><span class="hint counter"></span></div>
      <p class="say" aria-live="polite"></p>
      <div class="scroll"><table class="num row-table"><caption>The row's values, line by line</caption>
        <thead><tr><th scope="col">key</th><th scope="col">score</th><th scope="col">e = exp(score − max)</th><th scope="col">weight</th></tr></thead>
        <tbody></tbody><tfoot></tfoot></table></div>
      <details class="fast"><summary>The same softmax for several queries at once (what Sprout runs)</summary>
        <p class="hint">From <code class="fast-file"></code>, lines <span class="fast-range"></span>. It works on a block of
          queries at once, one per SIMD lane, with the same steps: the largest score, the exponentials of the differences,
          their sum. <span class="fast-check"></span></p>
        <div class="code fast-code" tabindex="0" role="region" aria-label="softmax_columns, the vectorised softmax"></div>
      </details>`;
    const code = this.root.querySelector('.code');
    code.addEventListener('keydown', (e) => {
      const d = { ArrowDown: 1, ArrowUp: -1, j: 1, k: -1, PageDown: 5, PageUp: -5, Home: -1e9, End: 1e9 }[e.key];
      if (d === undefined) return;
      e.preventDefault();
      this.go(this.step + d);
    });
    code.addEventListener('click', (e) => {
      const ln = e.target.closest('.ln[data-step]');
      if (ln) this.go(Number(ln.dataset.step));
    });
    this.root.querySelector('.prev').addEventListener('click', () => this.go(this.step - 1));
    this.root.querySelector('.next').addEventListener('click', () => this.go(this.step + 1));
    this.root.querySelector('.end').addEventListener('click', () => this.go(1e9));
    this.root.querySelector('.causal').addEventListener('change', (e) => {
      this.markInput();
      this.causal = e.target.checked;
      this.invalidate({ now: true });
    });
    const words = this.root.querySelector('.words');
    words.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-row]');
      if (b) this.pick(Number(b.dataset.row));
    });
    words.addEventListener('keydown', (e) => {
      const d = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (d === undefined) return;
      e.preventDefault();
      this.pick((this.query + d + this.T) % this.T, true);
    });
    this.sync();
  }

  sync() {
    this.root.querySelector('.words').innerHTML = `<span class="hint">Row of:</span>${this.words.map((w, i) =>
      `<button type="button" role="radio" data-row="${i}" aria-checked="${i === this.query}" tabindex="${i === this.query ? 0 : -1}">${esc(w)}</button>`).join('')}`;
    this.root.querySelector('.causal').checked = this.causal;
  }

  pick(row, focus = false) {
    this.markInput();
    this.query = row;
    this.sync();
    if (focus) this.root.querySelector(`[data-row="${row}"]`).focus();
    this.invalidate({ now: true });
  }

  async loadSources() {
    if (this.src) return this.src;
    const [row, fast] = await Promise.all(Object.values(SHOWN).map(async (s) => ({ ...s, ...cutFunction(await source(s.file), s.start) })));
    this.hljs = await loadHighlighter();
    this.src = { row, fast };
    return this.src;
  }

  async compute() {
    const { T, query, causal, words, x, wq, wk, wv } = this;   // what this row is computed from
    const d = wq[0].length, dv = wv[0].length, dIn = x[0].length;
    const X = Float32Array.from(x.flat());
    const weights = { wq, wk, wv };
    const [src, Q, K, V] = await Promise.all([
      this.loadSources(),
      ...['wq', 'wk', 'wv'].map((w) => this.ask('gemm', [X, Float32Array.from(weights[w].flat()), { M: T, N: weights[w][0].length, K: dIn }], `gemm-${w}`)),
    ]);
    if (dv !== d) throw new Error('code walk: W_V must have as many columns as W_Q (attention takes one width d)');
    const shape = { T, d, causal, scale: true };
    const [row, fast, dots] = await Promise.all([
      this.ask('attentionRow', [Q, K, V, { ...shape, query }]),
      this.ask('attention', [Q, K, V, shape]),
      this.ask('scores', [Q, K, { T, d, scale: false }]),
    ]);
    const fastWeights = Array.from(fast.weights.subarray(query * T, (query + 1) * T));
    this.state = { T, words, x, wq, wk, wv, query, causal, src, Q: rows(Q, d), K: rows(K, d), V: rows(V, d), dots: rows(dots, T)[query], row, fastWeights, fastOut: Array.from(fast.output.subarray(query * d, (query + 1) * d)) };
    this.render();
  }

  // The note beside each line of the row function, from the core's values (null: the line has none).
  notes() {
    const { row, Q, dots, query: t, words: w, T } = this.state;
    const visible = Array.from(row.score, Number.isFinite);
    const seen = visible.filter(Boolean).length;
    const rules = [
      [/^bool attention_row_ref\(/, () => `query t = ${t} ("${w[t]}"), head h = 0; q = (${Q[t].map((v) => fmt(v)).join(', ')})`],
      [/const int g = /, () => `one key/value head: g = 0; ${T} keys`],
      [/r\.score\.assign/, () => `score = ${list(row.score.map(() => -Infinity))} to start`],
      [/const bool visible = /, () => `visible: ${w.map((x, s) => `${x} ${visible[s] ? '✓' : '✗'}`).join(', ')}`],
      [/if \(!visible\) continue/, () => (seen < T ? `skips ${w.filter((_, s) => !visible[s]).map((x) => `"${x}"`).join(', ')}` : 'skips nothing')],
      [/dot \+= /, () => `q·k: ${w.map((x, s) => (visible[s] ? `${x} ${fmt(dots[s])}` : null)).filter(Boolean).join(', ')}`],
      [/r\.score\[s\] = /, () => `score = ${list(row.score)}`],
      [/r\.max = std::max/, () => `max = ${fmt(row.max)}`],
      [/if \(r\.max == ninf\)/, () => (row.sees ? `max is finite: the row sees ${seen} key${seen === 1 ? '' : 's'}` : 'nothing visible: return false')],
      [/r\.sum \+= r\.e\[s\]/, () => `e = ${list(row.e, 3)}\nsum = ${fmt(row.sum, 3)}`],
      [/r\.weight\[s\] = /, () => `weight = ${list(row.weight, 3)}`],
      [/r\.out\[d\] \+= /, () => `out = (${Array.from(row.out, (v) => fmt(v, 3)).join(', ')})`],
      [/return true;/, () => `the output of "${w[t]}"`],
    ];
    return this.state.src.row.lines.map((line) => {
      const hit = rules.find(([re]) => re.test(line.trim()));
      return hit ? hit[1]() : null;
    });
  }

  render() {
    const { src, row } = this.state;
    const notes = this.notes();
    this.noteList = notes;
    // the steps: every line that is code (not blank, not only a comment)
    this.steps = src.row.lines.map((l, i) => i).filter((i) => !/^\s*(\/\/.*)?$/.test(src.row.lines[i]));
    this.showSource();
    const diff = Math.max(...this.state.fastWeights.map((x, s) => Math.abs(x - row.weight[s])));
    this.root.querySelector('.fast-check').textContent = `For the row of "${this.state.words[this.state.query]}" it gives the weights `
      + `${list(this.state.fastWeights, 3)}: at most ${diff.toExponential(1)} from the reference's (float32 against float64).`;
    this.fastDiff = diff;
    const w = this.state.words;
    this.root.querySelector('.row-table tbody').innerHTML = w.map((x, s) => `<tr data-key="${esc(x)}"><th scope="row">${esc(x)}</th>
      <td class="score">${fmt(row.score[s])}</td><td class="e">${fmt(row.e[s], 3)}</td><td class="weight">${fmt(row.weight[s], 3)}</td></tr>`).join('');
    this.root.querySelector('.row-table tfoot').innerHTML = `<tr><th scope="row">max, sum</th><td class="max">${fmt(row.max)}</td>
      <td class="sum">${fmt(row.sum, 3)}</td><td></td></tr><tr><th scope="row">output</th><td class="out" colspan="3">(${Array.from(row.out, (v) => fmt(v, 3)).join(', ')})</td></tr>`;
    this.go(this.step, false);
  }

  // The highlighted listing, drawn once (the source does not change); the vectorised kernel's only when opened.
  showSource() {
    const { row, fast } = this.state.src;
    const line = (l, no, attrs = '', val = '') => `<div class="ln"${attrs} data-line="${no}"><span class="no" aria-hidden="true">${no}</span><code class="src">${
      this.hljs.highlight(l, { language: 'cpp', ignoreIllegals: true }).value}</code>${val}</div>`;
    const code = this.root.querySelector('.code');
    if (code.dataset.file !== row.file) {
      code.dataset.file = row.file;
      code.innerHTML = row.lines.map((l, i) => {
        const k = this.steps.indexOf(i);
        return line(l, row.from + i, ` role="listitem"${k >= 0 ? ` data-step="${k}"` : ''}`, '<span class="val"></span>');
      }).join('');
      this.root.querySelector('.file').textContent = row.file;
      this.root.querySelector('.range').textContent = `${row.from}–${row.to}`;
      this.root.querySelector('.fast-file').textContent = fast.file;
      this.root.querySelector('.fast-range').textContent = `${fast.from}–${fast.to}`;
    }
    const details = this.root.querySelector('details.fast'), listing = this.root.querySelector('.fast-code');
    const drawFast = () => {
      if (details.open && !listing.firstChild) listing.innerHTML = fast.lines.map((l, i) => line(l, fast.from + i)).join('');
    };
    if (!details._watched) {
      details._watched = true;
      details.addEventListener('toggle', drawFast);
    }
    drawFast();
  }

  go(step, input = true) {
    if (!this.steps) return;
    if (input) this.markInput();
    this.step = Math.max(0, Math.min(this.steps.length - 1, step));
    const at = this.steps[this.step];
    this.root.querySelectorAll('.code:not(.fast-code) .ln').forEach((el, i) => {
      const note = this.noteList[i];
      el.classList.toggle('cur', i === at);
      el.classList.toggle('done', i < at);
      if (i === at) el.setAttribute('aria-current', 'step');
      else el.removeAttribute('aria-current');
      el.querySelector('.val').textContent = note && i <= at ? note : '';
    });
    const line = this.state.src.row.lines[at].trim();
    const note = this.noteList[at];
    this.root.querySelector('.say').textContent = `Line ${this.state.src.row.from + at}: ${line}${note ? ` → ${note.replace('\n', '; ')}` : ''}`;
    this.root.querySelector('.counter').textContent = `line ${this.step + 1} of ${this.steps.length}`;
    this.root.querySelector('.prev').disabled = this.step === 0;
    this.root.querySelector('.next').disabled = this.step === this.steps.length - 1;
    this.root.querySelector('.end').disabled = this.step === this.steps.length - 1;
    if (input) this.root.querySelector('.cur')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    this.dataset.line = String(this.state.src.row.from + at);
    if (input) this.emit('lookback-change', { line: this.state.src.row.from + at, query: this.state.query });
  }

  // The exports run only once the widget is ready (the kit's exported()), so there is a computed state.
  exportData() {
    const s = this.state;
    const r = s.row;
    const json = {
      words: s.words, x: s.x, wq: s.wq, wk: s.wk, wv: s.wv, query: s.query, causal: s.causal,
      source: { file: s.src.row.file, from: s.src.row.from, to: s.src.row.to, text: s.src.row.lines.join('\n') },
      line: s.src.row.from + this.steps[this.step],
      row: { score: Array.from(r.score, (x) => (Number.isFinite(x) ? x : null)), max: r.max, e: Array.from(r.e), sum: r.sum,
        weight: Array.from(r.weight), out: Array.from(r.out), sees: r.sees },
      fastKernel: { weights: s.fastWeights, output: s.fastOut, largestWeightDifference: this.fastDiff },
    };
    const csv = [['key', 'score', 'e', 'weight'], ...s.words.map((w, i) => [w, Number.isFinite(r.score[i]) ? r.score[i] : '-inf', r.e[i], r.weight[i]]),
      ['max', r.max, '', ''], ['sum', '', r.sum, ''], ...Array.from(r.out, (v, d) => [`out[${d}]`, '', '', v])];
    return { json, csv };
  }

  exportCanvas() {
    const s = this.state;
    const { query, causal, words } = s;
    const at = this.steps[this.step] ?? 0;
    const lines = s.src.row.lines.map((l, i) => `${String(s.src.row.from + i).padStart(4)}  ${l}${this.noteList[i] && i <= at ? `   // ${this.noteList[i].replace('\n', '; ')}` : ''}`);
    return drawReport(this, {
      title: `attention_row_ref, row of "${words[query]}"${causal ? ' (causal)' : ''}`,
      width: 760,
      blocks: [
        { text: `${s.src.row.file}, lines ${s.src.row.from}-${s.src.row.to}; at line ${s.src.row.from + at}`, size: 12 },
        ...lines.map((l, i) => ({ text: l, size: 11, bold: i === at })),
      ],
    });
  }
}

define('lookback-code-walk', CodeWalk);
export { CodeWalk };
