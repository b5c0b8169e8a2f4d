// <lookback-training>: a small transformer trained live in the worker (a few steps per request, so the page never
// blocks), with its loss curves (training, held-out, the task's own targets), every head's attention on a fixed
// probe, each head's previous-token and induction scores over time, and saved snapshots to scrub back through.
// Exports the curve (JSON, CSV, PNG) and the model as a bundle loadModel reads. Trains only while on screen.
// Not the trainer (web/js/api/train.js, wasm/src/train_live) and not the chapter's prose.
import { LookbackWidget, abortError, define, esc, fmt } from './widget-kit.js';
import { downloadBlob, drawReport, palette } from './export.js';
import { TRAIN_TASKS as TASKS } from '../train-tasks.js';
import { weightRGB } from '../figures/index.js';
import { headName } from './model-view.js';

const SIZES = {
  '1a': { layers: 1, mlp: false, label: '1 layer, attention only' },
  '2a': { layers: 2, mlp: false, label: '2 layers, attention only' },
  '1m': { layers: 1, mlp: true, label: '1 layer with MLP' },
  '2m': { layers: 2, mlp: true, label: '2 layers with MLPs' },
};
// What the reader's run shows, in words: which habits have formed (a head above 0.5 now).
function formedText({ previous, induction }) {
  if (previous && induction) return 'In this run both habits have formed.';
  if (previous) return 'In this run a previous-token head has formed, but no induction head (none above 0.5).';
  if (induction) return 'In this run an induction head has formed, with no previous-token head above 0.5.';
  return 'In this run neither habit has formed (no head above 0.5).';
}

// head i of the flat [L*H] score arrays, named layer.head counting from 1
const flatHead = (i, H) => headName(Math.floor(i / H), i % H);
const LRS = ['0.001', '0.003', '0.01'];
const CHUNK = 10;        // steps per request to the worker
const EVAL_EVERY = 20;   // steps between snapshots
const DEFAULT_STEPS = 1000;  // the run's length: the default run's induction head forms after a few hundred
const HEAD_COLOURS = ['#2f5fd0', '#b03325', '#2a8a4a', '#8a5a00', '#7a3fb0', '#00808a', '#c05090', '#606060'];

const CSS = `
.controls { display: flex; flex-wrap: wrap; gap: .5rem .9rem; align-items: center; margin-bottom: .5rem; }
.controls label { display: inline-flex; gap: .35rem; align-items: center; }
.controls select, .controls input[type=number] { background: var(--lb-page); border: 1px solid var(--lb-rule);
  border-radius: 6px; min-height: 34px; padding: .15rem .35rem; }
.controls input[type=number] { width: 5.5rem; }
.status { font-family: var(--lb-mono); font-size: .88rem; }
canvas.plot { width: 100%; height: auto; display: block; background: var(--lb-page); border-radius: 8px; margin: .35rem 0; }
.legend { font-size: .82rem; color: var(--lb-muted); display: flex; flex-wrap: wrap; gap: .2rem .9rem; }
.legend i { display: inline-block; width: 1.4em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: .3em; }
.legend i.dash { border-top-style: dashed; }
.heads { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .6rem; margin: .5rem 0; }
.heads figure { margin: 0; background: var(--lb-page); border-radius: 8px; padding: .35rem; }
.heads canvas { width: 100%; height: auto; image-rendering: pixelated; display: block; }
.heads figcaption { font-size: .8rem; line-height: 1.35; font-variant-numeric: tabular-nums; }
.heads figcaption > * { display: block; white-space: nowrap; }
.probe { font-family: var(--lb-mono); font-size: .85rem; overflow-wrap: anywhere; }
.scrub { display: flex; gap: .6rem; align-items: center; }
.scrub input { flex: 1; }
.summary { margin: .5rem 0; }
`;

const tokenText = (id) => (id === 0 ? '◆' : id === 1 ? '◇' : String.fromCharCode(id - 2));
const best = (scores) => scores.reduce((b, v, i) => (v > scores[b] ? i : b), 0);

