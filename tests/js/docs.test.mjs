// The documentation holds: README stays a short first read with nothing dated, every link of README.md and
// web/docs/*.md resolves (files and #anchors, as a git host renders them), and every command of README's quick
// starts runs: each js block as a Node script importing the package, each `npx lookback` line through the CLI.
// Not a check of the prose itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slug } from '../../.scripts/docs-site.mjs';
import { commandArgs, docPages, drawFigure, FIGURES, pageFigures, README } from '../../.scripts/docs-figures.mjs';
import { LATEST as BENCH_JSON, SVG as BENCH_SVG } from '../../.scripts/bench-report.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docsDir = join(root, 'web/docs');
const pages = [join(root, 'README.md'), ...readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => join(docsDir, f))];
const readme = readFileSync(join(root, 'README.md'), 'utf8');


function anchors(markdown) {
  const out = new Set();
  for (const m of stripCode(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) out.add(slug(m[1]));
  return out;
}

function stripCode(markdown) {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

// [text](target) links outside code.
function links(markdown) {
  const out = [];
  for (const m of stripCode(markdown).replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]);
  return out;
}

test('README is a first read: at most 350 lines, nothing dated', () => {
  const lines = readme.split('\n').length;
  assert.ok(lines <= 350, `README.md has ${lines} lines`);
  const dated = readme.match(/\b20\d\d-\d\d-\d\d\b|\b\d\d:\d\d UTC\b/);
  assert.equal(dated, null, `README.md holds a date: ${dated?.[0]}`);
});

// A file the docs name in code spans (`tests/js/x.test.mjs`) exists, so a table of tests cannot name a test that
// was renamed or deleted. NAME stands for any name; `npm run bench` writes its record and plot.
test('every repository file the docs name in code spans exists', () => {
  const written = new Set([BENCH_JSON, BENCH_SVG].map((p) => relative(root, p)));
  const missing = [];
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    for (const [, path] of text.matchAll(/`((?:tests|wasm|web|shared|\.scripts)\/[A-Za-z0-9_./-]+\.[a-z]+)`/g)) {
      if (path.includes('NAME') || written.has(path)) continue;
      if (!existsSync(join(root, path))) missing.push(`${relative(root, page)}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every page the README promises exists', () => {
  for (const page of ['api', 'embedding', 'models', 'cli', 'architecture', 'benchmarks', 'reliability'])
    assert.ok(existsSync(join(docsDir, `${page}.md`)), `web/docs/${page}.md`);
});

test('every link of README.md and web/docs/*.md resolves, anchors included', () => {
  const bad = [];
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    for (const link of links(text)) {
      if (/^[a-z]+:/i.test(link)) {
        bad.push(`${relative(root, page)}: ${link} (the docs link only inside the project)`);
        continue;
      }
      const [path, hash] = link.split('#');
      const target = path ? resolve(dirname(page), decodeURIComponent(path)) : page;
      if (!target.startsWith(root) || !existsSync(target)) {
        bad.push(`${relative(root, page)}: ${link} (no such file)`);
        continue;
      }
      if (hash !== undefined) {
        if (!statSync(target).isFile() || !target.endsWith('.md')) bad.push(`${relative(root, page)}: ${link} (an anchor into a non-markdown file)`);
        else if (!anchors(readFileSync(target, 'utf8')).has(hash)) bad.push(`${relative(root, page)}: ${link} (no heading #${hash})`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test('the links check itself finds a broken link and a broken anchor', () => {
  assert.deepEqual(links('see [a](web/docs/api.md#threads) and `[b](x.md)`\n```\n[c](y.md)\n```\n'), ['web/docs/api.md#threads']);
  assert.equal(slug("Models in the page, and the reader's own"), 'models-in-the-page-and-the-readers-own');
  assert.equal(slug('Weight formats, progress, long texts'), 'weight-formats-progress-long-texts');
  assert.ok(!anchors('# A\n## B c\n').has('b'));
});

// The quick starts' code blocks, in README order.
function blocks(lang) {
  return [...readme.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]);
}

test('every js block of the README runs as a Node script importing the package', { timeout: 120_000 }, () => {
  const js = blocks('js').filter((b) => /from 'lookback'/.test(b) && !/lookback\/widgets/.test(b));
  assert.ok(js.length >= 2, 'README has the script writer\'s blocks');
  // Inside the package folder, so that `import 'lookback'` resolves to this checkout as it does after an install.
  const dir = join(root, '.build/docs-quickstart');
  mkdirSync(dir, { recursive: true });
  try {
    for (const [i, code] of js.entries()) {
      const file = join(dir, `block-${i}.mjs`);
      writeFileSync(file, code);
      const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 100_000 });
      assert.ok(out.trim().length > 0, `block ${i} printed nothing`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every npx lookback and npm command in the README\'s sh blocks exists and runs', { timeout: 120_000 }, () => {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
  const lines = blocks('sh').flatMap((b) => b.split('\n')).map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  let ran = 0;
  for (const line of lines) {
    const npm = line.match(/^npm (?:run )?([a-z-]+)$/) ?? line.match(/^npm run ([a-z-]+)/);
    if (npm) {
      assert.ok(npm[1] === 'test' || npm[1] === 'start' || scripts[npm[1]], `package.json has the script of: ${line}`);
      continue;
    }
    const npx = line.match(/^npx lookback (.*)$/);
    assert.ok(npx, `a README command the test does not know how to run: ${line}`);
    const args = commandArgs(npx[1]);
    // in a folder of its own, as a reader's app: `lookback assets` writes where it is told
    const cwd = mkdtempSync(join(tmpdir(), 'lookback-readme-'));
    let out, figure = null;
    try {
      out = execFileSync(process.execPath, [join(root, 'web/js/cli/lookback.mjs'), ...args], { cwd, encoding: 'utf8', timeout: 100_000 });
      const svg = args.indexOf('--svg');
      if (svg >= 0) figure = readFileSync(join(cwd, args[svg + 1]), 'utf8');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    if (figure) assert.match(figure, /^<svg /, `${line} wrote a figure`);
    else assert.ok(out.trim().length > 0, `${line} printed nothing`);
    ran += 1;
  }
  assert.ok(ran >= 1, 'README shows the command line');
});

test('the script writer\'s quick start ends with a figure made by one command, and README shows what it draws today', { timeout: 120_000 }, () => {
  const quick = readme.slice(readme.indexOf('## Quick start: the core from Node'));
  const sh = [...quick.slice(0, quick.indexOf('\n## ', 5)).matchAll(/^```sh\n([\s\S]*?)^```/gm)].at(-1)[1];
  const last = commandArgs(sh.trim().split('\n').at(-1).replace(/\s+#.*$/, '').replace(/^npx lookback /, ''));
  assert.ok(last.includes('--svg'), 'the last command of the quick start writes a figure');
  const shown = pageFigures(README).filter((f) => f.committed);
  assert.ok(shown.some((f) => f.args.join(' ') === last.join(' ')), 'README shows the figure of the quick start\'s last command');
  const dir = mkdtempSync(join(tmpdir(), 'lookback-readme-figure-'));
  try {
    for (const f of shown) {
      const now = readFileSync(drawFigure(f.args, join(dir, 'figure.svg')), 'utf8');
      assert.ok(now === readFileSync(f.image, 'utf8'),
        `${relative(root, f.image)} is not what \`npx lookback ${f.args.join(' ')}\` draws today: run node .scripts/docs-figures.mjs --readme`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every figure of the docs is drawn by the command on its page, and the build wrote each', () => {
  const figures = docPages().flatMap((p) => pageFigures(p));
  const generated = figures.filter((f) => !f.committed);
  assert.ok(generated.length >= 5, 'the command-line page shows its figures');
  for (const f of generated) {
    const svg = readFileSync(f.image, 'utf8');
    assert.match(svg, /^<svg [^>]*role="img"[\s\S]*<title>[^<]+<\/title><desc>/, `${relative(root, f.image)} is a titled SVG`);
    assert.ok((svg.match(/class="lb-cell"/g) ?? []).length > 0, `${relative(root, f.image)} draws its numbers`);
  }
  assert.deepEqual(readdirSync(FIGURES).sort(), [...new Set(generated.map((f) => f.image.slice(FIGURES.length + 1)))].sort(),
    'web/docs/figures/ holds exactly the figures the pages show');
  // an image without the command that draws it is refused, naming both
  assert.throws(() => pageFigures(join(docsDir, 'x.md'), '![a](figures/a.svg)\n```sh\nnpx lookback attend "b" --svg b.svg\n```\n'),
    /x\.md shows figures\/a\.svg but has no `npx lookback … --svg a\.svg` line/);
  assert.equal(pageFigures(join(docsDir, 'x.md'), '```sh\nnpx lookback flow "a b" --svg a.svg\n```\n![a](figures/a.svg)\n')[0].args.join(' '), 'flow a b --svg a.svg');
});

test('every widget attribute is described in its JSDoc, and embedding.md holds the table generated from them', async () => {
  const { manifest, embeddingWithTable, EMBEDDING } = await import('../../.scripts/custom-elements.mjs');
  const m = manifest();
  const undocumented = m.modules.flatMap((mod) => mod.declarations.flatMap((d) =>
    d.attributes.filter((a) => !a.description).map((a) => `${d.tagName} ${a.name} (${mod.path})`)));
  assert.deepEqual(undocumented, [], 'each observed attribute has an `@attr name - text` line above its class');
  const text = readFileSync(EMBEDDING, 'utf8');
  assert.equal(text, embeddingWithTable(text, m), 'web/docs/embedding.md is what `node .scripts/custom-elements.mjs` writes');
});

test('web/docs/reliability.md\'s sanitizer and fuzz results are what `node .scripts/sanitize.mjs --report` writes from its JSON', async () => {
  const { DOC, RESULTS, docWithResults } = await import('../../.scripts/sanitize.mjs');
  const res = JSON.parse(readFileSync(RESULTS, 'utf8'));
  assert.ok(res.fuzz && res.fuzz.cases.length >= 10, 'the JSON holds a fuzz run');
  const text = readFileSync(DOC, 'utf8');
  assert.equal(text, docWithResults(text, res));
});
