// <lookback-qkv-plane>: a 2-D plane with one query and four keys to drag; each key carries a colour as its
// value, and the output is the attention-weighted blend of the colours. Scores, weights and the blended output
// come from the core (scores op; attention op). Not the chapter's model: all vectors are the reader's own.
import { LookbackWidget, define, esc, fmt, jsonAttr } from './widget-kit.js';
import { drawReport, snapshot } from './export.js';

const START = {
  query: [1.4, 0.7],
  keys: [[1.6, 0.9], [-1.2, 1.3], [-1.5, -0.6], [0.4, -1.6]],
};
const LABELS = ['girl', 'ball', 'red', 'ran'];
// Each key's value is a colour; the key named "red" carries red.
const VALUES = [[0, 0, 1], [0, 1, 0], [1, 0, 0], [0.5, 0.5, 0.5]];
const VALUE_NAMES = ['blue', 'green', 'red', 'grey'];
const RANGE = 3.5;   // the plane shows [-RANGE, RANGE] on both axes
const STEP = 0.1;    // one arrow key press

const PRESETS = {
  start: { label: 'Start', say: 'The starting position.' },
  zero: { label: 'Zero query', say: 'A zero query scores every key 0, so the weights are equal.', query: [0, 0] },
  long: { label: 'Long query', say: 'The same direction, twice as long: every score doubles and softmax gets sharper.',
    query: [2.8, 1.4] },
  nobody: { label: 'Nobody fits', say: 'Every key points away from the query, so every score is negative. The weights still sum to 1: the least bad key wins.',
    query: [-1.2, -0.9], keys: [[1.6, 0.9], [0.2, 1.5], [1.3, -0.4], [0.3, 0.2]] },
};

const CSS = `
.layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: .8rem; }
@container (min-width: 620px) { .layout { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.plane-wrap { position: relative; width: 100%; max-width: 440px; }
canvas.plane { display: block; width: 100%; aspect-ratio: 1; touch-action: none; border-radius: 8px;
  background: var(--lb-page); cursor: crosshair; }
.pick button { font-size: .85rem; }
.out { display: flex; align-items: center; gap: .6rem; margin: .4rem 0; }
.swatch { width: 2.6rem; height: 2.6rem; border-radius: 8px; border: 1px solid var(--lb-rule); flex: none; }
td.w { min-width: 6.8rem; white-space: nowrap; }
td.pos { white-space: nowrap; }
th .vname { display: block; font-weight: 400; font-size: .78rem; color: var(--lb-muted); margin-left: 1.1rem; }
table.num { font-size: .92rem; }
table.num th, table.num td { padding: .2rem .35rem; }
@container (max-width: 420px) { .bar { display: none; } td.w { min-width: 0; } table.num { font-size: .85rem; } }
.bar { display: inline-block; height: .7rem; background: var(--lb-accent); border-radius: 2px; vertical-align: middle;
  margin-right: .35rem; }
.dot { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; vertical-align: -1px;
  margin-right: .3rem; border: 1px solid var(--lb-rule); }
label.temp { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
label.temp input { flex: 1 1 8rem; }
tr.sum td { border-bottom: 0; color: var(--lb-muted); }
`;

/**
 * @attr query - the query vector, JSON `[x, y]`
 * @attr keys - the keys, JSON `[[x, y], ...]`, 1 to 8 of them
 * @attr labels - a label per key, JSON `["...", ...]`
 * @attr values - a value per key, JSON `[[a, b, c], ...]` (three numbers each)
 * @attr temperature - the softmax temperature, above 0 (default 1)
 * @fires lookback-change - a vector was moved (detail: scores, weights, query and keys)
 */