/**
 * @attr task - `induction` (default), `previous` or `corpus`
 * @attr layers - 1 or 2 (default)
 * @attr mlp - present (and not `false`): the layers have MLPs
 * @attr lr - the learning rate: 0.001, 0.003 or 0.01
 * @attr seed - the seed of the weights and rows (default 1)
 * @attr steps - how many optimiser steps a run takes
 * @fires lookback-change - a step was shown (detail: the run's summary)
 * @fires lookback-train - the run started, paused, ended or was reset (detail {state, step})
 */
class Training extends LookbackWidget {
  static css = CSS;
  static observedAttributes = ['task', 'layers', 'mlp', 'lr', 'seed', 'steps'];

  constructor() {
    super();
    this.readAttributes();
    this.handle = null;
    this.losses = [];
    this.snapshots = [];
    this.selected = -1;     // snapshot shown; -1 follows the newest
    this.playing = false;
    this.trainMs = 0;       // time spent training since the first press (while playing)
  }

  readAttributes() {
    const task = this.getAttribute('task');
    this.task = task !== null && Object.hasOwn(TASKS, task) ? task : 'induction';  // never an inherited name
    const layers = this.getAttribute('layers') === '1' ? 1 : 2;
    this.size = `${layers}${this.hasAttribute('mlp') && this.getAttribute('mlp') !== 'false' ? 'm' : 'a'}`;
    const lr = this.getAttribute('lr');
    this.lr = LRS.includes(lr) ? lr : '0.003';
    const seed = Number.parseInt(this.getAttribute('seed') ?? '1', 10);
    this.seed = Number.isInteger(seed) && seed >= 0 ? seed : 1;
    const steps = Number.parseInt(this.getAttribute('steps') ?? String(DEFAULT_STEPS), 10);
    this.total = Number.isInteger(steps) && steps >= EVAL_EVERY ? Math.min(steps, 100000) : DEFAULT_STEPS;
  }

  attributeChangedCallback() {
    this.readAttributes();
    if (this._built) {
      this.syncControls();
      this.reset();
    }
  }

  get steps() {
    return this.losses.length;
  }

