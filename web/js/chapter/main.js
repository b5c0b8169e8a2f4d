// The chapter controller: installs the compute controller (one worker for the page), defines the widgets,
// renders formulas, numbers the sections, tracks the contents bar, shows a bar while a model loads, runs the
// page's own first computation and the Python listings' output, fills the prose's model numbers from the card and opens heads in
// the explorer. Not a widget and not the API: widgets reach the core only through the controller's answers to
// their events.
import { client } from './install.js';
import '../widgets/all.js';
import { renderMath } from './math.js';
import { firstComputation } from './first-computation.js';
import { trackContents } from './contents.js';
import { numberSections } from './numbering.js';
import { keyboardScrollable } from '../widgets/widget-kit.js';
import { fillCardSlots, valueAt } from './card-slots.js';
import { showModelProgress } from './model-progress.js';
import { showListings } from './listings.js';
import { sproutLimits } from './sprout-limits.js';
import { sharpestQuery } from './head-focus.js';

showModelProgress(document);  // before any widget asks for a model
// sections far off screen wait to be laid out until the page has loaded, then all are (see chapter.css)
const layOut = () => document.documentElement.classList.add('laid-out');
if (document.readyState === 'complete') layOut();
else addEventListener('load', layOut, { once: true });

renderMath(document);
numberSections(document);   // before the contents bar reads its links
trackContents(document);
// formulas and tables that scroll sideways on a narrow screen become focusable while they do
const scrollers = new ResizeObserver((entries) => entries.forEach((e) => keyboardScrollable(e.target)));
document.querySelectorAll('.formula, .table-wrap').forEach((el) => scrollers.observe(el));
// under each formula, a line that shows while the formula scrolls (see chapter.css)
document.querySelectorAll('.formula').forEach((el) => {
  const hint = document.createElement('p');
  hint.className = 'scroll-hint';
  hint.setAttribute('aria-hidden', 'true');  // the formula itself is then labelled "formula (scrolls sideways)"
  hint.textContent = 'the formula continues: scroll it sideways →';
  el.after(hint);
});
// Asides (self-checks, a second widget, a digression) start folded on a phone, where the page is long, and open
// on wider screens.
if (matchMedia('(min-width: 601px)').matches) document.querySelectorAll('details.more').forEach((d) => { d.open = true; });
firstComputation(client, document.getElementById('first-computation'));
showListings(client, document);
sproutLimits(document, client.models);

// Model numbers in the prose come from Sprout's card and config at run time (see card-slots.js); so do the
// heads the prose's "Show this head" buttons open.
const card = client.models.card('sprout');
Promise.all([card, client.models.bundledJson('sprout', 'config.json')])
  .then(([c, config]) => fillCardSlots(document, c, config));

function openInExplorer({ layer, head, text, example, token, where, model }, explorer = document.querySelector('lookback-explorer')) {
  if (!explorer || !(layer >= 0 && head >= 0)) return;
  if (model) explorer.setAttribute('model', model);
  if (text) explorer.setAttribute('text', text);
  if (example) {
    explorer.removeAttribute('example');
    explorer.setAttribute('example', example);
  }
  explorer.setAttribute('layer', String(layer + 1));
  explorer.setAttribute('head', String(head + 1));
  if (token) explorer.setAttribute('query-text', token);
  else explorer.removeAttribute('query-text');
  // re-set, so the same button picks again after the reader moved on
  explorer.removeAttribute('query-where');
  if (where) explorer.setAttribute('query-where', where);
  explorer.scrollIntoView({ block: 'start' });
}
// a head clicked in the heads grid opens in the explorer beside it (the section's own, else section 2's), on the
// query where that head looks hardest at one token, with the grid's model (a grid beside another shows a second model)
document.addEventListener('lookback-open-head', async (e) => {
  const { layer, head, text, model = 'current' } = e.detail;
  const explorer = e.target.closest?.('section')?.querySelector('lookback-explorer') ?? document.querySelector('lookback-explorer');
  if (!explorer) return;
  explorer.hidden = false;
  openInExplorer({ layer, head, text, model }, explorer);
  try {
    const f = await client.models.call(model, 'forward', [text, { attention: true, window: true }]);
    const q = sharpestQuery(f.attention, f.shape, layer, head);
    const still = explorer.getAttribute('text') === text && explorer.getAttribute('layer') === String(layer + 1)
      && explorer.getAttribute('head') === String(head + 1) && explorer.getAttribute('model') === model;   // not since replaced by another click
    if (q !== null && still) explorer.setAttribute('token', String(q));
  } catch (err) {
    if (err?.name !== 'AbortError') console.error(err);
  }
});
// A button in the prose that sets a widget to one of its presets and brings it into view (section 4 shows the
// plane of section 3 with no key matching the query).
document.addEventListener('click', (e) => {
  const b = e.target.closest?.('button.show-preset[data-for][data-preset]');
  const widget = b && document.getElementById(b.dataset.for);
  if (!widget?.applyPreset) return;
  widget.applyPreset(b.dataset.preset);
  widget.scrollIntoView({ block: 'center' });
});
// "Show this head" in the prose: the head the card names, counting from 0 in the card
document.addEventListener('click', async (e) => {
  const b = e.target.closest?.('button.open-head[data-head-from]');
  if (!b) return;
  const [layer, head] = String(valueAt(await card, b.dataset.headFrom) ?? '').split('.').map(Number);
  openInExplorer({ layer, head, example: b.dataset.example, token: b.dataset.token, where: b.dataset.queryWhere });
});