class QkvPlane extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['query', 'keys', 'labels', 'values', 'temperature'];

  constructor() {
    super();
    this.selected = 0;           // 0 = the query, 1..4 = keys
    this.result = null;
    this.readAttributes();
  }

  readAttributes() {
    const pair = (p) => Array.isArray(p) && p.length === 2 && p.every(Number.isFinite);
    this.query = jsonAttr(this, 'query', START.query, pair).slice();
    this.keys = jsonAttr(this, 'keys', START.keys, (k) => Array.isArray(k) && k.length >= 1 && k.length <= 8 && k.every(pair))
      .map((k) => k.slice());
    const n = this.keys.length;
    this.labels = jsonAttr(this, 'labels', LABELS.slice(0, n), (l) => Array.isArray(l) && l.length === n);
    this.values = jsonAttr(this, 'values', Array.from({ length: n }, (_, i) => VALUES[i % 4]),
      (v) => Array.isArray(v) && v.length === n && v.every((c) => Array.isArray(c) && c.length === 3 && c.every(Number.isFinite)));
    const t = Number(this.getAttribute('temperature') ?? 1);
    this.temperature = Number.isFinite(t) && t > 0 ? t : 1;
    this.initial = { query: this.query.slice(), keys: this.keys.map((k) => k.slice()) };
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.buildRows();
      this.syncControls();
      this.invalidate({ now: true });
    }
  }

  get points() {
    return [this.query, ...this.keys];
  }

  pointName(i) {
    return i === 0 ? 'the query' : `key "${this.labels[i - 1]}"`;
  }

  build() {
    this.root.innerHTML = `
      <p class="title">Query, keys and values on a plane</p>
      <div class="layout">
        <div>
          <div class="plane-wrap">
            <canvas class="plane" tabindex="0" role="application" aria-roledescription="draggable plane"></canvas>
          </div>
          <p class="hint" id="howto">Drag the query (the arrow) or a key. Keyboard: focus the plane, choose a point
            with Q or 1 to ${this.keys.length}, move it with the arrow keys (Shift for bigger steps).</p>
          <div class="row pick" role="group" aria-label="Point to move"></div>
        </div>
        <div>
          <div class="scroll"><table class="num">
            <caption>Scores are dot products q·k; weights are softmax(scores / τ)</caption>
            <thead><tr><th scope="col">key (value)</th><th scope="col">position</th>
              <th scope="col">score</th><th scope="col">weight</th></tr></thead>
            <tbody></tbody>
          </table></div>
          <div class="out"><div class="swatch" role="img" aria-label="output colour"></div>
            <div><div>output = Σ weight × value</div><div class="mono outnum"></div></div></div>
          <label class="temp">temperature τ <input type="range" min="0.1" max="3" step="0.05" value="1"
            aria-describedby="tempnote"><span class="mono tval"></span></label>
          <p class="hint" id="tempnote">Small τ sharpens the weights towards the best key; large τ evens them out.</p>
          <div class="row presets" role="group" aria-label="Presets"></div>
          <p class="hint status" aria-live="polite"></p>
          <p class="sr-only" aria-live="polite" data-announce></p>
        </div>
      </div>`;
    this.canvas = this.root.querySelector('canvas');
    this.tbody = this.root.querySelector('tbody');
    this.slider = this.root.querySelector('input[type=range]');
    this.canvas.setAttribute('aria-describedby', 'howto');
    const presets = this.root.querySelector('.presets');
    for (const [id, p] of Object.entries(PRESETS)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.preset = id;
      b.textContent = p.label;
      presets.append(b);
    }
    presets.addEventListener('click', (e) => {
      const id = e.target.closest('button')?.dataset.preset;
      if (id) this.applyPreset(id);
    });
    this.root.querySelector('.pick').addEventListener('click', (e) => {
      const i = e.target.closest('button')?.dataset.point;
      if (i !== undefined) this.select(Number(i));
    });
    this.slider.addEventListener('input', () => {
      this.markInput();
      this.temperature = Number(this.slider.value);
      this.leftPreset();
      this.syncControls();
      this.invalidate();
    });
    this.canvas.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.canvas.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.canvas.addEventListener('pointerup', (e) => this.onPointerUp(e));
    this.canvas.addEventListener('pointercancel', (e) => this.onPointerUp(e));
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    new ResizeObserver(() => this.draw()).observe(this.canvas);
    this.buildRows();
    this.syncControls();
  }

  buildRows() {
    this.tbody.innerHTML = this.keys.map((_, i) => `<tr data-key="${esc(this.labels[i])}">
      <th scope="row"><span class="dot" style="background:${rgb(this.values[i])}"></span>${esc(this.labels[i])}
        <span class="vname">${esc(colourName(this.values[i]))}</span></th>
      <td class="pos mono"></td><td class="score mono"></td>
      <td class="w mono"><span class="bar" style="width:0"></span><span class="weight"></span></td></tr>`).join('')
      + '<tr class="sum"><td>sum</td><td></td><td></td><td class="mono wsum"></td></tr>';
    const pick = this.root.querySelector('.pick');
    pick.innerHTML = `<span class="hint">Move:</span>${this.points.map((_, i) => `<button type="button" data-point="${i}"
      aria-pressed="${i === this.selected}">${i === 0 ? 'query' : esc(this.labels[i - 1])}</button>`).join('')}`;
  }

  syncControls() {
    this.slider.value = String(this.temperature);
    this.slider.setAttribute('aria-valuetext', `temperature ${fmt(this.temperature)}`);
    this.root.querySelector('.tval').textContent = fmt(this.temperature);
    this.root.querySelectorAll('.pick button').forEach((b) => b.setAttribute('aria-pressed', String(Number(b.dataset.point) === this.selected)));
    const rows = this.tbody.querySelectorAll('tr[data-key]');
    this.keys.forEach((k, i) => { rows[i].querySelector('.pos').textContent = `${fmt(k[0], 1)}, ${fmt(k[1], 1)}`; });
    const [x, y] = this.points[this.selected];
    this.canvas.setAttribute('aria-label', `Plane of the query and ${this.keys.length} keys. Selected: ${this.pointName(this.selected)} at (${fmt(x, 1)}, ${fmt(y, 1)}).`);
  }

  select(i) {
    this.selected = Math.max(0, Math.min(this.keys.length, i));
    this.syncControls();
    this.draw();
  }

  applyPreset(id) {
    const p = PRESETS[id];
    this.markInput();
    if (id === 'start') {
      this.query = this.initial.query.slice();
      this.keys = this.initial.keys.map((k) => k.slice());
      this.temperature = Number(this.getAttribute('temperature') ?? 1) || 1;
    } else {
      this.query = p.query.slice();
      if (p.keys && p.keys.length === this.keys.length) this.keys = p.keys.map((k) => k.slice());
    }
    this.root.querySelector('.status').textContent = p.say;
    this.syncControls();
    this.draw();
    this.invalidate({ now: true });
  }

  // A preset's line describes the preset: once a point or τ moves, it no longer holds.
  leftPreset() {
    this.root.querySelector('.status').textContent = '';
  }

  // Moves a point (plane units), clamped to the plane, rounded to 0.01 so that the table shows exact inputs.
  movePoint(i, x, y) {
    const c = (v) => Math.round(Math.max(-RANGE, Math.min(RANGE, v)) * 100) / 100;
    const p = this.points[i];
    p[0] = c(x);
    p[1] = c(y);
    this.leftPreset();
    this.syncControls();
    this.draw();
  }

  onKey(e) {
    const k = e.key;
    if (k === 'q' || k === 'Q' || k === '0') this.select(0);
    else if (/^[1-9]$/.test(k) && Number(k) <= this.keys.length) this.select(Number(k));
    else if (k.startsWith('Arrow')) {
      const s = e.shiftKey ? 5 * STEP : STEP;
      const [x, y] = this.points[this.selected];
      const dx = k === 'ArrowRight' ? s : k === 'ArrowLeft' ? -s : 0;
      const dy = k === 'ArrowUp' ? s : k === 'ArrowDown' ? -s : 0;
      this.markInput();
      this.movePoint(this.selected, x + dx, y + dy);
      this.announceNext = true;
      this.invalidate({ now: true });
    } else return;
    e.preventDefault();
  }

  toPlane(e) {
    const r = this.canvas.getBoundingClientRect();
    return [((e.clientX - r.left) / r.width * 2 - 1) * RANGE, (1 - (e.clientY - r.top) / r.height * 2) * RANGE];
  }

  onPointerDown(e) {
    const r = this.canvas.getBoundingClientRect();
    const [px, py] = this.toPlane(e);
    const perUnit = r.width / (2 * RANGE);
    const radius = (e.pointerType === 'touch' ? 30 : 20) / perUnit;
    let best = -1, bestD = Infinity;
    this.points.forEach(([x, y], i) => {
      const d = Math.hypot(x - px, y - py);
      if (d < bestD) { best = i; bestD = d; }
    });
    if (bestD <= radius) this.selected = best;
    this.dragging = e.pointerId;
    this.canvas.setPointerCapture(e.pointerId);
    this.canvas.focus({ preventScroll: true });
    this.markInput();
    this.movePoint(this.selected, px, py);
    this.invalidate();
    e.preventDefault();
  }

  onPointerMove(e) {
    if (this.dragging !== e.pointerId) return;
    this.markInput();
    const [x, y] = this.toPlane(e);
    this.movePoint(this.selected, x, y);
    this.invalidate();
  }

  onPointerUp(e) {
    if (this.dragging !== e.pointerId) return;
    this.dragging = null;
    this.announceNext = true;
    this.invalidate();
  }

  async compute() {
    const query = this.query.slice(), keys = this.keys.map((p) => p.slice()), { temperature } = this;
    const n = keys.length;
    const q = Float32Array.from(query);
    const k = Float32Array.from(keys.flat());
    // The attention op takes one width d for q, k and v; the values are 3 numbers (a colour), so q and k get a
    // third coordinate 0, which changes no dot product.
    const q3 = Float32Array.from([...query, 0]);
    const k3 = Float32Array.from(keys.flatMap((p) => [...p, 0]));
    const v = Float32Array.from(this.values.flat());
    const [scores, att] = await Promise.all([
      this.ask('scores', [q, k, { T: 1, S: n, d: 2, scale: false }]),
      this.ask('attention', [q3, k3, v, { T: 1, S: n, d: 3, scale: false, temperature }]),
    ]);
    this.result = { query, keys, temperature, scores: Array.from(scores), weights: Array.from(att.weights), output: Array.from(att.output) };
    this.render();
  }

  // The positions and temperature computed (a drag may already be further on).
  render() {
    const { query, keys, scores, weights, output } = this.result;
    const rows = this.tbody.querySelectorAll('tr[data-key]');
    weights.forEach((w, i) => {
      rows[i].querySelector('.score').textContent = fmt(scores[i]);
      rows[i].querySelector('.weight').textContent = fmt(w, 3);
      rows[i].querySelector('.bar').style.width = `${(w * 2.6).toFixed(2)}rem`;
    });
    this.tbody.querySelector('.wsum').textContent = fmt(weights.reduce((a, w) => a + w, 0), 3);
    const sw = this.root.querySelector('.swatch');
    sw.style.background = rgb(output);
    sw.setAttribute('aria-label', `output colour ${colourName(output)}`);
    this.root.querySelector('.outnum').textContent = `(${output.map((x) => fmt(x, 3)).join(', ')})`;
    // announced once the numbers are those of where the points now are (not of a step the keys have passed)
    const latest = JSON.stringify([query, keys]) === JSON.stringify([this.query, this.keys]);
    if (this.announceNext && latest) {
      this.announceNext = false;
      const best = weights.indexOf(Math.max(...weights));
      this.root.querySelector('[data-announce]').textContent = `${this.pointName(this.selected)} at (${[query, ...keys][this.selected].map((x) => fmt(x, 1)).join(', ')}). `
        + `Scores ${scores.map((s) => fmt(s)).join(', ')}. Largest weight: ${this.labels[best]}, ${fmt(weights[best], 3)}.`;
    }
    this.draw();
    this.emit('lookback-change', { ...this.result, query: query.slice(), keys: keys.map((k) => k.slice()) });
  }

  // On screen the points as they are now; in an export (which runs once there is a result), where its numbers
  // were computed.
  draw(target = this.canvas, cssSize) {
    const { query, keys } = target === this.canvas ? this : this.result;
    const points = [query, ...keys];
    const selected = points[Math.min(this.selected, points.length - 1)];   // an export's points may be fewer than now
    const size = cssSize || this.canvas.getBoundingClientRect().width || 320;
    const dpr = target === this.canvas ? (window.devicePixelRatio || 1) : 2;
    const px = Math.round(size * dpr);
    if (target.width !== px) { target.width = px; target.height = px; }
    const ctx = target.getContext('2d');
    const css = getComputedStyle(this);
    const col = (n, f) => css.getPropertyValue(n).trim() || f;
    const fg = col('--lb-fg', '#1d1d1f'), rule = col('--lb-rule', '#d6d5cc'), muted = col('--lb-muted', '#55555f');
    const accent = col('--lb-accent', '#2f5fd0'), page = col('--lb-page', '#fdfcf8'), focus = col('--lb-focus', '#f0a500');
    const font = col('--lb-font', 'system-ui, sans-serif');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = page;
    ctx.fillRect(0, 0, size, size);
    const u = size / (2 * RANGE);
    const X = (x) => size / 2 + x * u, Y = (y) => size / 2 - y * u;
    ctx.strokeStyle = rule;
    ctx.lineWidth = 1;
    for (let g = -3; g <= 3; g++) {
      ctx.beginPath(); ctx.moveTo(X(g), 0); ctx.lineTo(X(g), size); ctx.stroke();
      ctx.beginPath(); ctx.moveTo(0, Y(g)); ctx.lineTo(size, Y(g)); ctx.stroke();
    }
    ctx.strokeStyle = muted;
    ctx.beginPath(); ctx.moveTo(X(-RANGE), Y(0)); ctx.lineTo(X(RANGE), Y(0)); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(X(0), Y(-RANGE)); ctx.lineTo(X(0), Y(RANGE)); ctx.stroke();
    const weights = this.result?.weights;
    const fontPx = Math.max(11, size / 28);
    ctx.font = `600 ${fontPx}px ${font}`;
    ctx.textBaseline = 'middle';
    const [qx, qy] = query;
    // what the labels must not cover: every dot, the query's diamond and the ring around the selected point
    const taken = [...keys.map(([x, y], i) => box(X(x), Y(y), 7 + 9 * (weights?.[i] ?? 0))), box(X(qx), Y(qy), 9)];
    const dots = taken.slice();
    const [rx, ry] = selected;
    taken.push(box(X(rx), Y(ry), 21));
    keys.forEach(([x, y], i) => {
      const w = weights?.[i] ?? 0;
      ctx.strokeStyle = rgb(this.values[i], 0.35 + 0.65 * w);
      ctx.lineWidth = 1 + 5 * w;
      ctx.beginPath(); ctx.moveTo(X(0), Y(0)); ctx.lineTo(X(x), Y(y)); ctx.stroke();
      ctx.beginPath();
      ctx.arc(X(x), Y(y), 7 + 9 * w, 0, 2 * Math.PI);
      ctx.fillStyle = rgb(this.values[i]);
      ctx.fill();
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = fg;
      ctx.stroke();
    });
    // the query: an arrow from the origin, filled with the output colour
    ctx.strokeStyle = accent;
    ctx.lineWidth = 3;
    arrow(ctx, X(0), Y(0), X(qx), Y(qy));
    ctx.beginPath();
    const s = 9;
    ctx.moveTo(X(qx), Y(qy) - s); ctx.lineTo(X(qx) + s, Y(qy)); ctx.lineTo(X(qx), Y(qy) + s); ctx.lineTo(X(qx) - s, Y(qy));
    ctx.closePath();
    ctx.fillStyle = this.result ? rgb(this.result.output) : page;
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = accent;
    ctx.stroke();
    // labels last, each in the free spot nearest its point
    const labels = [...keys.map(([x, y], i) => ({ text: this.labels[i], x: X(x), y: Y(y), r: 7 + 9 * (weights?.[i] ?? 0), colour: fg })),
      { text: 'query', x: X(qx), y: Y(qy), r: 9, colour: accent }];
    ctx.textAlign = 'left';
    const placed = labels.map((l) => {
      const b = placeLabel(l, ctx.measureText(l.text).width, fontPx, taken, size);
      taken.push(b);
      ctx.fillStyle = l.colour;
      ctx.fillText(l.text, b.x0, (b.y0 + b.y1) / 2);
      return { text: l.text, box: b };
    });
    if (target === this.canvas) this.layout = { dots, labels: placed };
    // the selected point
    const [sx, sy] = selected;
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = focus;
    ctx.lineWidth = 2;
    ctx.beginPath(); ctx.arc(X(sx), Y(sy), 20, 0, 2 * Math.PI); ctx.stroke();
    ctx.setLineDash([]);
  }

  // The exports run only once the widget is ready (the kit's exported()), so there is a result.
  exportData() {
    const r = this.result;
    return {
      json: {
        query: r.query, temperature: r.temperature, scale: 'none (plain dot products)',
        keys: r.keys.map((k, i) => ({ label: this.labels[i], position: k, value: this.values[i], score: r.scores[i], weight: r.weights[i] })),
        output: r.output,
      },
      csv: [['key', 'x', 'y', 'value_r', 'value_g', 'value_b', 'score', 'weight'],
        ...r.keys.map((k, i) => [this.labels[i], k[0], k[1], ...this.values[i], r.scores[i], r.weights[i]]),
        ['query', ...r.query, '', '', '', '', ''], ['output', '', '', ...r.output, '', '']],
    };
  }

  exportCanvas() {
    const pic = document.createElement('canvas');
    this.draw(pic, 420);
    const r = this.result;
    const { query, keys, temperature } = r;
    return drawReport(this, {
      title: 'Query, keys and values on a plane',
      blocks: [
        { picture: snapshot(pic), width: 420, height: 420 },
        { text: `query (${query.join(', ')}), temperature ${fmt(temperature)}` },
        { table: { header: ['key', 'position', 'score', 'weight'],
          rows: keys.map((k, i) => [this.labels[i], `(${k.join(', ')})`, fmt(r.scores[i]), fmt(r.weights[i], 3)]) } },
        { text: `output (${r.output.map((x) => fmt(x, 3)).join(', ')})` },
      ],
    });
  }
}