  build() {
    const options = (obj, cur) => Object.entries(obj).map(([k, v]) => `<option value="${k}"${k === cur ? ' selected' : ''}>${esc(v.label)}</option>`).join('');
    this.root.innerHTML = `
      <p class="title">Watch a head learn</p>
      <div class="controls" role="group" aria-label="Training settings">
        <label>task <select name="task">${options(TASKS, this.task)}</select></label>
        <label>model <select name="size">${options(SIZES, this.size)}</select></label>
        <label>learning rate <select name="lr">${LRS.map((v) => `<option${v === this.lr ? ' selected' : ''}>${v}</option>`).join('')}</select></label>
        <label>seed <input type="number" name="seed" min="0" max="2147483647" step="1" value="${this.seed}"></label>
      </div>
      <div class="row" role="group" aria-label="Training" data-fold-end>
        <button type="button" name="play" aria-keyshortcuts="k">Train</button>
        <button type="button" name="step" aria-label="Step ${EVAL_EVERY}: train ${EVAL_EVERY} steps">Step ${EVAL_EVERY}</button>
        <button type="button" name="reset">Reset</button>
        <button type="button" name="model" aria-label="Save model: a bundle of model.safetensors, config.json and tokenizer.json">Save model</button>
        <span class="status" aria-live="polite"></span>
      </div>
      <canvas class="plot loss" width="600" height="180" role="img" aria-label="Loss curves"></canvas>
      <div class="legend"><span><i style="border-color: var(--lb-muted)"></i>training loss</span>
        <span><i style="border-color: var(--lb-accent)"></i>held-out loss</span>
        <span class="task-legend"><i style="border-color: var(--lb-accent-2)"></i>loss on the <span class="scored"></span> (held-out rows)</span></div>
      <canvas class="plot scores" width="600" height="140" role="img" aria-label="Head scores over training"></canvas>
      <div class="legend heads-legend"></div>
      <div class="scrub"><label for="scrub">snapshot</label><input id="scrub" type="range" name="scrub" min="0" max="0" value="0"
        aria-label="Snapshot to show"><output class="at"></output></div>
      <div class="heads"></div>
      <p class="probe"></p>
      <div class="scroll"><table class="num scores-table"><caption>Each head at the snapshot shown</caption>
        <thead><tr><th scope="col">head</th><th scope="col">previous-token score</th><th scope="col">induction score</th></tr></thead>
        <tbody></tbody></table></div>
      <p class="summary" aria-live="polite"></p>`;
    const q = (s) => this.root.querySelector(s);
    for (const name of ['task', 'size', 'lr', 'seed']) {
      q(`[name=${name}]`).addEventListener('change', (e) => {
        const v = e.target.value;
        if (name === 'seed') this.seed = Math.max(0, Number.parseInt(v, 10) || 0);
        else this[name] = v;
        this.reset();
      });
    }
    // on a phone the widget folds under these buttons: a run's curves and maps are what the reader pressed for
    q('[name=play]').addEventListener('click', () => { this.unfold(); this.toggle(); });
    q('[name=step]').addEventListener('click', () => { this.unfold(); this.stepOnce().catch((e) => this.showError(e)); });
    q('[name=reset]').addEventListener('click', () => this.reset());
    q('[name=model]').addEventListener('click', () => this.saveModel().catch((e) => this.showError(e)));
    q('[name=scrub]').addEventListener('input', (e) => {
      const i = Number(e.target.value);
      this.selected = i === this.snapshots.length - 1 ? -1 : i;
      this.draw();
    });
    this.addEventListener('keydown', (e) => {
      if (e.key === 'k' && !e.ctrlKey && !e.metaKey && !e.altKey && e.target === this) { this.unfold(); this.toggle(); }
    });
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    // the plots are drawn at the width they take on screen: again when it changes
    const plot = q('canvas.loss');
    new ResizeObserver(([e]) => {
      if (this.handle !== null && Math.round(e.contentRect.width * (window.devicePixelRatio || 1)) !== plot.width) this.draw();
    }).observe(plot);
    this.syncControls();
  }

  syncControls() {
    const q = (s) => this.root.querySelector(s);
    q('[name=task]').value = this.task;
    q('[name=size]').value = this.size;
    q('[name=lr]').value = this.lr;
    q('[name=seed]').value = String(this.seed);
    q('.scored').textContent = TASKS[this.task].scored;
    q('.task-legend').hidden = !!TASKS[this.task].all;
    const play = q('[name=play]');
    play.textContent = this.playing ? 'Pause' : this.steps > 0 && this.steps < this.total ? 'Resume' : 'Train';
    play.setAttribute('aria-pressed', String(this.playing));
    play.disabled = !this.playing && this.steps >= this.total;
  }

  // The run's settings as lb.train takes them.
  settings() {
    const s = SIZES[this.size];
    return [{ layers: s.layers, mlp: s.mlp }, { task: this.task, lr: Number(this.lr), seed: this.seed, steps: this.total }];
  }

  // First time on screen (and after a reset): make the run and show the untrained model.
  async compute() {
    if (this.handle === null) {
      const settings = this.settings();
      const made = await this.ask('trainCreate', settings, 'create', { keep: true });
      if (JSON.stringify(settings) !== JSON.stringify(this.settings())) {   // changed meanwhile: a run of the old settings
        this.ask('trainDispose', [made.handle], 'dispose', { keep: true }).catch(() => {});
        throw abortError();
      }
      this.handle = made.handle;
      this.info = made.info;
      await this.evaluateNow();
    }
    this.draw();
    if (this.playing) this.loop();
  }

  setVisible(on) {
    super.setVisible(on);
    if (on && this.playing && this.handle !== null) this.loop();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.playing = false;
  }

  toggle() {
    this.markInput();
    this.playing = !this.playing && this.steps < this.total;
    this.syncControls();
    if (this.playing) {
      this.emit('lookback-train', { state: 'train', step: this.steps });
      if (this.handle === null) this.invalidate({ now: true });
      else this.loop();
    } else {
      this.emit('lookback-train', { state: 'pause', step: this.steps });
    }
  }

