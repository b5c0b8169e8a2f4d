// The trained model's attention as figures: one head's weights as a heat map over the tokens, the explorer's
// strip (one query's weights shading the tokens), all heads of one layer, and every head as a grid of small maps
// labelled with its habits. Inputs are what the API's forward() returns ({ attention [L, H, T, T], shape }) and
// the tokens' texts; layer and head are indexes from 0, every name drawn counts from 1 (layer.head).
// Not the computation: the core's forward pass.
import { heatmap, legend } from './heatmap.js';
import { weightColour, weightLab, inkOn } from './colour.js';
import { tokenText, tokenLabel } from './tokens.js';
import { esc, fixed, monoWidth, px, svgDocument, text, textWidth, ACCENT_2, MUTED, RULE, VOID } from './svg.js';

/** "layer.head" counting from 1, from indexes counting from 0 */
export const headName = (layer, head) => `${layer + 1}.${head + 1}`;

function check(attention, shape, layer, head) {
  const { L, H, T } = shape ?? {};
  if (!attention || attention.length !== L * H * T * T) throw new TypeError(`figures: attention must hold L*H*T*T = ${L * H * T * T} numbers (got ${attention?.length})`);
  if (!Number.isInteger(layer) || layer < 0 || layer >= L) throw new RangeError(`figures: layer index must be in [0, ${L - 1}] (got ${layer})`);
  if (head !== undefined && (!Number.isInteger(head) || head < 0 || head >= H)) throw new RangeError(`figures: head index must be in [0, ${H - 1}] (got ${head})`);
}

/** one head's weights as rows, the future (s > t) null */
export function headRows(attention, { H, T }, layer, head) {
  const base = (layer * H + head) * T * T;
  return Array.from({ length: T }, (_, t) => Array.from({ length: T }, (_, s) => (s <= t ? attention[base + t * T + s] : null)));
}

const cellTitle = (tokens, what) => (r, c, v) => `${what}: ${tokenLabel(tokens[r], r)} looks at ${tokenLabel(tokens[c], c)} with weight ${fixed(v, 3)}`;

/** one head: rows are the tokens looking, columns the tokens looked at; the future hatched */
export function headMap({ tokens, attention, shape, layer, head, cell }) {
  check(attention, shape, layer, head);
  const T = shape.T, name = `head ${headName(layer, head)}`;
  const labels = tokens.map(tokenText);
  const size = cell ?? Math.max(8, Math.min(30, Math.floor(560 / T)));
  const map = heatmap({ x: 16, y: 40, values: headRows(attention, shape, layer, head), name, cell: size, title: cellTitle(tokens, name),
    rowLabels: labels, colLabels: labels });
  const lg = legend({ x: map.left, y: map.bottom + 22 });
  const heading = `Attention of ${name}: rows look back, columns are looked at`;
  const width = Math.max(map.extent, map.left + lg.width, 16 + textWidth(heading, 13, true)) + 16;
  const height = map.bottom + 22 + lg.height + 12;
  return svgDocument({ width, height, body: text(16, 24, heading, { size: 13, weight: 600 }) + map.svg + lg.svg, kind: 'head',
    title: `Attention weights of ${name} over ${T} tokens`,
    desc: `A ${T} by ${T} heat map: row t shows how token t shares its attention over tokens 0 to t (darker is more weight, `
      + 'from 0 to 1); cells right of the diagonal are the future, which the causal mask hides. Each cell\'s title gives its weight.' });
}

/**
 * The explorer's strip: the tokens in reading order, each shaded by the weight query `query` puts on it; the
 * future hatched, the query outlined, the start mark labelled. head < 0: the layer's heads averaged.
 */
