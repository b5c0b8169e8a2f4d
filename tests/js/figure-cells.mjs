// Reads a figure's SVG string the way the figure tests check it: every <rect class="lb-cell"> with its matrix
// (data-m), row, column, value (data-v) and <title>; every <text> in order; the root's title and desc. Also
// parses it with resvg (a strict XML and SVG parser) where that is installed. Not a test file.
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const attr = (tag, name) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescape(m[1]) : null;
};

export function cells(svg) {
  return [...svg.matchAll(/<rect class="lb-cell"([^>]*)><title>([^<]*)<\/title><\/rect>/g)].map((m) => ({
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

/** a PNG's width, height and RGBA pixels (8-bit RGBA or RGB, non-interlaced: what resvg writes), decoded here */
export function decodePNG(bytes) {
  const b = Buffer.from(bytes);
  if (b.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let at = 8, width = 0, height = 0, channels = 4;
  const idat = [];
  while (at < b.length) {
    const len = b.readUInt32BE(at), type = b.toString('latin1', at + 4, at + 8), data = b.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      if (data[8] !== 8 || ![2, 6].includes(data[9]) || data[12] !== 0) throw new Error('only 8-bit RGB(A), non-interlaced');
      channels = data[9] === 6 ? 4 : 3;
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels, px = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)), cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? cur[i - channels] : 0, up = prev[i], c = i >= channels ? prev[i - channels] : 0;
      const p = a + up - c, pa = Math.abs(p - a), pb = Math.abs(p - up), pc = Math.abs(p - c);
      const pred = [0, a, up, (a + up) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? up : c][f];
      cur[i] = (line[i] + pred) & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 4; k++) px[(y * width + x) * 4 + k] = k < channels ? cur[x * channels + k] : 255;
    }
    prev = cur;
  }
  return { width, height, pixels: px };
}
