// Reads a figure's SVG string the way the figure tests check it: every <rect class="cell"> with its matrix
// (data-m), row, column, value (data-v) and <title>; every <text> in order; the root's title and desc. Also
// parses it with resvg (a strict XML and SVG parser) where that is installed. Not a test file.
import { createRequire } from 'node:module';

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const attr = (tag, name) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]) : null;
};

export function cells(svg) {
  return [...svg.matchAll(/<rect class="cell"([^>]*)><title>([^<]*)<\/title><\/rect>/g)].map((m) => ({
    m: attr(m[1], 'data-m'), r: Number(attr(m[1], 'data-r')), c: Number(attr(m[1], 'data-c')),
    v: Number(attr(m[1], 'data-v')), title: unescape(m[2]),
  }));
}

export const texts = (svg) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]));
export const titleOf = (svg) => unescape(/^<svg[^>]*><title>([^<]*)<\/title>/.exec(svg)?.[1] ?? '');
export const descOf = (svg) => unescape(/<\/title><desc>([^<]*)<\/desc>/.exec(svg)?.[1] ?? '');

/** the last number written in a title ("… with weight 0.473" -> 0.473) */
export const titleNumber = (title) => Number(/(-?\d+(?:\.\d+)?)(?:\s*\([^)]*\))?\s*$/.exec(title)?.[1]);

/** resvg's parse of the document (throws on malformed XML or SVG): its width and height */
export function parse(svg) {
  const { Resvg } = createRequire(import.meta.url)('@resvg/resvg-js');
  const r = new Resvg(svg, { font: { loadSystemFonts: false } });
  return { width: r.width, height: r.height };
}
