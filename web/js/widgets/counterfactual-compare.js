// The counterfactual's comparison of two texts that differ in one edit: their tokens lined up, and the heads
// that look at the edit from the last token (onto the new word, off the old one). Pure (plain arrays and the JS
// API's forward() results), so a test can run it on the API's own output. Not the widget (counterfactual.js) and
// not the stories.

// Lines up two token lists that differ in one span: the common prefix and suffix token by token, the edited
// span as one row. Returns rows { before: [indices], after: [indices], edited? }.
export function alignTokens(a, b) {
  let p = 0;
  while (p < a.length && p < b.length && a[p].id === b[p].id) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s].id === b[b.length - 1 - s].id) s++;
  const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  const rows = range(0, p).map((i) => ({ before: [i], after: [i] }));
  if (p < a.length - s || p < b.length - s) rows.push({ before: range(p, a.length - s), after: range(p, b.length - s), edited: true });
  for (let i = s - 1; i >= 0; i--) rows.push({ before: [a.length - 1 - i], after: [b.length - 1 - i] });
  return rows;
}

// What each head at the predicting position (the last token) puts on the edit: its weight on the edited words
// before the edit (the old word, `onOld`) and after it (the new word, `onNew`), with its aligned rows' weights.
// Ranked by the weight moved onto the new word; for a removal (no new word) by the weight that had been on the old
// one and had to go elsewhere. A copying head ranks first either way.
export function headsOnTheEdit(before, after, rows) {
  const { L, H } = before.shape;
  const Tb = before.shape.T, Ta = after.shape.T;
  const e = rows.findIndex((r) => r.edited);
  const removal = e >= 0 && rows[e].after.length === 0;
  const out = [];
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const rb = before.attention.subarray(((l * H + h) * Tb + Tb - 1) * Tb, ((l * H + h) * Tb + Tb) * Tb);
      const ra = after.attention.subarray(((l * H + h) * Ta + Ta - 1) * Ta, ((l * H + h) * Ta + Ta) * Ta);
      const weights = rows.map((r) => ({ before: r.before.reduce((x, i) => x + rb[i], 0), after: r.after.reduce((x, i) => x + ra[i], 0) }));
      out.push({ layer: l, head: h, onOld: e < 0 ? 0 : weights[e].before, onNew: e < 0 ? 0 : weights[e].after, weights });
    }
  }
  const key = (x) => (removal ? x.onOld : x.onNew);
  return out.sort((x, y) => key(y) - key(x) || x.layer - y.layer || x.head - y.head);
}
