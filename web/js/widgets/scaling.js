// <lookback-scaling>: why scores are divided by √d. 1,000 seeded random queries against 16 random keys (standard
// normal entries) of width d; the core computes all scores in one call and all softmax rows in one call; the
// widget shows the histogram of scores and the average largest weight, raw and scaled. Not a training demo.
import { LookbackWidget, define, fmt, seeded } from './widget-kit.js';
import { drawReport, snapshot } from './export.js';

const DS = [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512];
const TABLE_DS = [4, 32, 256];
// One x-axis for every width and for raw and scaled scores alike, so that the histogram shows the spread grow
// with d and shrink when scaled: ±64 holds raw scores to about 2.8 spreads even at d = 512; scores beyond it are
// counted in the end bins (and the label says how many).
const AXIS = 64;
const BINS = 129;

const CSS = `
.controls { display: grid; gap: .5rem; margin-bottom: .6rem; }
label.d { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; }
label.d input { flex: 1 1 10rem; }
.dval { font-family: var(--lb-mono); min-width: 4.5rem; }
canvas.hist { width: 100%; height: 180px; display: block; background: var(--lb-page); border-radius: 8px; }
.big { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: .5rem; margin: .6rem 0; }
.big div { background: var(--lb-page); border-radius: 8px; padding: .4rem .6rem; }
.big b { display: block; font-size: 1.35rem; font-family: var(--lb-mono); }
.big .on { outline: 2px solid var(--lb-accent); }
details { margin-top: .5rem; }
table.fixed { min-width: 17rem; }
summary { cursor: pointer; color: var(--lb-muted); }
`;

/**
 * @attr d - the vector width, snapped to the nearest width the widget offers (default 32)
 * @attr scaled - present (and not `false`): scores divided by √d
 * @attr seed - the random seed of the sampled vectors (default 1)
 * @attr queries - how many random queries are sampled, 10 to 5000 (default 1000)
 * @attr keys - keys per query, 2 to 256 (default 16)
 * @fires lookback-change - the dimension changed (detail {d, scaled, averageLargestWeight})
 */