  pause() {
    if (this.playing) this.toggle();
  }

  async stepOnce() {
    if (this.playing || this._looping || this.handle === null) return;
    await this.advance(EVAL_EVERY - (this.steps % EVAL_EVERY));
    this.draw();
    this.syncControls();
  }

  // n steps in one request, then a snapshot when a multiple of EVAL_EVERY is reached.
  async advance(n) {
    const handle = this.handle;
    const t0 = performance.now();
    const r = await this.ask('trainStep', [handle, n], 'step', { keep: true });
    if (handle !== this.handle) return;
    this.trainMs += performance.now() - t0;
    for (const l of r.losses) this.losses.push(l);
    if (this.steps % EVAL_EVERY === 0 || this.steps >= this.total) await this.evaluateNow();
  }

  async evaluateNow() {
    const handle = this.handle;
    const e = await this.ask('trainEvaluate', [handle], 'evaluate', { keep: true });
    if (handle !== this.handle) return;
    this.snapshots.push({ ...e, seconds: this.trainMs / 1000 });
    this.emit('lookback-change', this.summary());
  }

  // Trains in chunks while playing and on screen; one loop at a time.
  async loop() {
    if (this._looping) return;
    this._looping = true;
    try {
      while (this.playing && this._visible && this.isConnected && this.handle !== null && this.steps < this.total) {
        await this.advance(Math.min(CHUNK, EVAL_EVERY - (this.steps % EVAL_EVERY), this.total - this.steps));
        this.requestDraw();
      }
      if (this.steps >= this.total && this.playing) {
        this.playing = false;
        this.emit('lookback-train', { state: 'done', step: this.steps });
      }
    } catch (err) {
      this.playing = false;
      this.showError(err);
    } finally {
      this._looping = false;
      this.syncControls();
      this.requestDraw();
    }
  }

  requestDraw() {
    if (this._drawFrame) return;
    this._drawFrame = requestAnimationFrame(() => {
      this._drawFrame = 0;
      this.draw();
    });
  }

  reset() {
    const old = this.handle;
    this.playing = false;
    this.handle = null;
    this.losses = [];
    this.snapshots = [];
    this.selected = -1;
    this.trainMs = 0;
    if (old !== null) this.ask('trainDispose', [old], 'dispose', { keep: true }).catch(() => {});
    this.emit('lookback-train', { state: 'reset', step: 0 });
    if (this._built) this.syncControls();
    this.invalidate({ now: true });
  }

  async saveModel() {
    if (this.handle === null) return [];
    const b = await this.ask('trainBundle', [this.handle], 'bundle', { keep: true });
    const files = [
      ['model.safetensors', new Blob([b.weights], { type: 'application/octet-stream' })],
      ['config.json', new Blob([b.config], { type: 'application/json' })],
      ['tokenizer.json', new Blob([b.tokenizer], { type: 'application/json' })],
    ];
    for (const [filename, blob] of files) {
      const ev = new CustomEvent('lookback-export', { bubbles: true, composed: true, cancelable: true,
        detail: { format: 'model', blob, filename } });
      if (this.dispatchEvent(ev)) downloadBlob(blob, filename);
    }
    return files;
  }

  /** logits [T, V] of the current weights for ids, through the core's Model (what loadModel of the bundle gives) */
  liveLogits(ids) {
    return this.ask('trainLogits', [this.handle, ids], 'logits', { keep: true });
  }

  shown() {
    return this.snapshots[this.selected < 0 ? this.snapshots.length - 1 : this.selected];
  }

