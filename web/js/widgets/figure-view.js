// A figure of lookback/figures shown in a widget so that every number can be reached: hovering a cell, or
// focusing the figure and moving with the arrow keys (Page Up/Down: the previous/next matrix; Home/End: the
// matrix's first/last number), writes the cell's title (matrix, row, column, value) to a live readout and rings
// the cell. Not the drawing (lookback/figures) and not the table alternative (each widget's own).

const CSS = `
.figure-view { position: relative; }
.figure-view:focus-visible { outline: 3px solid var(--lb-focus); outline-offset: 2px; }
.figure-view svg { width: 100%; height: auto; display: block; }
.figure-view rect.lb-cell.on { stroke: var(--lb-focus, #f0a500); stroke-width: 3; }
.figure-view .readout { min-height: 1.4em; font-size: .85rem; margin: .3rem 0 0; font-variant-numeric: tabular-nums; }
`;
export const FIGURE_CSS = CSS;

/** fills `box` with the SVG and wires the readout; `label` names the figure for assistive technology */
export function showFigure(box, svg, label) {
  box.classList.add('figure-view');
  box.tabIndex = 0;
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', `${label}. Arrow keys move between its numbers, Page Up and Page Down between its matrices.`);
  const at = box._at ?? null;
  box.innerHTML = `${svg}<p class="readout" aria-live="polite"></p>`;
  const cells = [...box.querySelectorAll('rect.lb-cell')];
  const readout = box.querySelector('.readout');
  const show = (i) => {
    box.querySelector('rect.lb-cell.on')?.classList.remove('on');
    box._at = i;
    if (i === null || !cells[i]) return;
    cells[i].classList.add('on');
    readout.textContent = cells[i].querySelector('title')?.textContent ?? '';
  };
  if (!box._wired) {
    box._wired = true;
    box.addEventListener('pointerover', (e) => {
      const c = e.target.closest?.('rect.lb-cell');
      if (c) show(box._cells.indexOf(c));
    });
    box.addEventListener('focus', () => { if (box._at === null || box._at === undefined) show(0); });
    box.addEventListener('keydown', (e) => {
      const list = box._cells, i = box._at ?? 0, c = list[i];
      if (!c) return;
      const m = c.dataset.m, r = Number(c.dataset.r), col = Number(c.dataset.c);
      const find = (pred) => list.findIndex(pred);
      const same = (x) => x.dataset.m === m;
      const moves = {
        ArrowRight: () => find((x) => same(x) && Number(x.dataset.r) === r && Number(x.dataset.c) > col),
        ArrowLeft: () => list.findLastIndex((x) => same(x) && Number(x.dataset.r) === r && Number(x.dataset.c) < col),
        ArrowDown: () => find((x) => same(x) && Number(x.dataset.r) > r && Number(x.dataset.c) === col),
        ArrowUp: () => list.findLastIndex((x) => same(x) && Number(x.dataset.r) < r && Number(x.dataset.c) === col),
        Home: () => find(same),
        End: () => list.findLastIndex(same),
        PageDown: () => find((x, j) => j > i && !same(x)),
        PageUp: () => { const prev = list.findLastIndex((x, j) => j < i && !same(x)); return prev < 0 ? -1 : find((x) => x.dataset.m === list[prev].dataset.m); },
      };
      if (!moves[e.key]) return;
      e.preventDefault();
      const to = moves[e.key]();
      if (to >= 0) show(to);
    });
  }
  box._cells = cells;
  show(at !== null && at < cells.length ? at : null);
}