export function strip({ tokens, attention, shape, layer, head, query, width = 640 }) {
  check(attention, shape, layer, head < 0 ? undefined : head);
  const { H, T } = shape;
  const q = query ?? T - 1;
  if (!Number.isInteger(q) || q < 0 || q >= T) throw new RangeError(`figures: query must be in [0, ${T - 1}] (got ${query})`);
  const heads = head < 0 ? [...Array(H).keys()] : [head];
  const row = Array.from({ length: T }, (_, s) => (s > q ? null
    : heads.reduce((a, h) => a + attention[((layer * H + h) * T + q) * T + s], 0) / heads.length));
  const name = head < 0 ? `layer ${layer + 1}, heads averaged` : `head ${headName(layer, head)}`;
  const size = 14, pad = 5, chipH = 26, gap = 4, lineH = chipH + 18, left = 16, top = 58;
  const parts = [];
  let x = left, y = top;
  tokens.forEach((t, i) => {
    const label = tokenText(t);
    const w = monoWidth(label, size) + 2 * pad;
    if (x + w > width - 16 && x > left) { x = left; y += lineH; }
    const v = row[i];
    if (v === null) {
      parts.push(`<g class="hidden"><rect x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${chipH}" rx="3" fill="${VOID}" stroke="${RULE}"/>`
        + `<path d="M${px(x)} ${px(y + chipH)}L${px(x + w)} ${px(y)}" stroke="${RULE}"/>`
        + text(x + pad, y + chipH / 2 + size * 0.36, label, { size, mono: true, fill: MUTED, attrs: { 'aria-hidden': 'true' } }) + '</g>');
    } else {
      const lab = weightLab(v);
      parts.push(`<rect class="lb-cell" x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${chipH}" rx="3" fill="${weightColour(v)}" `
        + `stroke="${i === q ? ACCENT_2 : RULE}" stroke-width="${i === q ? 2.5 : 1}" data-m="${esc(name)}" data-r="${q}" data-c="${i}" data-v="${fixed(v, 4)}">`
        + `<title>${esc(`${name}: ${tokenLabel(tokens[q], q)} puts weight ${fixed(v, 3)} on ${tokenLabel(t, i)}`)}</title></rect>`
        + text(x + pad, y + chipH / 2 + size * 0.36, label, { size, mono: true, fill: inkOn(lab), attrs: { 'aria-hidden': 'true', 'pointer-events': 'none' } }));
    }
    if (i === 0) parts.push(text(x, y - 4, 'start mark', { size: 10, fill: MUTED }));
    x += w + gap;
  });
  const lg = legend({ x: left, y: y + lineH + 4 });
  const height = y + lineH + 4 + lg.height + 10;
  let top1 = 0;
  for (let s = 1; s <= q; s++) if (row[s] > row[top1]) top1 = s;
  const heading = `${name}: ${tokenLabel(tokens[q], q)} looks back`;
  return svgDocument({ width, height, kind: 'strip', body: text(left, 26, heading, { size: 14, weight: 600 }) + parts.join('') + lg.svg,
    title: `Where ${tokenLabel(tokens[q], q)} looks, ${name}`,
    desc: `The text's ${T} tokens, each shaded by the weight token ${q} puts on it (darker is more, from 0 to 1); the most, `
      + `${fixed(row[top1], 2)}, goes to ${tokenLabel(tokens[top1], top1)}. Tokens after it are the future, hidden by the mask and hatched.` });
}

// A thumbnail draws at most this many cells a side: past it a cell would be under a pixel or two, and a long
// text's T × T cells (with their titles) would make a page's maps too large to draw without freezing it.
export const THUMB_CELLS = 64;

// [T, T] rows (null above the diagonal) pooled into n × n blocks of `step` tokens a side: each block its largest
// weight (so a sharp pattern such as the previous-token diagonal stays visible), null when wholly in the future.
function pooled(rows, step) {
  const T = rows.length, n = Math.ceil(T / step);
  return Array.from({ length: n }, (_, br) => Array.from({ length: n }, (_, bc) => {
    let m = null;
    for (let t = br * step; t < Math.min(T, (br + 1) * step); t++) {
      for (let s = bc * step; s < Math.min(T, (bc + 1) * step); s++) if (rows[t][s] !== null && (m === null || rows[t][s] > m)) m = rows[t][s];
    }
    return m;
  }));
}

/** one head's small map (no labels): the heads grid's and the layer figure's thumbnails; over THUMB_CELLS
 * tokens, blocks of tokens drawn by their largest weight */
export function thumb({ attention, shape, layer, head, x, y, size, titles = true }) {
  const rows = headRows(attention, shape, layer, head), name = `head ${headName(layer, head)}`;
  const step = Math.ceil(shape.T / THUMB_CELLS);
  if (step === 1) {
    return heatmap({ x, y, values: rows, name, cell: size / shape.T, showValues: false,
      title: titles && ((r, c, v) => `${name}: token ${r} looks at token ${c} with weight ${fixed(v, 3)}`) });
  }
  const values = pooled(rows, step), span = (i) => `${i * step} to ${Math.min(shape.T, (i + 1) * step) - 1}`;
  return heatmap({ x, y, values, name, cell: size / values.length, showValues: false,
    title: titles && ((r, c, v) => `${name}: tokens ${span(r)} look at tokens ${span(c)} with largest weight ${fixed(v, 3)}`) });
}