  draw() {
    if (!this._built) return;
    const q = (s) => this.root.querySelector(s);
    const pal = palette(this);
    const snap = this.shown();
    const last = this.snapshots.at(-1);
    q('.status').textContent = `step ${this.steps} of ${this.total}` + (last ? ` · held-out ${fmt(last.heldOut)}${TASKS[this.task].all ? '' : ` · ${TASKS[this.task].scored} ${fmt(last.task)}`} nats` : '')
      + (this.trainMs ? ` · ${fmt(this.trainMs / 1000, 1)} s` : '');
    this.drawLoss(q('canvas.loss'), pal, snap);
    this.drawScores(q('canvas.scores'), pal, snap);
    const scrub = q('[name=scrub]');
    scrub.max = String(Math.max(0, this.snapshots.length - 1));
    scrub.value = String(this.selected < 0 ? Math.max(0, this.snapshots.length - 1) : this.selected);
    scrub.setAttribute('aria-valuetext', snap ? `step ${snap.step}` : 'no snapshot yet');
    q('.at').textContent = snap ? `step ${snap.step}` : '';
    if (!snap) return;
    this.drawHeads(snap);
    const n = snap.previousTokenOnRandomTokens.length;
    const H = snap.shape[1];
    q('.heads-legend').innerHTML = Array.from({ length: n }, (_, i) => `<span><i style="border-color:${HEAD_COLOURS[i % 8]}"></i>${flatHead(i, H)} induction</span>
      <span><i class="dash" style="border-color:${HEAD_COLOURS[i % 8]}"></i>${flatHead(i, H)} previous token</span>`).join('');
    q('.scores-table tbody').innerHTML = snap.previousTokenOnRandomTokens.map((p, i) => `<tr><th scope="row">head ${flatHead(i, H)}</th><td>${fmt(p)}</td><td>${fmt(snap.induction[i])}</td></tr>`).join('');
    q('.probe').textContent = `probe (held out): ${snap.probe.map(tokenText).join(' ')}`;
    q('.summary').textContent = this.summaryText();
  }

  drawLoss(canvas, pal, snap, scale) {
    const { ctx, W, H: Hh } = plotContext(canvas, 0.3, 130, scale);
    const pad = PAD;
    ctx.fillStyle = pal.page;
    ctx.fillRect(0, 0, W, Hh);
    const maxY = Math.max(1, ...this.losses.slice(0, 5), ...this.snapshots.map((s) => Math.max(s.heldOut, s.task || 0)));
    const x = (step) => pad + (W - pad - 6) * (step / this.total);
    const y = (v) => 6 + (Hh - pad) * (1 - Math.min(v, maxY) / maxY);
    axes(ctx, pal, W, Hh, pad, maxY, this.total, 'nats');
    line(ctx, this.losses.map((l, i) => [x(i + 1), y(l)]), pal.muted, 1);
    line(ctx, this.snapshots.map((s) => [x(s.step), y(s.heldOut)]), pal.accent, 1.8);
    if (!TASKS[this.task].all) line(ctx, this.snapshots.filter((s) => Number.isFinite(s.task)).map((s) => [x(s.step), y(s.task)]), pal.accent2, 1.8);
    if (snap) marker(ctx, x(snap.step), Hh - pad, pal);
  }

  drawScores(canvas, pal, snap, scale) {
    const { ctx, W, H: Hh } = plotContext(canvas, 0.233, 110, scale);
    const pad = PAD;
    ctx.fillStyle = pal.page;
    ctx.fillRect(0, 0, W, Hh);
    const x = (step) => pad + (W - pad - 6) * (step / this.total);
    const y = (v) => 6 + (Hh - pad) * (1 - v);
    axes(ctx, pal, W, Hh, pad, 1, this.total, 'score');
    const n = this.snapshots[0]?.previousTokenOnRandomTokens.length ?? 0;
    for (let i = 0; i < n; i++) {
      line(ctx, this.snapshots.map((s) => [x(s.step), y(s.previousTokenOnRandomTokens[i])]), HEAD_COLOURS[i % 8], 1.2, [6, 5]);
      line(ctx, this.snapshots.map((s) => [x(s.step), y(s.induction[i])]), HEAD_COLOURS[i % 8], 1.8);
    }
    if (snap) marker(ctx, x(snap.step), Hh - pad, pal);
  }

