// The chapter controller: installs the compute controller (one worker for the page), defines the widgets,
// renders formulas, tracks the contents bar and runs the page's own first computation. Not a widget and not
// the API: widgets reach the core only through the controller's answers to their events.
import { client } from './install.js';
import '../widgets/all.js';
import { renderMath } from './math.js';
import { firstComputation } from './first-computation.js';
import { trackContents } from './contents.js';
import { keyboardScrollable } from '../widgets/widget-kit.js';

renderMath(document);
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
firstComputation(client, document.getElementById('first-computation'));
