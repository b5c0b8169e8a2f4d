// Line plots: a training run's loss against steps, and what full attention costs against the context length
// (scores and memory, both axes logarithmic, sizes in units that scale: thousand/million/billion, kB/MB/GB/TB).
// Each point carries its numbers in a <title>. Not a charting library: only the two plots the chapter draws.
import { esc, fixed, lines, px, svgDocument, text, textLines, textWidth, MUTED, RULE, INK, SERIES, NARROW } from './svg.js';


const trim = (s) => s.replace(/\.0$/, '');

/** bytes in decimal units that scale: "512 B", "6.3 MB", "2.1 GB", "1.6 TB" */
export function bytesText(bytes) {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let u = 0, v = bytes;
  while (Math.abs(v) >= 1000 && u < units.length - 1) { v /= 1000; u++; }
  return `${u === 0 ? Math.round(v) : v < 10 ? trim(fixed(v, 1)) : Math.round(v).toLocaleString('en-US')} ${units[u]}`;
}

/** a count in words that scale: "65,536", "4.2 million", "17.2 billion" */
export function countText(n) {
  const units = [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million']];
  for (const [v, w] of units) if (Math.abs(n) >= v) return `${trim(fixed(n / v, n / v < 100 ? 1 : 0))} ${w}`;
  return Math.round(n).toLocaleString('en-US');
}

// axes: a box at (x, y, w, h); xs, ys: [lo, hi]; log: per axis; ticks: [{ v, label }] per axis
function frame({ x, y, w, h, xs, ys, logX, logY, xTicks, yTicks, xLabel, yLabel }) {
  const fx = (v) => x + (((logX ? Math.log10(v) : v) - (logX ? Math.log10(xs[0]) : xs[0])) / ((logX ? Math.log10(xs[1]) : xs[1]) - (logX ? Math.log10(xs[0]) : xs[0]))) * w;
  const fy = (v) => y + h - (((logY ? Math.log10(v) : v) - (logY ? Math.log10(ys[0]) : ys[0])) / ((logY ? Math.log10(ys[1]) : ys[1]) - (logY ? Math.log10(ys[0]) : ys[0]))) * h;
  const parts = [`<rect x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${px(h)}" fill="none" stroke="${RULE}"/>`];
  for (const t of xTicks) {
    parts.push(`<path d="M${px(fx(t.v))} ${px(y)}v${px(h)}" stroke="${RULE}" stroke-width="0.5"/>`, text(fx(t.v), y + h + 14, t.label, { size: 10, anchor: 'middle', fill: MUTED }));
  }
  for (const t of yTicks) {
    parts.push(`<path d="M${px(x)} ${px(fy(t.v))}h${px(w)}" stroke="${RULE}" stroke-width="0.5"/>`, text(x - 5, fy(t.v) + 3.5, t.label, { size: 10, anchor: 'end', fill: MUTED }));
  }
  parts.push(text(x + w / 2, y + h + 32, xLabel, { size: 11, anchor: 'middle', fill: MUTED }));
  parts.push(text(x, y - 8, yLabel, { size: 11, fill: MUTED }));
  return { svg: parts.join(''), fx, fy };
}

function line(points, fx, fy, colour, name, title) {
  const d = points.map(([a, b], i) => `${i ? 'L' : 'M'}${px(fx(a))} ${px(fy(b))}`).join('');
  return `<g class="series" data-series="${esc(name)}"><path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>${
    points.map(([a, b]) => `<circle class="point" cx="${px(fx(a))}" cy="${px(fy(b))}" r="3" fill="${colour}" data-x="${a}" data-y="${b}"><title>${esc(title(a, b))}</title></circle>`).join('')}</g>`;
}

function legendRow(x, y, names, first = 0) {
  let cx = x;
  return names.map((n, i) => {
    const s = `<path d="M${px(cx)} ${px(y - 4)}h16" stroke="${SERIES[(first + i) % SERIES.length]}" stroke-width="3"/>${text(cx + 20, y, n, { size: 11 })}`;
    cx += 32 + textWidth(n, 11);
    return s;
  }).join('');
}

const decades = (lo, hi) => {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
};

/** series: [{ name, points: [[step, loss], ...] }]; a training run's loss (nats) against steps */
export function lossCurve({ series, title = 'Loss during training', width = 640, height = 320 }) {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) throw new TypeError('figures: lossCurve needs at least one point');
  const xs = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  const ys = [0, Math.max(...all.map((p) => p[1])) * 1.05 || 1];
  if (xs[1] === xs[0]) xs[1] = xs[0] + 1;
  const niceStep = (span, n) => { const raw = span / n, p = 10 ** Math.floor(Math.log10(raw)); return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw); };
  const sx = niceStep(xs[1] - xs[0], 6), sy = niceStep(ys[1], 5);
  const ticks = (lo, hi, st) => { const out = []; for (let v = Math.ceil(lo / st) * st; v <= hi + 1e-9; v += st) out.push({ v, label: fixed(v, st < 1 ? 1 : 0) }); return out; };
  const f = frame({ x: 56, y: 76, w: width - 80, h: height - 134, xs, ys, xTicks: ticks(xs[0], xs[1], sx), yTicks: ticks(0, ys[1], sy), xLabel: 'training step', yLabel: 'loss (nats)' });
  const curves = series.map((s, i) => line(s.points, f.fx, f.fy, SERIES[i % SERIES.length], s.name, (a, b) => `${s.name}, step ${a}: ${fixed(b, 3)} nats`));
  return svgDocument({ width, height, kind: 'loss',
    body: text(16, 24, title, { size: 13, weight: 600 }) + legendRow(16, 42, series.map((s) => s.name)) + f.svg + curves.join(''),
    title, desc: `Loss in nats against training step for ${series.map((s) => s.name).join(' and ')}; lower is better. Each point's title gives its step and loss.` });
}