  drawHeads(snap) {
    const [L, H, T] = snap.shape;
    const box = this.root.querySelector('.heads');
    if (box.children.length !== L * H) {
      box.innerHTML = Array.from({ length: L * H }, (_, i) => `<figure><canvas width="${T}" height="${T}" role="img" aria-label="attention map"></canvas><figcaption></figcaption></figure>`).join('');
    }
    [...box.children].forEach((fig, i) => {
      const c = fig.querySelector('canvas');
      const ctx = c.getContext('2d');
      const img = ctx.createImageData(T, T);
      for (let k = 0; k < T * T; k++) img.data.set([...weightRGB(snap.attention[i * T * T + k]), 255], 4 * k);   // the weights' one scale
      ctx.putImageData(img, 0, 0);
      const label = `head ${flatHead(i, H)}`;
      c.setAttribute('aria-label', `${label}: attention on the probe at step ${snap.step} (rows: queries, columns: keys)`);
      // the head's name, then each score in words on a line of its own (an abbreviated one-liner wrapped mid-score)
      fig.querySelector('figcaption').innerHTML = `<b>${flatHead(i, H)}</b> <span>previous token ${fmt(snap.previousTokenOnRandomTokens[i])}</span> <span>induction ${fmt(snap.induction[i])}</span>`;
    });
  }

  // The reader's own run in numbers: when each habit appeared and how far the task's loss fell.
  summary() {
    const s = this.snapshots;
    if (!s.length) return null;
    const last = s.at(-1);
    const bi = best(last.induction), bp = best(last.previousTokenOnRandomTokens);
    const firstAbove = (key, head, level) => s.find((x) => x[key][head] > level)?.step ?? null;
    let drop = { nats: 0, from: 0, to: 0 };
    for (let i = 1; i < s.length; i++) {
      const d = s[i - 1].task - s[i].task;
      if (d > drop.nats) drop = { nats: d, from: s[i - 1].step, to: s[i].step };
    }
    const H = last.shape[1];
    return {
      task: this.task, step: last.step, seconds: last.seconds,
      taskLoss: { first: s[0].task, last: last.task, min: Math.min(...s.map((x) => x.task)) },
      heldOut: { first: s[0].heldOut, last: last.heldOut },
      induction: { head: flatHead(bi, H), score: last.induction[bi], first: s[0].induction[bi], stepAbove05: firstAbove('induction', bi, 0.5) },
      previous: { head: flatHead(bp, H), score: last.previousTokenOnRandomTokens[bp], first: s[0].previousTokenOnRandomTokens[bp], stepAbove05: firstAbove('previousTokenOnRandomTokens', bp, 0.5) },
      steepest: drop,
      // a habit has formed when its strongest head scores above 0.5 at the last snapshot
      formed: { previous: last.previousTokenOnRandomTokens[bp] > 0.5, induction: last.induction[bi] > 0.5 },
    };
  }

  summaryText() {
    const m = this.summary();
    if (!m || m.step === 0) return 'Press Train: the untrained model attends almost evenly, so every head\'s map is a smooth triangle.';
    const scored = TASKS[this.task].scored;
    const when = (step) => (step === null ? 'not yet above 0.5' : `above 0.5 from step ${step}`);
    return `Your run, ${m.step} steps (${fmt(m.seconds, 1)} s of training): the loss on the ${scored} went from `
      + `${fmt(m.taskLoss.first)} to ${fmt(m.taskLoss.last)} nats; its steepest fall, ${fmt(m.steepest.nats)} nats, came between steps `
      + `${m.steepest.from} and ${m.steepest.to}. Head ${m.previous.head} is the strongest previous-token head `
      + `(${fmt(m.previous.first)} at the start, ${fmt(m.previous.score)} now, ${when(m.previous.stepAbove05)}); head `
      + `${m.induction.head} the strongest induction head (${fmt(m.induction.first)} at the start, ${fmt(m.induction.score)} now, `
      + `${when(m.induction.stepAbove05)}). ${formedText(m.formed)}`;
  }

