// Builds lookback: the native tree (tests, tools) and the WebAssembly module, then copies the npm front-end
// dependencies (KaTeX, highlight.js) into web/vendor, the core's attention source (shown by the chapter's code
// walk) into web/build/source and the bundled models (shared/models) into web/models, draws the docs' figures with
// the command line (web/docs/figures/) and renders the docs into pages (web/docs/*.html), so the served folder web/
// is self-contained; first it writes the page's preloads and the worker's import list (module-lists.mjs). `--web`
// skips the native tree; `--native` builds only it.
// Not an installer (.scripts/setup.sh is) and not a test runner (.scripts/test.mjs is).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeModuleLists } from './module-lists.mjs';
import { writeWidgetContent } from './widget-content.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const webOnly = process.argv.includes('--web');
const nativeOnly = process.argv.includes('--native');
const jobs = process.env.LOOKBACK_JOBS || '2';
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };  // emcc -O1+ needs acorn from Debian's node path

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`build: ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

// The models the chapter bundles (shared/models/<name>/) travel inside the served folder.
function copyModels() {
  const dest = `${root}web/models`;
  rmSync(dest, { recursive: true, force: true });
  if (existsSync(`${root}shared/models`)) cpSync(`${root}shared/models`, dest, { recursive: true });
}

function copyVendor() {
  const katex = `${root}node_modules/katex/dist`;
  const dest = `${root}web/vendor/katex`;
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(`${dest}/fonts`, { recursive: true });
  cpSync(`${katex}/katex.mjs`, `${dest}/katex.mjs`);
  cpSync(`${katex}/katex.min.css`, `${dest}/katex.min.css`);
  cpSync(`${katex}/fonts`, `${dest}/fonts`, { recursive: true, filter: (p) => !/\.(ttf|woff)$/.test(p) });
}

// highlight.js: its core is CommonJS without imports, so it is wrapped as an ES module unchanged; the C++ and
// Python grammars (the code walk's C++, the chapter's listings) ship as ES modules already.
function copyHighlighter() {
  const hl = `${root}node_modules/highlight.js`;
  const dest = `${root}web/vendor/highlight`;
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const core = readFileSync(`${hl}/lib/core.js`, 'utf8');
  writeFileSync(`${dest}/core.js`, `// highlight.js ${JSON.parse(readFileSync(`${hl}/package.json`, 'utf8')).version} lib/core.js `
    + `(BSD-3-Clause, see LICENSE), wrapped as an ES module by .scripts/build.mjs.\nconst module = { exports: {} };\n${core}\n`
    + 'export default module.exports;\n');
  for (const language of ['cpp', 'python']) cpSync(`${hl}/es/languages/${language}.js`, `${dest}/${language}.js`);
  cpSync(`${hl}/LICENSE`, `${dest}/LICENSE`);
}

// The sources the code walk shows, copied whole (the widget cuts out the functions it shows), so the page
// always shows the source this build was made from.
const SHOWN_SOURCES = ['wasm/src/kernels/reference.cpp', 'wasm/src/kernels/attention.cpp'];
function copyShownSources() {
  rmSync(`${root}web/build/source`, { recursive: true, force: true });
  for (const file of SHOWN_SOURCES) {
    mkdirSync(`${root}web/build/source/${file.replace(/[^/]+$/, '')}`, { recursive: true });
    cpSync(`${root}${file}`, `${root}web/build/source/${file}`);
  }
}

// The threaded module's two loaders (ES for pages, CommonJS for Node in build/node/) share one .wasm: the Node
// loader is given build/lookback-core-mt.wasm's bytes, so its own copy is checked to be the same and removed.
function shareThreadedWasm() {
  const web = `${root}web/build/lookback-core-mt.wasm`, node = `${root}web/build/node/lookback-core-mt.wasm`;
  if (!existsSync(node)) return;
  if (!readFileSync(web).equals(readFileSync(node))) {
    console.error('build: the threaded module\'s two builds made different .wasm files; the Node loader cannot share the page\'s');
    process.exit(1);
  }
  rmSync(node);
}

writeWidgetContent();   // before the module lists: the widgets import the content modules
writeModuleLists();
if (!webOnly) {
  run('cmake', ['-S', '.', '-B', '.build/native', '-DCMAKE_BUILD_TYPE=Release', '--log-level=WARNING']);
  run('cmake', ['--build', '.build/native', '-j', jobs]);
}
if (!nativeOnly) {
  run('emcmake', ['cmake', '-S', '.', '-B', '.build/wasm', '-DCMAKE_BUILD_TYPE=Release', '--log-level=WARNING']);
  const modules = ['lookback_module', 'lookback_module_mt', 'lookback_module_mt_node', 'lookback_train_module'];
  run('cmake', ['--build', '.build/wasm', '-j', jobs, ...(webOnly ? modules.flatMap((m) => ['--target', m]) : [])]);
  shareThreadedWasm();
  copyVendor();
  copyHighlighter();
  copyShownSources();
  copyModels();
  run('node', ['.scripts/custom-elements.mjs']);
  run('node', ['.scripts/docs-figures.mjs']);
  run('node', ['.scripts/docs-site.mjs']);
}
console.log(`build: done (${webOnly ? 'web module' : nativeOnly ? 'native' : 'native + wasm'})`);
