// <lookback-cost>: what full attention costs as the context grows: scores per head, the causal share that is
// masked, scores per forward pass for all heads, and the memory of fp16 score matrices (decimal units that scale),
// with the plot of both against length (log axes).
// Counts are formulas (T², T(T-1)/2); for lengths up to 2,048 the masked count is also counted on the core's own
// causal mask. Not a benchmark: nothing here is timed.
import { LookbackWidget, define, fmt, grouped } from './widget-kit.js';
import { drawReport } from './export.js';
import { bytesText, costPlot } from '../figures/index.js';

const LENGTHS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
const TABLE = [512, 2048, 8192, 32768, 131072];
const COUNT_LIMIT = 2048;
const BYTES = 2;   // fp16


const CSS = `
.controls { display: grid; gap: .4rem; }
.controls label { display: grid; grid-template-columns: 8.5rem minmax(0, 1fr) 5.5rem; gap: .5rem; align-items: center; }
.controls output { font-family: var(--lb-mono); text-align: right; }
.plot svg { width: 100%; height: auto; display: block; margin-top: .6rem; }
@container (max-width: 420px) { .controls label { grid-template-columns: 1fr 4.5rem; } .controls input { grid-column: 1 / -1; grid-row: 2; } }
dl { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .5rem; margin: .8rem 0; }
dl div { background: var(--lb-page); border-radius: 8px; padding: .4rem .6rem; }
dt { color: var(--lb-muted); font-size: .85rem; }
dd { margin: 0; font: 600 1.15rem var(--lb-mono); }
dd small { font: .8rem var(--lb-font); color: var(--lb-muted); display: block; }
table.lengths td { white-space: nowrap; }
@container (max-width: 520px) { table.lengths .pp { display: none; } table.lengths { font-size: .85rem; } }
tr.cur { background: color-mix(in srgb, var(--lb-accent) 14%, transparent); }
`;

/**
 * @attr length - the text length in tokens, snapped to the nearest row of the table (default 512)
 * @attr heads - heads per layer
 * @attr layers - how many layers
 * @fires lookback-change - the sizes changed (detail: the sizes and the operations counted)
 */