/** one head's small map as a standalone SVG of size × size (the heads grid's cells in a page) */
export function headThumb({ attention, shape, layer, head, size = 120, titles = true }) {
  check(attention, shape, layer, head);
  return svgDocument({ width: size, height: size, kind: 'thumb', body: thumb({ attention, shape, layer, head, x: 0, y: 0, size, titles }).svg,
    title: `Attention weights of head ${headName(layer, head)} over ${shape.T} tokens`,
    desc: `A ${shape.T} by ${shape.T} heat map: row t is how token t shares its weight over tokens 0 to t (darker is more).` });
}

/** all heads of one layer side by side, each a labelled map */
export function layerHeads({ tokens, attention, shape, layer, size = 160 }) {
  check(attention, shape, layer);
  const { H, T } = shape, gap = 22, left = 16, top = 56;
  const cols = Math.min(H, 4);
  const parts = [];
  for (let h = 0; h < H; h++) {
    const x = left + (h % cols) * (size + gap), y = top + Math.floor(h / cols) * (size + 34);
    parts.push(text(x, y - 6, `head ${headName(layer, h)}`, { size: 12, weight: 600 }), thumb({ attention, shape, layer, head: h, x, y, size }).svg);
  }
  const rowsN = Math.ceil(H / cols);
  const lg = legend({ x: left, y: top + rowsN * (size + 34) });
  const width = Math.max(left + cols * (size + gap) + 8, 420);
  return svgDocument({ width, height: top + rowsN * (size + 34) + lg.height + 12, kind: 'layer',
    body: text(left, 26, `Layer ${layer + 1}: every head's attention over ${T} tokens (rows look back at columns)`, { size: 13, weight: 600 }) + parts.join('') + lg.svg,
    title: `Attention weights of the ${H} heads of layer ${layer + 1}`,
    desc: `${H} heat maps, one per head of layer ${layer + 1}; each is ${T} by ${T}, row t showing how token t shares its weight over tokens 0 to t. `
      + `The tokens: ${tokens.map(tokenText).join(' ')}` });
}

const HABIT_SHORT = { previous_token: 'prev', start_mark: '◆', induction: 'ind', four_or_more_back: '4+ back' };

/** a head's habits as one line: "prev 0.16 · ◆ 0.12 · ind 0.00" (scores: { key: value | null }) */
export function habitLine(scores) {
  return Object.entries(scores).filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${HABIT_SHORT[k] ?? k} ${fixed(v, 2)}`).join(' · ');
}

/**
 * Every head: L × H small maps (or in `order`, a list of { layer, head }), each named layer.head with its habits
 * from the card (habits(layer, head) -> { previous_token, start_mark, induction }); labels never wrap.
 */
export function headsGrid({ tokens, attention, shape, order, habits = () => ({}), size = 120 }) {
  const { L, H, T } = shape ?? {};
  if (!attention || attention.length !== L * H * T * T) throw new TypeError('figures: attention must hold L*H*T*T numbers');
  const heads = order ?? Array.from({ length: L * H }, (_, i) => ({ layer: Math.floor(i / H), head: i % H }));
  const lines = heads.map((x) => habitLine(habits(x.layer, x.head)));
  const cellW = Math.max(size, ...lines.map((l) => textWidth(l, 10))) + 14;
  const cols = Math.min(H, Math.max(1, Math.floor(1000 / cellW))), left = 16, top = 50, cellH = size + 40;
  const parts = heads.map((x, i) => {
    const cx = left + (i % cols) * cellW, cy = top + Math.floor(i / cols) * cellH;
    return `<g class="head" data-head="${headName(x.layer, x.head)}">${text(cx, cy + 11, headName(x.layer, x.head), { size: 12, weight: 700 })}`
      + `${thumb({ attention, shape, layer: x.layer, head: x.head, x: cx, y: cy + 16, size }).svg}`
      + `${lines[i] ? text(cx, cy + size + 30, lines[i], { size: 10, fill: MUTED, attrs: { 'white-space': 'pre' } }) : ''}</g>`;
  });
  const rowsN = Math.ceil(heads.length / cols);
  const lg = legend({ x: left, y: top + rowsN * cellH + 6 });
  const heading = `Every head's attention over ${T} tokens: rows look back at columns; under each, its measured habits`;
  return svgDocument({ width: Math.max(left + cols * cellW + 8, left + textWidth(heading, 13, true) + 16), height: top + rowsN * cellH + 6 + lg.height + 10, kind: 'heads',
    body: text(left, 26, heading, { size: 13, weight: 600 })
      + parts.join('') + lg.svg,
    title: `Attention weights of all ${heads.length} heads (${L} layers of ${H})`,
    desc: `One small heat map per head, named layer.head counting from 1, each ${T} by ${T} (row t: how token t shares its weight over tokens 0 to t). `
      + 'Under each map, its habits measured over held-out texts: prev is the average weight on the previous token, ◆ on the start mark, ind the induction score.' });
}

