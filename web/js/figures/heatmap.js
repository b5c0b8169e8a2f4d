// A matrix drawn as a heat map: one <rect class="lb-cell"> per number, its value in a <title> and in data-v, with
// data-m (the matrix's name), data-r and data-c (row and column), the value written in the cell when the cell is
// large enough; hidden cells (a mask's future) hatched; optional row and column labels; and the colour legend.
// Not a figure on its own: the figures compose these groups.
import { weightLab, signedLab, inkOn, weightColour, signedColour } from './colour.js';
import { esc, fixed, monoWidth, px, text, ACCENT_2, MUTED, RULE, VOID } from './svg.js';

const hexOf = (lab, scale, v, max) => (scale === 'weight' ? weightColour(v) : signedColour(v, max));

/** the largest magnitude of a matrix's shown numbers (the diverging scale's end) */
export function magnitude(values) {
  let m = 0;
  for (const row of values) for (const v of row) if (v !== null && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
  return m;
}

/**
 * values: rows of numbers (null: hidden); scale: 'weight' ([0, 1]) or 'signed'; name: the matrix's name (data-m);
 * cell: size; title(r, c, v): a cell's title; rowLabels/colLabels: arrays of text (tokens are drawn mono);
 * digits: decimals written in the cells (when they fit); no title function: cells without a title. Returns { svg,
 * width, height, left, top } where left/top is where the cells start.
 */
export function heatmap({ x = 0, y = 0, values, scale = 'weight', name, cell = 24, title, rowLabels, colLabels,
  digits = 2, max = null, labelSize = 11, showValues = true }) {
  const rows = values.length, cols = rows ? values[0].length : 0;
  const big = magnitude(values);
  const m = max ?? big;
  const rowW = rowLabels ? Math.max(...rowLabels.map((t) => monoWidth(t, labelSize))) + 6 : 0;
  const colH = colLabels ? Math.max(...colLabels.map((t) => monoWidth(t, labelSize))) * 0.71 + 8 : 0;   // labels at 45°
  const left = x + rowW, top = y + colH;
  const parts = [], hidden = [], hatch = [];
  // the widest number written ("-0.71") fits the cell with a point to spare
  const fontSize = Math.min(11, cell * 0.42, (cell - 3) / ((digits + 2.5) * 0.6));
  const written = showValues && fontSize >= 7.5;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = values[r][c];
      const cx = left + c * cell, cy = top + r * cell;
      if (v === null) {
        hidden.push(`M${px(cx)} ${px(cy)}h${px(cell)}v${px(cell)}h${px(-cell)}z`);
        hatch.push(`M${px(cx)} ${px(cy + cell)}L${px(cx + cell)} ${px(cy)}`);
        continue;
      }
      const lab = scale === 'weight' ? weightLab(v) : signedLab(v, m);
      parts.push(`<rect class="lb-cell" x="${px(cx)}" y="${px(cy)}" width="${px(cell)}" height="${px(cell)}" fill="${hexOf(lab, scale, v, m)}" `
        + `data-m="${esc(name)}" data-r="${r}" data-c="${c}" data-v="${fixed(v, 4)}">${title ? `<title>${esc(title(r, c, v))}</title>` : ''}</rect>`);
      if (written) {
        parts.push(text(cx + cell / 2, cy + cell / 2 + fontSize * 0.36, fixed(v, digits), { size: px(fontSize), anchor: 'middle', fill: inkOn(lab),
          attrs: { 'aria-hidden': 'true', 'pointer-events': 'none' } }));
      }
    }
  }
  // the hidden cells as two paths (their squares, their hatching), not three elements each: a page shows dozens of
  // maps, and T × T elements apiece made its every layout slow
  if (hidden.length) {
    parts.unshift(`<g class="hidden"><path d="${hidden.join('')}" fill="${VOID}" stroke="${RULE}" stroke-width="0.5"/>`
      + `<path d="${hatch.join('')}" stroke="${RULE}" stroke-width="1"/></g>`);
  }
  parts.push(`<rect x="${px(left)}" y="${px(top)}" width="${px(cols * cell)}" height="${px(rows * cell)}" fill="none" stroke="${RULE}"/>`);
  if (rowLabels) {
    rowLabels.forEach((t, r) => parts.push(text(left - 4, top + r * cell + cell / 2 + labelSize * 0.36, t, { size: labelSize, anchor: 'end', mono: true })));
  }
  if (colLabels) {
    colLabels.forEach((t, c) => {
      const cx = left + c * cell + cell / 2, cy = top - 4;
      parts.push(text(cx, cy, t, { size: labelSize, mono: true, attrs: { transform: `rotate(-45 ${px(cx)} ${px(cy)})` } }));
    });
  }
  const right = left + cols * cell;
  return { svg: `<g class="heatmap" data-m="${esc(name)}">${parts.join('')}</g>`, left, top, right, bottom: top + rows * cell,
    extent: right + (colLabels ? colH : 0) };
}

/**
 * The legend of the weight scale (or of a signed matrix, given max): a bar of 20 steps with ticks, and marks
 * [{ v, label }] (an even spread, say) drawn as ticks below it. Returns { svg, width, height }.
 */
export function legend({ x, y, width = 220, label = 'weight', scale = 'weight', max = 1, marks = [], ticks: tickLabels = null }) {
  const steps = 20, h = 10, parts = [];
  const lo = scale === 'weight' ? 0 : -max, hi = scale === 'weight' ? 1 : max;
  const at = (v) => x + ((v - lo) / (hi - lo)) * width;
  for (let i = 0; i < steps; i++) {
    const v = lo + ((i + 0.5) / steps) * (hi - lo);
    parts.push(`<rect x="${px(x + (i * width) / steps)}" y="${px(y)}" width="${px(width / steps + 0.3)}" height="${h}" fill="${hexOf(null, scale, v, max)}"/>`);
  }
  parts.push(`<rect x="${px(x)}" y="${px(y)}" width="${px(width)}" height="${h}" fill="none" stroke="${RULE}"/>`);
  const ticks = scale === 'weight' ? (width >= 180 ? [0, 0.25, 0.5, 0.75, 1] : width >= 90 ? [0, 0.5, 1] : [0, 1]) : [-max, 0, max];
  for (const [i, t] of ticks.entries()) {
    parts.push(`<path d="M${px(at(t))} ${px(y + h)}v3" stroke="${MUTED}"/>`);
    parts.push(text(at(t), y + h + 13, tickLabels?.[i] ?? fixed(t, scale === 'weight' ? 2 : max < 10 ? 2 : 0), { size: 10, anchor: 'middle', fill: MUTED }));
  }
  for (const m of marks) {
    parts.push(`<path class="mark" d="M${px(at(m.v))} ${px(y - 3)}v${h + 6}" stroke="${ACCENT_2}" stroke-width="2"/>`);
    parts.push(text(at(m.v), y - 5, m.label, { size: 10, anchor: 'middle', fill: ACCENT_2 }));
  }
  parts.push(text(x + width + 8, y + h - 1, label, { size: 11, fill: MUTED }));
  return { svg: `<g class="legend">${parts.join('')}</g>`, width: width + 8 + label.length * 6.6, height: h + 16 };
}
