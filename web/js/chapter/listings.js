// The chapter's Python listings: each <details data-listing="listings/<name>.py"> (a summary and a paragraph in
// the page) gets that file, fetched (the page never holds a second copy) and highlighted with highlight.js, and
// under it what the file prints, computed by the core from the numbers in the file (listing-runs.js) once the
// listing nears the screen; `data-note` replaces the line above the output. Open by default where the page is
// wide; on a phone the reader opens the ones they want, and what each prints shows under its closed summary (the
// output sits just after the <details>, so folding hides the code only). Not a Python runner.
import { runListing } from './listing-runs.js';
import { afterLayout } from '../widgets/widget-kit.js';

// highlight.js and its Python grammar load with the first listing, once per page.
let highlighter = null;
function pythonHighlighter() {
  highlighter ??= Promise.all([import('../../vendor/highlight/core.js'), import('../../vendor/highlight/python.js')])
    .then(([{ default: hljs }, { default: python }]) => {
      hljs.registerLanguage('python', python);
      return hljs;
    });
  return highlighter;
}

const NOTE = 'What it prints, computed now in this page by the core from the listing\'s numbers:';

// The parts under the listing's own summary and paragraph: the code and a link to the file, inside the <details>;
// then, just after it (visible whether it is open or not), the line above the output and the output.
function parts(el) {
  const file = el.dataset.listing;
  const doc = el.ownerDocument;
  const add = (parent, tag, cls, text) => {
    const node = doc.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return parent.appendChild(node);
  };
  const pre = add(el, 'pre', 'listing-code');
  const code = add(pre, 'code', '', 'loading…');
  const link = add(add(el, 'p', 'listing-file'), 'a');
  link.href = file;
  link.download = '';
  link.textContent = `Download ${file.replace(/^.*\//, '')}`;
  const run = doc.createElement('div');
  run.className = 'listing-run';
  el.after(run);
  add(run, 'p', 'listing-note', el.dataset.note ?? NOTE);
  const out = add(run, 'pre', 'listing-out', 'computing…');
  out.setAttribute('aria-live', 'polite');
  for (const p of [pre, out]) p.tabIndex = 0;   // they scroll sideways on a narrow screen
  el.listingRun = run;
  return { file, code, out, link };
}

async function show(client, el, { file, code, out, link }) {
  try {
    const response = await fetch(new URL(file, el.ownerDocument.baseURI));
    if (!response.ok) throw new Error(`cannot load ${file} (HTTP ${response.status})`);
    const source = await response.text();
    code.textContent = source;
    link.after(/^import torch$/m.test(source) ? ' (Python 3 with PyTorch 2)' : ' (Python 3 with numpy)');
    const highlighted = pythonHighlighter().then((hljs) => {
      code.innerHTML = hljs.highlight(source, { language: 'python' }).value;
    });
    const result = await runListing(file, source, (op, args) => client.request(op, args));
    await highlighted;
    out.textContent = result.text;
    el.listingOutput = result;   // { text, values }: the numbers unrounded, for tests and the curious
    el.dataset.state = 'ready';
  } catch (err) {
    out.textContent = `could not compute: ${err.message}`;
    el.dataset.state = 'error';
    console.error(err);
  }
  afterLayout(() => [el, el.listingRun].forEach((x) => x.toggleAttribute('data-settled', true)));   // a scroll anchor may sit in it from now on
}

export function showListings(client, doc = document) {
  const listings = [...doc.querySelectorAll('details[data-listing]')];
  const wide = matchMedia('(min-width: 60rem)').matches;
  const made = new Map(listings.map((el) => {
    if (wide) el.open = true;
    return [el, parts(el)];
  }));
  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      seen.unobserve(e.target);
      show(client, e.target, made.get(e.target));
    }
  }, { rootMargin: '400px 0px' });
  listings.forEach((el) => seen.observe(el));
}
