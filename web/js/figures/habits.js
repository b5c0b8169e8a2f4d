// Measured habits of every head as heat maps, one per habit: layers down, heads across, each cell a head's
// score (a share of weight, on the weights' colour scale) with its value in the cell and its title, and the even
// spread's score marked on the legend, so a head is read against what no preference would give. Not the
// measurement: the core's headScores, recorded in the model card.
import { heatmap, legend } from './heatmap.js';
import { fixed, lines, svgDocument, text, textLines, textWidth, MUTED, NARROW } from './svg.js';

const LABELS = { previous_token: 'previous token', start_mark: 'start mark ◆', four_or_more_back: '4 or more back', induction: 'induction' };

/** the card's habits as the figure takes them: [{ key, label, byLayer, even }] (keys the card lacks are left out) */
export function cardHabits(card, keys = ['previous_token', 'four_or_more_back', 'start_mark', 'induction']) {
  return keys.filter((k) => Array.isArray(card?.heads?.[k]?.by_layer))
    .map((k) => ({ key: k, label: LABELS[k] ?? k.replace(/_/g, ' '), byLayer: card.heads[k].by_layer, even: card.heads[k].even }));
}

/** habits: [{ key, label, byLayer: number[L][H], even }]; one map per habit, side by side (wrapping past maxWidth) */
export function habitsMap({ habits, cell = 30, maxWidth = 1000 }) {
  if (!Array.isArray(habits) || habits.length === 0) throw new TypeError('figures: habitsMap needs at least one habit');
  const L = habits[0].byLayer.length, H = habits[0].byLayer[0].length;
  const headLabels = Array.from({ length: H }, (_, h) => `${h + 1}`), layerLabels = Array.from({ length: L }, (_, l) => `${l + 1}`);
  const mapW = Math.max(24 + H * cell + 30, ...habits.map((hb) => textWidth(hb.label, 13, true) + 24)), mapH = 40 + L * cell + 58;
  const cols = Math.max(1, Math.min(habits.length, Math.floor((maxWidth - 16) / mapW)));
  const parts = habits.map((hb, i) => {
    const x = 16 + (i % cols) * mapW, y = 44 + Math.floor(i / cols) * mapH;
    const map = heatmap({ x, y: y + 22, values: hb.byLayer, name: hb.label, cell, rowLabels: layerLabels, colLabels: headLabels, digits: 2,
      title: (r, c, v) => `head ${r + 1}.${c + 1}, ${hb.label}: ${fixed(v, 3)} (even spread ${fixed(hb.even, 3)})` });
    const lg = legend({ x: map.left, y: map.bottom + 16, width: H * cell, label: '', marks: [{ v: hb.even, label: `even ${fixed(hb.even, 2)}` }] });
    return `<g class="habit" data-habit="${hb.key}">${text(x, y + 4, hb.label, { size: 13, weight: 600 })}${
      text(x, y + 18, `even spread: ${fixed(hb.even, 2)}`, { size: 10, fill: MUTED })}${map.svg}${lg.svg}</g>`;
  });
  const rowsN = Math.ceil(habits.length / cols);
  // the heading on as many lines as maxWidth asks (a phone's one column of maps), the maps under it
  // (narrow, the figure sits under its widget's title: the heading says only how to read the maps)
  const how = 'layers, columns: heads, counting from 1';
  const heading = lines(maxWidth < NARROW ? `Rows: ${how}` : `Measured habits of every head (rows: ${how})`, maxWidth - 32, 13, true);
  const shift = (heading.length - 1) * 17;
  return svgDocument({ width: Math.max(16 + cols * mapW, ...heading.map((line) => 16 + textWidth(line, 13, true) + 16)), height: 44 + rowsN * mapH + 8 + shift, kind: 'habits',
    body: textLines(16, 24, heading, 17, { size: 13, weight: 600 })
      + (shift ? `<g transform="translate(0 ${shift})">${parts.join('')}</g>` : parts.join('')),
    title: `Measured habits of ${L * H} heads: ${habits.map((h) => h.label).join(', ')}`,
    desc: `One heat map per habit, ${L} layers down by ${H} heads across; each cell is a head's average score (0 to 1, darker is more), `
      + 'its value written in the cell; the even spread, what a head with no preference would score, is marked on each legend.' });
}
