// The pieces every figure is written with: escaping, numbers as the SVG text writes them, text widths in the
// bundled fonts (DejaVu Sans and DejaVu Sans Mono, so a figure lays out the same in Node, a page and the PNG
// rasteriser), and the standalone <svg> document with its accessible <title> and <desc>. No ids anywhere (a page
// may hold many figures). Not a DOM: strings in, strings out.

export const FONT = "'DejaVu Sans', Verdana, 'Segoe UI', sans-serif";
export const MONO = "'DejaVu Sans Mono', Menlo, Consolas, monospace";
export const INK = '#1d1d1f';
export const MUTED = '#55555f';
export const RULE = '#d6d5cc';
export const ACCENT_2 = '#b03325';   // the query's outline, as the page's second accent
export const PAPER = '#ffffff';
export const VOID = '#f1f1ee';       // a hidden cell (the mask's future)
export const SERIES = ['#2f5fd0', ACCENT_2, '#2d7a3a', '#7a3db8'];   // the plots' lines

/**
 * CSS that draws the figures shown inside a page in the page's colours, given as CSS values (var(--…)): the ink,
 * muted text and ticks, rules, paper, hidden cells and the two accents; the cells keep the one colour scale and
 * their own ink. A figure saved or written by the command line keeps its own light-on-white colours.
 */
export function pageCSS({ ink, muted, rule, paper, hidden, accent, accent2 }) {
  const f = 'svg.lookback-figure';
  return [`${f} { fill: ${ink}; }`, `${f} rect.paper { fill: ${paper}; }`,
    `${f} [fill="${MUTED}"] { fill: ${muted}; }`, `${f} [stroke="${MUTED}"] { stroke: ${muted}; }`,
    `${f} [stroke="${INK}"] { stroke: ${ink}; }`, `${f} [stroke="${RULE}"] { stroke: ${rule}; }`, `${f} [fill="${VOID}"] { fill: ${hidden}; }`,
    `${f} [fill="${ACCENT_2}"] { fill: ${accent2}; }`, `${f} [stroke="${ACCENT_2}"] { stroke: ${accent2}; }`,
    `${f} [fill="${SERIES[0]}"] { fill: ${accent}; }`, `${f} [stroke="${SERIES[0]}"] { stroke: ${accent}; }`].join('\n');
}

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** a coordinate: at most two decimals, no "-0" */
export function px(x) {
  const r = Math.round(x * 100) / 100;
  return String(Object.is(r, -0) ? 0 : r);
}

/** fixed-point text without "-0.00" */
export function fixed(x, digits = 2) {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '-∞' : 'NaN';
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

// DejaVu Sans Mono advances every glyph 0.602 em; DejaVu Sans averages about 0.6 em over lower-case text with
// digits, and labels are laid out with that (rounded up) so they never overrun.
export const monoWidth = (text, size) => [...String(text)].length * 0.602 * size;
export const textWidth = (text, size, bold = false) => [...String(text)].length * (bold ? 0.66 : 0.6) * size;

/** content cut at spaces into lines at most `width` wide (by textWidth); a word wider than that gets a line of its own */
export function lines(content, width, size, bold = false) {
  const out = [];
  for (const word of String(content).split(' ')) {
    const last = out.length - 1;
    if (last >= 0 && textWidth(`${out[last]} ${word}`, size, bold) <= width) out[last] += ` ${word}`;
    else out.push(word);
  }
  return out;
}

/** figures narrower than this (a phone's column) wrap their headings and stack what stands side by side */
export const NARROW = 640;

/** <text> at (x, y): anchor 'start' | 'middle' | 'end'; extra attributes as an object */
export function text(x, y, content, { size = 12, anchor = 'start', weight, fill = INK, mono = false, attrs = {} } = {}) {
  const a = Object.entries(attrs).map(([k, v]) => ` ${k}="${esc(v)}"`).join('');
  return `<text x="${px(x)}" y="${px(y)}" font-size="${size}"${anchor !== 'start' ? ` text-anchor="${anchor}"` : ''}${
    weight ? ` font-weight="${weight}"` : ''}${fill !== INK ? ` fill="${fill}"` : ''}${mono ? ` font-family="${esc(MONO)}"` : ''}${a}>${esc(content)}</text>`;
}

/** lines of text (as lines() cuts them) from (x, y) down, `step` apart, each with text()'s options */
export const textLines = (x, y, list, step, options) => list.map((line, i) => text(x, y + i * step, line, options)).join('');

/** a standalone SVG document: width × height user units, an accessible title and description */
export function svgDocument({ width, height, title, desc, body, kind }) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" `
    + `role="img" class="lookback-figure" data-figure="${esc(kind)}" font-family="${esc(FONT)}" fill="${INK}">`
    + `<title>${esc(title)}</title><desc>${esc(desc)}</desc>`
    + `<rect class="paper" width="${px(width)}" height="${px(height)}" fill="${PAPER}"/>${body}</svg>`;
}
