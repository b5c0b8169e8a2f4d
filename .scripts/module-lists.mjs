// The module lists the build writes into two sources, so that a browser fetches each module graph in one wave
// rather than level by level as each import is found: the chapter page's <link rel="modulepreload"> block
// (web/index.html: every module its module scripts, widgets/all.js among them, import statically, KaTeX aside)
// and the worker's import block (web/js/worker/worker.js: every module of its graph). Each block stands between
// two marker lines and is rewritten whole; `node .scripts/module-lists.mjs --check` lists the stale ones.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsImports } from './js-imports.mjs';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
// Large, and needed only by the page's last script (main.js): fetched early, it delayed the first widget.
const NOT_PRELOADED = new Set(['vendor/katex/katex.mjs']);
const webPath = (file) => relative(WEB, file).split('\\').join('/');

// The files reached by static imports from the entries (dynamic import() loads on demand), entries first, in
// the order found. Copied files (vendor/, build/) are listed but not read: they may not be built yet.
export function closure(entries) {
  const seen = new Set();
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!webPath(file).startsWith('js/')) return;
    for (const spec of jsImports(readFileSync(file, 'utf8'), { dynamic: false })) {
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
    }
  };
  entries.forEach(walk);
  return [...seen].map(webPath);
}

// text with the lines between the line holding `open` and the line holding `close` replaced by `lines`.
function between(text, open, close, lines, file) {
  const rows = text.split('\n');
  const a = rows.findIndex((r) => r.includes(open)), b = rows.findIndex((r) => r.includes(close));
  if (a < 0 || b < a) throw new Error(`${file}: the markers "${open}" and "${close}" are missing`);
  return [...rows.slice(0, a + 1), ...lines, ...rows.slice(b)].join('\n');
}

const BLOCKS = [
  {
    file: 'index.html', open: '<!-- modulepreload: begin -->', close: '<!-- modulepreload: end -->',
    lines(text, without) {
      const scripts = [...without.matchAll(/<script type="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
      return closure(scripts.map((s) => resolve(WEB, s))).filter((m) => !scripts.includes(m) && !NOT_PRELOADED.has(m))
        .map((m) => `  <link rel="modulepreload" href="${m}">`);
    },
  },
  {
    file: 'js/worker/worker.js', open: '// imports: begin', close: '// imports: end',
    lines(text, without) {
      const entry = resolve(WEB, 'js/worker/worker.js');
      const own = new Set(jsImports(without, { dynamic: false }).filter((s) => s.startsWith('.'))
        .map((s) => webPath(resolve(dirname(entry), s))));
      const graph = closure([entry]).filter((m) => m !== 'js/worker/worker.js' && !own.has(m));
      return graph.map((m) => `import '${relative(dirname(entry), resolve(WEB, m)).split('\\').join('/').replace(/^(?!\.)/, './')}';`);
    },
  },
];

// Each block as the build writes it: [{ file, text (now), wanted }]. The lists are computed from the file with
// its block emptied, so what the block held before does not count.
export function moduleLists() {
  return BLOCKS.map((b) => {
    const text = readFileSync(resolve(WEB, b.file), 'utf8');
    const without = between(text, b.open, b.close, [], b.file);
    return { file: `web/${b.file}`, text, wanted: between(text, b.open, b.close, b.lines(text, without), b.file) };
  });
}

export function writeModuleLists() {
  for (const { file, text, wanted } of moduleLists()) if (text !== wanted) writeFileSync(resolve(WEB, '..', file), wanted);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = moduleLists().filter((b) => b.text !== b.wanted).map((b) => b.file);
    if (stale.length) console.log(`stale: ${stale.join(', ')} (run node .scripts/module-lists.mjs)`);
    process.exit(stale.length ? 1 : 0);
  }
  writeModuleLists();
}