/**
 * What full attention costs against the context length T: scores per head (T²) and per forward pass (T²·heads·layers)
 * on the left; the memory of one fp16 score matrix and of all of them kept at once on the right; log axes; `length`
 * (optional) marked.
 */
export function costPlot({ lengths = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072], heads, layers, bytes = 2, length, width = 720 }) {
  const T = lengths;
  const per = T.map((t) => t * t), pass = per.map((s) => s * heads * layers);
  const one = per.map((s) => s * bytes), all = pass.map((s) => s * bytes);
  // narrower than NARROW (a phone): the two plots one above the other, the heading, legend and note on as many lines as they need
  const narrow = width < NARROW;
  const heading = lines('Full attention\'s cost grows with the square of the length: four times the length, sixteen times the scores',
    narrow ? width - 32 : Infinity, 13, true);
  const full = narrow ? width : Math.max(width, 16 + textWidth(heading[0], 13, true) + 16);
  const names = ['per head / one matrix', `all ${heads * layers} heads (${layers} layers of ${heads})`];
  const top = 24 + (heading.length - 1) * 17;
  const legendY = top + 22, legendLines = narrow ? names.length : 1;
  const panelW = narrow ? full - 70 - 20 : (full - 70 - 90 - 20) / 2, h = narrow ? 190 : 230, y = legendY + 18 + legendLines * 16;
  const xTicks = T.filter((t, i) => i % (narrow ? 3 : 2) === 0).map((t) => ({ v: t, label: t >= 1024 ? `${t / 1024}K` : `${t}` }));
  const panel = (x, py, a, b, names, unit, label) => {
    const ys = [10 ** Math.floor(Math.log10(Math.min(...a))), 10 ** Math.ceil(Math.log10(Math.max(...b)))];
    const yTicks = decades(ys[0], ys[1]).filter((v, i) => i % 2 === 0).map((v) => ({ v, label: unit(v) }));
    const f = frame({ x, y: py, w: panelW, h, xs: [T[0], T[T.length - 1]], ys, logX: true, logY: true, xTicks, yTicks, xLabel: 'context length (tokens)', yLabel: label });
    const pts = (arr) => T.map((t, i) => [t, arr[i]]);
    const mark = length ? `<path class="current" d="M${px(f.fx(length))} ${px(py)}v${h}" stroke="${INK}" stroke-dasharray="3 3"/>` : '';
    return f.svg + mark + line(pts(a), f.fx, f.fy, SERIES[0], names[0], (t, v) => `${names[0]} at ${t.toLocaleString('en-US')} tokens: ${unit === bytesText ? bytesText(v) : v.toLocaleString('en-US')}`)
      + line(pts(b), f.fx, f.fy, SERIES[1], names[1], (t, v) => `${names[1]} at ${t.toLocaleString('en-US')} tokens: ${unit === bytesText ? bytesText(v) : v.toLocaleString('en-US')}`);
  };
  const left = panel(70, y, per, pass, ['scores per head', `scores per pass, ${heads * layers} heads`], countText, 'scores');
  const rightY = narrow ? y + h + 62 : y;
  const right = panel(narrow ? 70 : 70 + panelW + 90, rightY, one, all, ['one fp16 score matrix', `all ${heads * layers} kept at once`], bytesText, 'memory');
  let note = [];
  if (length) {
    const s = length * length;
    note = lines(`At ${length.toLocaleString('en-US')} tokens: ${countText(s)} scores per head, ${countText(s * heads * layers)} per pass; `
      + `${bytesText(s * bytes)} per score matrix, ${bytesText(s * bytes * heads * layers)} for all of them.`, narrow ? width - 32 : Infinity, 11);
  }
  const legend = narrow ? names.map((n, i) => legendRow(16, legendY + i * 16, [n], i)).join('') : legendRow(16, legendY, names);
  return svgDocument({ width: full, height: rightY + h + (length ? 61 + note.length * 15 : 50), kind: 'cost',
    body: textLines(16, 24, heading, 17, { size: 13, weight: 600 }) + legend + left + right
      + textLines(16, rightY + h + 62, note, 15, { size: 11 }),
    title: `Scores and memory of full attention against context length, ${layers} layers of ${heads} heads`,
    desc: `Two log-log plots over lengths ${T[0]} to ${T[T.length - 1]}: left, scores per head (T squared) and per forward pass; right, memory of one fp16 `
      + `score matrix (2 bytes per score) and of all ${heads * layers} kept at once. Each point's title gives its number.` });
}