class Cost extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['length', 'heads', 'layers'];

  constructor() {
    super();
    this.readAttributes();
  }

  readAttributes() {
    const int = (n, d, lo, hi) => {
      const v = Number.parseInt(this.getAttribute(n) ?? d, 10);
      return Number.isFinite(v) ? Math.max(lo, Math.min(hi, v)) : d;
    };
    const T = int('length', 512, 1, 1 << 20);
    this.li = LENGTHS.reduce((b, v, i) => (Math.abs(Math.log2(v / T)) < Math.abs(Math.log2(LENGTHS[b] / T)) ? i : b), 0);
    this.heads = int('heads', 6, 1, 128);
    this.layers = int('layers', 8, 1, 128);
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.sync();
      this.invalidate({ now: true });
    }
  }

  get T() {
    return LENGTHS[this.li];
  }

  build() {
    this.root.innerHTML = `
      <p class="title">What full attention costs</p>
      <div class="controls">
        <label><span>context length</span><input type="range" name="length" min="0" max="${LENGTHS.length - 1}" step="1"><output name="length"></output></label>
        <label><span>heads per layer</span><input type="range" name="heads" min="1" max="32" step="1"><output name="heads"></output></label>
        <label><span>layers</span><input type="range" name="layers" min="1" max="48" step="1"><output name="layers"></output></label>
      </div>
      <dl>
        <div><dt>scores per head</dt><dd class="per-head"></dd></div>
        <div><dt>masked (future) by the causal mask</dt><dd class="masked"></dd></div>
        <div><dt>scores per forward pass, all <span class="nheads"></span> heads</dt><dd class="per-pass"></dd></div>
        <div><dt>one fp16 score matrix (per head, per layer)</dt><dd class="mem-head"></dd></div>
        <div><dt>all heads and layers kept at once</dt><dd class="mem-model"></dd></div>
      </dl>
      <div class="plot"></div>
      <div class="scroll"><table class="num lengths">
        <caption>Four times the length: sixteen times the scores and memory</caption>
        <thead><tr><th scope="col">length</th><th scope="col">scores per head</th><th scope="col" class="pp">per pass, all heads</th>
          <th scope="col">one score matrix</th><th scope="col" class="pp">all heads and layers</th></tr></thead>
        <tbody></tbody></table></div>`;
    for (const input of this.root.querySelectorAll('input[type=range]')) {
      input.addEventListener('input', () => {
        this.markInput();
        if (input.name === 'length') this.li = Number(input.value);
        else this[input.name] = Number(input.value);
        this.sync();
        this.invalidate();
      });
    }
    this.sync();
  }

  sync() {
    const set = (name, value, text) => {
      const input = this.root.querySelector(`input[name=${name}]`);
      input.value = String(value);
      input.setAttribute('aria-valuetext', text);
      input.setAttribute('aria-label', name === 'length' ? 'context length in tokens' : name === 'heads' ? 'heads per layer' : 'layers');
      this.root.querySelector(`output[name=${name}]`).textContent = text;
    };
    set('length', this.li, grouped(this.T));
    set('heads', this.heads, String(this.heads));
    set('layers', this.layers, String(this.layers));
    this.dataset.length = String(this.T);
  }

  // The arithmetic of the table: counts are exact integers (T is at most 2^20, so T² fits a double exactly).
  numbers(T) {
    const total = this.heads * this.layers;
    return { T, perHead: T * T, masked: (T * (T - 1)) / 2, perPass: T * T * total,
      memHead: T * T * BYTES, memModel: T * T * BYTES * total, heads: total };
  }

  async compute() {
    const T = this.T;
    let counted = null;
    if (T <= COUNT_LIMIT) {
      const mask = await this.ask('causalMask', [T, T], 'mask');
      let hidden = 0;
      for (let i = 0; i < mask.length; i++) hidden += mask[i] ? 0 : 1;
      counted = { T, hidden, visible: mask.length - hidden };
    }
    this.current = { T, counted };
    this.render();
  }

  // The length computed (the slider may already be at a newer one).
  render() {
    const { T: length, counted } = this.current;
    const n = this.numbers(length);
    const q = (s) => this.root.querySelector(s);
    q('.per-head').textContent = grouped(n.perHead);
    const share = n.masked / n.perHead;
    q('.masked').innerHTML = `${grouped(n.masked)} <small>${fmt(100 * share, 1)}% of them${counted
      ? `; counted on a causal mask: ${grouped(counted.hidden)} hidden` : ''}</small>`;
    q('.nheads').textContent = String(n.heads);
    q('.per-pass').textContent = grouped(n.perPass);
    q('.mem-head').textContent = bytesText(n.memHead);
    q('.mem-model').textContent = bytesText(n.memModel);
    // a narrow widget (a phone) draws the two plots one above the other at its own width, so their text stays readable
    const width = q('.plot').clientWidth;
    q('.plot').innerHTML = width > 0 && width < 640 ? this.figure({ width }) : this.figure();
    const rows = tableLengths(length);
    q('table.lengths tbody').innerHTML = rows.map((T) => {
      const r = this.numbers(T);
      return `<tr data-length="${T}" class="${T === length ? 'cur' : ''}"><th scope="row">${grouped(T)}</th><td>${grouped(r.perHead)}</td>
        <td class="pp">${grouped(r.perPass)}</td><td>${bytesText(r.memHead)}</td><td class="pp">${bytesText(r.memModel)}</td></tr>`;
    }).join('');
    this.emit('lookback-change', { ...n, counted });
  }

  /** the plot as a standalone SVG (lookback/figures' costPlot) */
  figure({ width } = {}) {
    return costPlot({ lengths: LENGTHS, heads: this.heads, layers: this.layers, bytes: BYTES, length: this.current.T, width });
  }

  // The exports run only once the widget is ready (the kit's exported()), so there is a computed length.
  exportData() {
    const { T: length, counted } = this.current;
    const rows = tableLengths(length).map((T) => this.numbers(T));
    return {
      json: { length, headsPerLayer: this.heads, layers: this.layers, bytesPerScore: BYTES,
        current: this.numbers(length), countedOnCoreMask: counted, table: rows },
      csv: [['length', 'scores_per_head', 'masked_per_head', 'scores_per_pass', 'bytes_one_matrix', 'bytes_all_heads_layers'],
        ...rows.map((r) => [r.T, r.perHead, r.masked, r.perPass, r.memHead, r.memModel])],
    };
  }

  exportCanvas() {
    const length = this.current.T;
    const n = this.numbers(length);
    const rows = tableLengths(length);
    return drawReport(this, {
      title: `What full attention costs: ${grouped(length)} tokens, ${this.heads} heads x ${this.layers} layers`,
      blocks: [
        { text: `scores per head ${grouped(n.perHead)} (masked ${grouped(n.masked)}); per pass ${grouped(n.perPass)}` },
        { text: `one fp16 score matrix ${bytesText(n.memHead)}; all heads and layers ${bytesText(n.memModel)}` },
        { draw: (ctx, w, pal) => drawTriangle(ctx, w, pal), height: 110 },
        { table: { header: ['length', 'scores per head', 'per pass', 'one matrix', 'all heads+layers'],
          rows: rows.map((T) => { const r = this.numbers(T); return [grouped(T), grouped(r.perHead), grouped(r.perPass), bytesText(r.memHead), bytesText(r.memModel)]; }),
          fill: (i) => (rows[i] === length ? 'rgba(47, 95, 208, 0.16)' : null) } },
      ],
    });
  }
}

// The table's lengths with the one chosen among them, in order.
function tableLengths(length) {
  return [...new Set([...TABLE, length])].sort((a, b) => a - b);
}

// The score matrix as a square: the lower triangle is computed, the upper one masked.
function drawTriangle(ctx, w, pal) {
  const s = 100;
  ctx.fillStyle = pal.page;
  ctx.fillRect(0, 0, s, s);
  ctx.fillStyle = pal.accent;
  ctx.beginPath(); ctx.moveTo(0, 0); ctx.lineTo(s, s); ctx.lineTo(0, s); ctx.closePath(); ctx.fill();
  ctx.strokeStyle = pal.rule;
  ctx.strokeRect(0.5, 0.5, s, s);
  ctx.fillStyle = pal.fg;
  ctx.font = `12px ${pal.font}`;
  ctx.textBaseline = 'middle';
  ctx.fillText('lower triangle: computed; upper triangle: masked (the future)', s + 12, s / 2);
}

define('lookback-cost', Cost);
export { Cost };