class Scaling extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['d', 'scaled', 'seed', 'queries', 'keys'];

  constructor() {
    super();
    this.readAttributes();
    this.tableRows = null;
  }

  readAttributes() {
    const d = Number(this.getAttribute('d') || 32);
    this.di = DS.reduce((best, v, i) => (Math.abs(v - d) < Math.abs(DS[best] - d) ? i : best), 0);
    this.scaled = this.hasAttribute('scaled') && this.getAttribute('scaled') !== 'false';
    const int = (name, def, lo, hi) => {
      const n = Number.parseInt(this.getAttribute(name) ?? def, 10);
      return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : def;
    };
    const seed = int('seed', 1, 0, 2 ** 31), N = int('queries', 1000, 10, 5000), S = int('keys', 16, 2, 256);
    if (seed !== this.seed || N !== this.N || S !== this.S) {
      Object.assign(this, { seed, N, S, pool: null, tableRows: null });
    }
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.sync();
      this.invalidate({ now: true });
    }
  }

  get d() {
    return DS[this.di];
  }

  // All queries and keys at the largest width, made once; width d uses the first d entries of each vector.
  ensurePool() {
    if (this.pool) return this.pool;
    const { normal } = seeded(this.seed);
    const D = DS[DS.length - 1];
    const Q = new Float32Array(this.N * D), K = new Float32Array(this.S * D);
    for (let i = 0; i < Q.length; i++) Q[i] = normal();
    for (let i = 0; i < K.length; i++) K[i] = normal();
    this.pool = { Q, K, D };
    return this.pool;
  }

  slice(d) {
    const { Q, K, D } = this.ensurePool();
    const q = new Float32Array(this.N * d), k = new Float32Array(this.S * d);
    for (let i = 0; i < this.N; i++) q.set(Q.subarray(i * D, i * D + d), i * d);
    for (let i = 0; i < this.S; i++) k.set(K.subarray(i * D, i * D + d), i * d);
    return { q, k };
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Scores grow with the width d; dividing by √d keeps them in range</p>
      <div class="controls">
        <label class="d">width d <input type="range" min="0" max="${DS.length - 1}" step="1"><span class="dval" aria-hidden="true"></span></label>
        <div class="row" role="group" aria-label="Scores used">
          <button type="button" data-scaled="false">raw q·k</button>
          <button type="button" data-scaled="true">q·k / √d</button>
        </div>
      </div>
      <canvas class="hist" role="img" aria-label="Histogram of scores (computing when on screen)"></canvas>
      <div class="big">
        <div data-which="raw">average largest weight, raw<b class="raw">…</b></div>
        <div data-which="scaled">average largest weight, scaled<b class="scaled">…</b></div>
        <div>even spread over <span class="nkeys"></span> keys<b class="even"></b></div>
      </div>
      <p class="hint spread" aria-live="polite"></p>
      <div class="scroll"><table class="num fixed">
        <caption>Measured now, same queries and keys, three widths</caption>
        <thead><tr><th scope="col">d</th><th scope="col">raw</th><th scope="col">scaled</th></tr></thead>
        <tbody>${TABLE_DS.map((d) => `<tr data-d="${d}"><th scope="row">${d}</th><td class="raw">…</td><td class="scaled">…</td></tr>`).join('')}</tbody>
      </table></div>
      <details><summary>Histogram as a table</summary><div class="scroll"><table class="num bins">
        <thead><tr><th scope="col">score from</th><th scope="col">to</th><th scope="col">count</th></tr></thead><tbody></tbody></table></div></details>`;
    this.slider = this.root.querySelector('input[type=range]');
    this.canvas = this.root.querySelector('canvas');
    this.slider.setAttribute('aria-label', 'width d of queries and keys');
    this.slider.addEventListener('input', () => {
      this.markInput();
      this.di = Number(this.slider.value);
      this.sync();
      this.invalidate();
    });
    this.root.querySelector('[role=group]').addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      this.markInput();
      this.scaled = b.dataset.scaled === 'true';
      this.sync();
      this.invalidate({ now: true });
    });
    new ResizeObserver(() => this.draw()).observe(this.canvas);
    this.sync();
  }

  sync() {
    this.slider.value = String(this.di);
    this.slider.setAttribute('aria-valuetext', `d = ${this.d}`);
    this.root.querySelector('.dval').textContent = `d = ${this.d}`;
    this.root.querySelectorAll('[data-scaled]').forEach((b) => b.setAttribute('aria-pressed', String((b.dataset.scaled === 'true') === this.scaled)));
    this.root.querySelector('[data-which="raw"]').classList.toggle('on', !this.scaled);
    this.root.querySelector('[data-which="scaled"]').classList.toggle('on', this.scaled);
    this.root.querySelector('.nkeys').textContent = String(this.S);
    this.dataset.d = String(this.d);
  }

  // Scores (raw and scaled), their softmax rows, and the averages, for one width; every number from the core.
  async measure(d, name, keep = false) {
    const { N, S, seed } = this;
    const { q, k } = this.slice(d);
    const ask = (op, args, n) => this.ask(op, args, `${name}-${n}`, { keep });
    const [raw, scaled] = await Promise.all([
      ask('scores', [q, k, { T: N, S, d, scale: false }], 'raw'),
      ask('scores', [q, k, { T: N, S, d, scale: true }], 'scaled'),
    ]);
    const [wr, ws] = await Promise.all([
      ask('softmax', [raw, { rows: N, cols: S }], 'wraw'),
      ask('softmax', [scaled, { rows: N, cols: S }], 'wscaled'),
    ]);
    const mean = new Float32Array(N).fill(1 / N);
    const largest = (w) => {
      const out = new Float32Array(N);
      for (let i = 0; i < N; i++) {
        let m = 0;
        for (let j = 0; j < S; j++) if (w[i * S + j] > m) m = w[i * S + j];
        out[i] = m;
      }
      return out;
    };
    const [avgRaw, avgScaled, sqRaw, sqScaled] = await Promise.all([
      ask('dot', [largest(wr.weights), mean], 'avgraw'),
      ask('dot', [largest(ws.weights), mean], 'avgscaled'),
      ask('dot', [raw, raw], 'sqraw'),
      ask('dot', [scaled, scaled], 'sqscaled'),
    ]);
    return { d, N, S, seed, raw, scaled, avgRaw, avgScaled, rmsRaw: Math.sqrt(sqRaw / raw.length), rmsScaled: Math.sqrt(sqScaled / scaled.length) };
  }

  async compute() {
    if (!this.tableRows) this.fillTable();
    this.current = await this.measure(this.d, 'live');
    this.render();
  }

  async fillTable() {
    const rows = this.tableRows = [];
    try {
      for (const d of TABLE_DS) {
        const r = await this.measure(d, `table-${d}`, true);
        if (this.tableRows !== rows) return;   // new queries or keys meanwhile: a newer table is being filled
        rows.push(r);
        const tr = this.root.querySelector(`tr[data-d="${d}"]`);
        tr.querySelector('.raw').textContent = fmt(r.avgRaw);
        tr.querySelector('.scaled').textContent = fmt(r.avgScaled);
      }
      this.root.querySelector('table.fixed').dataset.state = 'done';
    } catch (err) {
      if (this.tableRows === rows) this.tableRows = null;
      if (err?.name !== 'AbortError') this.showError(err);
    }
  }

  histogram() {
    const c = this.current;
    const s = this.scaled ? c.scaled : c.raw;
    const rms = this.scaled ? c.rmsScaled : c.rmsRaw;
    const lim = AXIS;
    const counts = new Array(BINS).fill(0);
    let beyond = 0;
    for (const x of s) {
      const b = Math.floor(((x + lim) / (2 * lim)) * BINS);
      if (b < 0 || b >= BINS) beyond++;
      counts[Math.max(0, Math.min(BINS - 1, b))]++;
    }
    return { lim, counts, rms, beyond, scaled: this.scaled };
  }

  render() {
    const c = this.current;
    const q = (sel) => this.root.querySelector(sel);
    q('b.raw').textContent = fmt(c.avgRaw);
    q('b.scaled').textContent = fmt(c.avgScaled);
    q('b.even').textContent = fmt(1 / c.S);
    q('.nkeys').textContent = String(c.S);
    const h = this.histogram();
    this.hist = h;
    q('.spread').textContent = `d = ${c.d}: raw scores spread about ±${fmt(c.rmsRaw, 1)} (root mean square; √d = ${fmt(Math.sqrt(c.d), 1)}); `
      + `scaled scores about ±${fmt(c.rmsScaled, 2)}. Average largest weight: raw ${fmt(c.avgRaw)}, scaled ${fmt(c.avgScaled)}.`;
    this.canvas.setAttribute('aria-label', `Histogram of ${c.raw.length} ${h.scaled ? 'scaled' : 'raw'} scores at d = ${c.d}, on a fixed axis from ${-h.lim} to ${h.lim}${h.beyond ? ` (${h.beyond} beyond it, counted in the end bins)` : ''}; spread about ±${fmt(h.rms, 2)}. The table below lists the counts.`);
    const w = (2 * h.lim) / BINS;
    q('table.bins tbody').innerHTML = h.counts.map((n, i) => (n ? `<tr><td>${fmt(-h.lim + i * w, 2)}</td><td>${fmt(-h.lim + (i + 1) * w, 2)}</td><td>${n}</td></tr>` : '')).join('');
    this.draw();
    this.emit('lookback-change', { d: c.d, scaled: h.scaled, averageLargestWeight: { raw: c.avgRaw, scaled: c.avgScaled } });
  }

  draw(target = this.canvas, cssW, cssH) {
    if (!this.hist) return;
    const r = this.canvas.getBoundingClientRect();
    const W = cssW || r.width || 480, H = cssH || r.height || 180;
    const dpr = target === this.canvas ? (window.devicePixelRatio || 1) : 2;
    target.width = Math.round(W * dpr);
    target.height = Math.round(H * dpr);
    const ctx = target.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const css = getComputedStyle(this);
    const col = (n, f) => css.getPropertyValue(n).trim() || f;
    const fg = col('--lb-fg', '#1d1d1f'), accent = col('--lb-accent', '#2f5fd0'), rule = col('--lb-rule', '#d6d5cc');
    const page = col('--lb-page', '#fdfcf8'), font = col('--lb-font', 'sans-serif');
    ctx.fillStyle = page;
    ctx.fillRect(0, 0, W, H);
    const { lim, counts } = this.hist;
    const max = Math.max(...counts);
    const padB = 22, padT = 10, bw = (W - 20) / BINS;
    ctx.fillStyle = accent;
    counts.forEach((n, i) => {
      const h = (H - padB - padT) * (n / max);
      ctx.fillRect(10 + i * bw + 0.5, H - padB - h, Math.max(1, bw - 1), h);
    });
    ctx.strokeStyle = rule;
    ctx.beginPath(); ctx.moveTo(10, H - padB + 0.5); ctx.lineTo(W - 10, H - padB + 0.5); ctx.stroke();
    ctx.fillStyle = fg;
    ctx.font = `12px ${font}`;
    ctx.textBaseline = 'top';
    for (const t of [-lim, -lim / 2, 0, lim / 2, lim]) {
      const x = 10 + ((t + lim) / (2 * lim)) * (W - 20);
      ctx.textAlign = t === -lim ? 'left' : t === lim ? 'right' : 'center';
      ctx.fillText(fmt(t, 0), x, H - padB + 5);
    }
    ctx.textAlign = 'left';
    ctx.fillText(`${this.hist.scaled ? 'scaled' : 'raw'} scores, d = ${this.current.d} (the same axis for every d)`, 12, padT);
  }

  // The exports run only once the widget is ready (the kit's exported()), so the width shown has been measured and
  // drawn; the table of widths may still be filling (or refilling).
  exportData() {
    const c = this.current, h = this.hist;
    const json = { seed: c.seed, queries: c.N, keys: c.S, d: c.d, scaled: h.scaled,
      averageLargestWeight: { raw: c.avgRaw, scaled: c.avgScaled, even: 1 / c.S },
      spread: { raw: c.rmsRaw, scaled: c.rmsScaled },
      histogram: { from: -h.lim, to: h.lim, counts: h.counts, beyond: h.beyond },
      table: (this.tableRows || []).map((r) => ({ d: r.d, raw: r.avgRaw, scaled: r.avgScaled })) };
    const csv = [['d', 'average_largest_weight_raw', 'average_largest_weight_scaled', 'rms_raw', 'rms_scaled'],
      ...(this.tableRows || []).map((r) => [r.d, r.avgRaw, r.avgScaled, r.rmsRaw, r.rmsScaled])];
    csv.push([c.d, c.avgRaw, c.avgScaled, c.rmsRaw, c.rmsScaled]);
    return { json, csv };
  }

  exportCanvas() {
    const pic = document.createElement('canvas');
    this.draw(pic, 600, 200);
    const c = this.current;
    return drawReport(this, {
      title: `Scores at width d = ${c.d} (${c.N} queries, ${c.S} keys)`,
      blocks: [
        { picture: snapshot(pic), width: 600, height: 200 },
        { text: `average largest weight: raw ${fmt(c.avgRaw)}, scaled ${fmt(c.avgScaled)}, even spread ${fmt(1 / c.S)}` },
        { table: { header: ['d', 'raw', 'scaled'], rows: (this.tableRows || []).map((r) => [String(r.d), fmt(r.avgRaw), fmt(r.avgScaled)]) } },
      ],
    });
  }
}

define('lookback-scaling', Scaling);
export { Scaling };
