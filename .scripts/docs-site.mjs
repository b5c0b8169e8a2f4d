// Builds the documentation into pages of the static site: README.md as web/docs/index.html, each web/docs/*.md as
// web/docs/<name>.html and CHANGELOG.md as web/docs/changelog.html, rendered by marked (an npm devDependency, run
// here at build time, so the pages need no script and no network), in the chapter's style with a small
// navigation. Links between the markdown files become links between the pages; a link to a file outside the
// served folder keeps its text only; the model-card markers are filled from the shipped Sprout's card. Run by the
// build (`--web` too). Not a markdown renderer of its own.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked } from 'marked';
import { readmeBlock } from './eval.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const docs = join(web, 'docs');

// The anchor a git host gives a heading: lower case, punctuation dropped, spaces to hyphens; the pages use the
// same, so a link written for the markdown works on the built page.
export function slug(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

// Every page: [source file, page file, title in the navigation].
export function pages() {
  const own = readdirSync(docs).filter((f) => f.endsWith('.md')).sort();
  const title = (f) => readFileSync(join(docs, f), 'utf8').match(/^# (.+)$/m)?.[1] ?? f.replace(/\.md$/, '');
  return [
    [join(root, 'README.md'), join(docs, 'index.html'), 'Overview'],
    ...own.map((f) => [join(docs, f), join(docs, f.replace(/\.md$/, '.html')), title(f)]),
    [join(root, 'CHANGELOG.md'), join(docs, 'changelog.html'), 'Changelog'],
  ];
}

// The model-card markers of a page (web/docs/models.md), filled with the block the shipped Sprout's card gives, so
// that the figures are read from the card when the pages are built and a retrain needs no edit of the page.
const CARD = join(root, 'shared/models/sprout/card.json');
export const MODEL_CARD = /<!-- model-card:start -->\n[\s\S]*?<!-- model-card:end -->/;
export function withModelCard(markdown) {
  if (!MODEL_CARD.test(markdown)) return markdown;
  const block = readmeBlock(JSON.parse(readFileSync(CARD, 'utf8')));
  return markdown.replace(MODEL_CARD, () => `${block}\n`);
}

const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Where a markdown link from `source` points on the site: a page for a page's source, the file itself inside
// web/, null outside it (no such file is served).
function siteHref(href, source, all) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) return href;
  const [path, hash] = href.split('#');
  const target = resolve(dirname(source), decodeURIComponent(path));
  const page = all.find(([src]) => src === target);
  const file = page ? page[1] : target;
  if (!file.startsWith(web + '/') || !existsSync(file)) return page ? relative(docs, file) + (hash ? `#${hash}` : '') : null;
  return relative(docs, file) + (hash ? `#${hash}` : '');
}

export function renderPage([source, out, title], all) {
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${slug(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title: t, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const to = siteHref(href, source, all);
        return to == null ? inner : `<a href="${escapeHtml(to)}"${t ? ` title="${escapeHtml(t)}"` : ''}>${inner}</a>`;
      },
      image({ href, title: t, text }) {
        const to = siteHref(href, source, all);
        return to == null ? escapeHtml(text) : `<img src="${escapeHtml(to)}" alt="${escapeHtml(text)}"${t ? ` title="${escapeHtml(t)}"` : ''}>`;
      },
    },
  });
  const body = marked.parse(withModelCard(readFileSync(source, 'utf8')).replace(/<!--[\s\S]*?-->\n?/g, ''));
  const nav = [['../index.html', 'The chapter'], ...all.map(([, o, t]) => [relative(docs, o), t])]
    .map(([href, t]) => `<li><a href="${escapeHtml(href)}"${href === relative(docs, out) ? ' aria-current="page"' : ''}>${escapeHtml(t)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>${escapeHtml(title)} — lookback</title>
  <link rel="stylesheet" href="../css/chapter.css">
  <link rel="stylesheet" href="../css/docs.css">
</head>
<body class="docs">
  <nav class="docs-nav" aria-label="Documentation"><ul>${nav}</ul></nav>
  <main id="doc">
${body}  </main>
</body>
</html>
`;
}

export function buildDocsSite() {
  const all = pages();
  for (const page of all) writeFileSync(page[1], renderPage(page, all));
  return all.map(([, out]) => relative(root, out));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`docs: ${buildDocsSite().join(', ')}`);