function rgb(c, alpha = 1) {
  const b = (x) => Math.round(255 * Math.max(0, Math.min(1, x)));
  return `rgba(${b(c[0])}, ${b(c[1])}, ${b(c[2])}, ${alpha})`;
}

function colourName(c) {
  const i = VALUES.findIndex((v) => v.every((x, j) => Math.abs(x - c[j]) < 1e-6));
  return i >= 0 ? VALUE_NAMES[i] : `(${c.map((x) => fmt(x, 2)).join(', ')})`;
}

function box(x, y, r) {
  return { x0: x - r, y0: y - r, x1: x + r, y1: y + r };
}

function grow(b, by) {
  return { x0: b.x0 - by, y0: b.y0 - by, x1: b.x1 + by, y1: b.y1 + by };
}

function overlap(a, b) {
  return Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
}

// A label's box: of eight spots around its point (right first), the first that keeps LABEL_GAP pixels from
// everything taken and stays on the canvas, else the one that overlaps least.
const LABEL_GAP = 3;
function placeLabel({ x, y, r }, w, h, taken, size) {
  const g = r + 4 + LABEL_GAP;
  const spots = [[g, -g], [g, g], [-g - w, -g], [-g - w, g], [-w / 2, -g - h / 2], [-w / 2, g + h / 2], [g, 0], [-g - w, 0]];
  let best = null;
  for (const [dx, dy] of spots) {
    const b = { x0: x + dx, y0: y + dy - h / 2, x1: x + dx + w, y1: y + dy + h / 2 };
    const out = Math.max(0, -b.x0) + Math.max(0, b.x1 - size) + Math.max(0, -b.y0) + Math.max(0, b.y1 - size);
    const cost = taken.reduce((a, t) => a + overlap(b, grow(t, LABEL_GAP)), 0) + out * h;
    if (!best || cost < best.cost) best = { b, cost };
    if (cost === 0) break;
  }
  return best.b;
}

function arrow(ctx, x0, y0, x1, y1) {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
}

define('lookback-qkv-plane', QkvPlane);
export { QkvPlane };
