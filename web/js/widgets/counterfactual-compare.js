// The counterfactual's comparison of two texts that differ in one edit: their tokens lined up, and the heads
// whose attention at the last token moved most. Pure (plain arrays and the JS API's forward() results), so a
// test can run it on the API's own output. Not the widget (counterfactual.js) and not the stories.

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

// The heads whose attention at the last token moved most between the two texts (half the summed absolute
// change over aligned rows: 0 = the same, 1 = disjoint), each with its aligned rows' weights.
export function headsThatMoved(before, after, rows) {
  const { L, H } = before.shape;
  const Tb = before.shape.T, Ta = after.shape.T;
  const out = [];
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const rb = before.attention.subarray(((l * H + h) * Tb + Tb - 1) * Tb, ((l * H + h) * Tb + Tb) * Tb);
      const ra = after.attention.subarray(((l * H + h) * Ta + Ta - 1) * Ta, ((l * H + h) * Ta + Ta) * Ta);
      const weights = rows.map((r) => ({ before: r.before.reduce((x, i) => x + rb[i], 0), after: r.after.reduce((x, i) => x + ra[i], 0) }));
      const moved = weights.reduce((x, w) => x + Math.abs(w.after - w.before), 0) / 2;
      out.push({ layer: l, head: h, moved, weights });
    }
  }
  return out.sort((x, y) => y.moved - x.moved || x.layer - y.layer || x.head - y.head);
}
