// Export helpers shared by the widgets: a canvas "report" drawn from titles, tables and pictures (so HTML
// views can be saved as PNG), PNG blobs, CSV text and downloads. Not a custom element; computes nothing.

const SCALE = 2;  // exported pixels per CSS pixel

// The widget's palette, read from the CSS variables its shadow style sets on the host.
export function palette(host) {
  const cs = getComputedStyle(host);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: v('--lb-panel', '#f3f2ec'), page: v('--lb-page', '#fdfcf8'), fg: v('--lb-fg', '#1d1d1f'),
    muted: v('--lb-muted', '#5b5b66'), accent: v('--lb-accent', '#2f5fd0'), accent2: v('--lb-accent-2', '#c0392b'),
    rule: v('--lb-rule', '#deddd6'), font: v('--lb-font', 'system-ui, sans-serif'), mono: v('--lb-mono', 'monospace'),
  };
}

// Draws blocks one under another on a fresh canvas `width` CSS pixels wide (twice as many real pixels).
// Blocks: {text, size?, bold?, color?} | {table: {caption?, header, rows, fill?(r, c) -> colour|null}} |
//         {picture: canvas, width?, height?} | {draw(ctx, w) , height}
export function drawReport(host, { title, blocks, width = 640 }) {
  const pal = palette(host);
  const pad = 16, lineH = 20;
  const measure = document.createElement('canvas').getContext('2d');
  const all = [{ text: title, size: 17, bold: true }, ...blocks];
  const layout = all.map((b) => {
    if (b.text !== undefined) {
      measure.font = `${b.bold ? '600 ' : ''}${b.size || 14}px ${pal.font}`;
      const lines = wrap(measure, String(b.text), width - 2 * pad);
      return { ...b, lines, h: lines.length * Math.round((b.size || 14) * 1.45) + 6 };
    }
    if (b.table) {
      const t = b.table;
      measure.font = `13px ${pal.mono}`;
      const cols = Math.max(t.header?.length || 0, ...t.rows.map((r) => r.length));
      const widths = Array.from({ length: cols }, (_, c) => Math.max(
        36, ...[t.header || [], ...t.rows].map((r) => measure.measureText(String(r[c] ?? '')).width + 14)));
      return { ...b, widths, h: (t.caption ? lineH : 0) + lineH * ((t.header ? 1 : 0) + t.rows.length) + 10 };
    }
    if (b.picture) {
      const w = Math.min(b.width || b.picture.width / SCALE, width - 2 * pad);
      const h = (b.height || b.picture.height / SCALE) * (w / (b.width || b.picture.width / SCALE));
      return { ...b, w, h: h + 8 };
    }
    return { ...b, h: b.height + 8 };
  });
  const height = pad * 2 + layout.reduce((a, b) => a + b.h, 0);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * SCALE);
  canvas.height = Math.round(height * SCALE);
  const ctx = canvas.getContext('2d');
  ctx.scale(SCALE, SCALE);
  ctx.fillStyle = pal.bg;
  ctx.fillRect(0, 0, width, height);
  let y = pad;
  for (const b of layout) {
    if (b.lines) {
      const size = b.size || 14;
      ctx.font = `${b.bold ? '600 ' : ''}${size}px ${pal.font}`;
      ctx.fillStyle = b.color || pal.fg;
      ctx.textBaseline = 'top';
      b.lines.forEach((line, i) => ctx.fillText(line, pad, y + i * Math.round(size * 1.45)));
    } else if (b.table) {
      drawTable(ctx, b.table, b.widths, pad, y, lineH, pal);
    } else if (b.picture) {
      ctx.drawImage(b.picture, pad, y, b.w, b.h - 8);
    } else {
      ctx.save();
      ctx.translate(pad, y);
      b.draw(ctx, width - 2 * pad, pal);
      ctx.restore();
    }
    y += b.h;
  }
  return canvas;
}

function drawTable(ctx, t, widths, x0, y0, lineH, pal) {
  let y = y0;
  ctx.textBaseline = 'middle';
  if (t.caption) {
    ctx.font = `600 13px ${pal.font}`;
    ctx.fillStyle = pal.muted;
    ctx.fillText(t.caption, x0, y + lineH / 2);
    y += lineH;
  }
  const rows = t.header ? [t.header, ...t.rows] : t.rows;
  rows.forEach((row, r) => {
    let x = x0;
    const isHead = t.header && r === 0;
    row.forEach((cell, c) => {
      const fill = !isHead && t.fill ? t.fill(r - (t.header ? 1 : 0), c) : null;
      if (fill) {
        ctx.fillStyle = fill;
        ctx.fillRect(x, y, widths[c] - 2, lineH - 2);
      }
      ctx.font = `${isHead ? '600 ' : ''}13px ${c === 0 || isHead ? pal.font : pal.mono}`;
      ctx.fillStyle = pal.fg;
      ctx.textAlign = c === 0 ? 'left' : 'right';
      ctx.fillText(String(cell ?? ''), c === 0 ? x + 4 : x + widths[c] - 8, y + lineH / 2);
      x += widths[c];
    });
    ctx.strokeStyle = pal.rule;
    ctx.beginPath();
    ctx.moveTo(x0, y + lineH - 0.5);
    ctx.lineTo(x, y + lineH - 0.5);
    ctx.stroke();
    y += lineH;
  });
  ctx.textAlign = 'left';
}

function wrap(ctx, text, maxWidth) {
  const out = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      const next = line ? `${line} ${word}` : word;
      if (ctx.measureText(next).width > maxWidth && line) {
        out.push(line);
        line = word;
      } else line = next;
    }
    out.push(line);
  }
  return out;
}

// A copy of a drawn canvas (so later drawing does not change an export in progress).
export function snapshot(canvas) {
  const c = document.createElement('canvas');
  c.width = canvas.width;
  c.height = canvas.height;
  c.getContext('2d').drawImage(canvas, 0, 0);
  return c;
}

export function canvasToPNG(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('lookback: PNG export failed'))), 'image/png');
  });
}

export function toCSV(rows) {
  const cell = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

export function downloadBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}
