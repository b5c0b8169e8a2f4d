// Makes the documentation's figures with the command line: an SVG image a page shows is the output of the
// `npx lookback … --svg <name>.svg` line of that same page, run on this checkout and its bundled models, so a
// figure in the docs is what its command draws today (never a screenshot). The build writes the pages' figures
// (web/docs/figures/, not in git). README's picture lives in git, in web/docs/img/, because a git host shows the
// README straight from the repository: `--readme` rewrites it, and tests/js/docs.test.mjs fails when it is stale.
// Not a drawing of its own: web/js/cli/lookback.mjs draws.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const README = join(root, 'README.md');
export const DOCS = join(root, 'web/docs');
export const FIGURES = join(DOCS, 'figures');
const CLI = join(root, 'web/js/cli/lookback.mjs');

/** a command line's arguments: words, or "quoted text" as one */
export const commandArgs = (line) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);

/** the `npx lookback` lines of a page's sh blocks (comments dropped), as argument lists after `lookback` */
export function commands(markdown) {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap((m) => m[1].split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim().match(/^npx lookback (.*)$/)?.[1]).filter(Boolean).map(commandArgs);
}

/**
 * The figures a page shows and the command that draws each: [{ image (absolute path), args, committed }].
 * An SVG image under web/docs/figures/ must have its command on the page; one elsewhere (README's, in
 * web/docs/img/) is a figure when the page has a command writing a file of its name, and is kept in git.
 */
export function pageFigures(page, markdown = readFileSync(page, 'utf8')) {
  const all = commands(markdown);
  const out = [];
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/!\[[^\]]*\]\(([^)\s]+\.svg)\)/g)) {
    const image = resolve(dirname(page), decodeURIComponent(m[1]));
    const args = all.find((a) => a.includes('--svg') && a[a.indexOf('--svg') + 1] === basename(image));
    const generated = dirname(image) === FIGURES;
    if (!args && generated) throw new Error(`docs-figures: ${relative(root, page)} shows ${m[1]} but has no \`npx lookback … --svg ${basename(image)}\` line that draws it`);
    if (args) out.push({ image, args, committed: !generated });
  }
  return out;
}

export const docPages = () => [README, ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => join(DOCS, f))];

/** runs a figure's command with its SVG written to `file` (the other arguments exactly as the page shows them) */
export function drawFigure(args, file) {
  const at = args.indexOf('--svg');
  const own = args.map((a, i) => (i === at + 1 ? file : a));
  mkdirSync(dirname(file), { recursive: true });
  execFileSync(process.execPath, [CLI, ...own], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  return file;
}

/** writes every page's generated figures into web/docs/figures/ (anew), or with `committed`, README's kept ones */
export function buildDocsFigures({ committed = false } = {}) {
  const figures = docPages().flatMap((p) => pageFigures(p)).filter((f) => f.committed === committed);
  if (!committed) {
    rmSync(FIGURES, { recursive: true, force: true });
    mkdirSync(FIGURES, { recursive: true });
  }
  const seen = new Map();
  for (const f of figures) {
    const same = seen.get(f.image);
    if (same && same.join('\0') !== f.args.join('\0')) throw new Error(`docs-figures: two commands draw ${relative(root, f.image)}`);
    if (!same) drawFigure(f.args, f.image);
    seen.set(f.image, f.args);
  }
  return [...seen.keys()].map((f) => relative(root, f));
}

/** the generated figures that are not there (the build writes them; a pack without a build checks) */
export const missingFigures = () => docPages().flatMap((p) => pageFigures(p)).filter((f) => !f.committed && !existsSync(f.image)).map((f) => relative(root, f.image));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const committed = process.argv.includes('--readme');
  console.log(`docs-figures: ${buildDocsFigures({ committed }).join(', ') || 'none'}`);
}
