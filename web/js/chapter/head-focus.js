// Where to show a head first: the query token at which the head's weight is most concentrated on one earlier
// token (the latest such token among near-ties), so the habit that made a reader pick the head is in view when
// it opens. Not a widget: the page asks it when a head is opened from the heads grid.

// attention: [L, H, T, T] weights; returns a query index (0 is ◆), or null when the text is too short.
export function sharpestQuery(attention, { T, H }, layer, head, tie = 0.02) {
  if (T < 3) return null;
  const peak = (t) => {
    const base = ((layer * H + head) * T + t) * T;
    let m = 0;
    for (let s = 0; s <= t; s++) m = Math.max(m, attention[base + s]);
    return m;
  };
  const peaks = Array.from({ length: T }, (_, t) => (t < 2 ? -1 : peak(t)));   // ◆ and the first token see too little
  const best = Math.max(...peaks);
  for (let t = T - 1; t >= 2; t--) if (peaks[t] >= best - tie) return t;
  return null;
}