  exportData() {
    const [config, opts] = this.settings();
    return {
      json: { config, options: opts, summary: this.summary(), losses: this.losses,
        snapshots: this.snapshots.map(({ attention, ...s }) => s) },
      csv: [['step', 'train_loss', 'held_out_loss', 'task_loss', ...(this.snapshots[0]?.previousTokenOnRandomTokens.flatMap((_, i) => [`previous_${flatHead(i, this.snapshots[0].shape[1])}`, `induction_${flatHead(i, this.snapshots[0].shape[1])}`]) ?? [])],
        ...this.losses.map((l, i) => {
          const s = this.snapshots.find((x) => x.step === i + 1);
          return [i + 1, l, s?.heldOut ?? '', s?.task ?? '', ...(s ? s.previousTokenOnRandomTokens.flatMap((p, k) => [p, s.induction[k]]) : [])];
        })],
    };
  }

  exportCanvas() {
    const pal = palette(this), snap = this.shown();
    // the two plots drawn again for the picture, 600 px wide at twice the resolution
    const plot = (draw) => {
      const c = document.createElement('canvas');
      draw.call(this, c, pal, snap, 2);
      return { picture: c, width: 600, height: c.height / 2 };
    };
    return drawReport(this, {
      title: `Watch a head learn: ${TASKS[this.task].label}, ${SIZES[this.size].label}, lr ${this.lr}, seed ${this.seed}`,
      blocks: [
        plot(this.drawLoss),
        plot(this.drawScores),
        { text: this.summaryText() },
      ],
    });
  }
}

// The plots are drawn in CSS pixels at the width they take on screen (a phone's or a desktop's), so their labels
// are LABEL_PX tall on any screen.
const LABEL_PX = 12;
const PAD = 30;   // CSS px left of and under a plot, for its labels

// Sizes a plot's canvas to its width on screen (600 CSS px off screen) times `scale` pixels a CSS px (the screen's by
// default), its height `ratio` of that (at least `min` CSS px), and returns its context drawing in CSS pixels with
// the plot's CSS size.
function plotContext(canvas, ratio, min, scale = window.devicePixelRatio || 1) {
  const W = (canvas.isConnected && canvas.getBoundingClientRect().width) || 600;
  const H = Math.max(min, Math.round(W * ratio));
  const dpr = scale;
  const pw = Math.round(W * dpr), ph = Math.round(H * dpr);
  if (canvas.width !== pw || canvas.height !== ph) { canvas.width = pw; canvas.height = ph; }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(pw / W, 0, 0, ph / H, 0, 0);
  return { ctx, W, H };
}

function axes(ctx, pal, W, H, pad, maxY, maxX, unit) {
  ctx.strokeStyle = pal.rule;
  ctx.fillStyle = pal.muted;
  ctx.lineWidth = 1;
  ctx.font = `${LABEL_PX}px ${pal.font}`;
  ctx.beginPath();
  ctx.moveTo(pad, 6);
  ctx.lineTo(pad, H - pad + 6);
  ctx.lineTo(W - 6, H - pad + 6);
  ctx.stroke();
  // the axis' top and foot left of it, its unit and the last step under the plot
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  ctx.fillText(fmt(maxY, maxY < 2 ? 1 : 0), pad - 4, 4);
  ctx.textBaseline = 'alphabetic';
  ctx.fillText('0', pad - 4, H - pad + 6);
  ctx.fillText(`step ${maxX}`, W - 6, H - 6);
  ctx.textAlign = 'left';
  ctx.fillText(unit, pad, H - 6);
}

function line(ctx, pts, colour, width, dash = []) {
  if (pts.length < 1) return;
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  pts.forEach(([px, py], i) => (i ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
  ctx.stroke();
  ctx.setLineDash([]);
}

function marker(ctx, x, bottom, pal) {
  ctx.strokeStyle = pal.fg;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  ctx.moveTo(x, 6);
  ctx.lineTo(x, bottom + 6);
  ctx.stroke();
  ctx.setLineDash([]);
}

define('lookback-training', Training);
export { Training };
