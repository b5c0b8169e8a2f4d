// The one-way flow, checked on the source: kernels <- model <- bindings <- JS API <- worker <- widgets.
// JS: every import (static, dynamic, re-export) is resolved to a file and its layer; C++: every quoted
// #include. Not a style check: only which layer may reach which.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsImports } from '../../.scripts/js-imports.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir, ext) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = resolve(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (ext.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  try { if (statSync(resolve(ROOT, dir)).isDirectory()) walk(resolve(ROOT, dir)); } catch { /* absent */ }
  return out;
}
const rel = (p) => relative(ROOT, p).split('\\').join('/');

// The web/js layer of a file under web/ ('api', 'worker', 'chapter', 'widgets', 'figures', 'cli', or the file's own name).
function webLayer(path) {
  const r = rel(path);
  const m = /^web\/js\/([^/]+)\//.exec(r);
  return m ? m[1] : r;
}

function jsEdges() {
  const edges = [];
  for (const f of files('web', ['.js', '.mjs'])) {
    if (rel(f).startsWith('web/build/') || rel(f).startsWith('web/vendor/')) continue;
    for (const spec of jsImports(readFileSync(f, 'utf8'))) {
      if (!spec.startsWith('.')) continue;  // node: built-ins and packages
      edges.push({ from: rel(f), to: rel(resolve(dirname(f), spec)), spec });
    }
  }
  return edges;
}

test('the import scanner sees static, dynamic (unless told not to) and re-exported imports, not ones in comments', () => {
  const src = "import a from './a.js';\nimport './b.js';\nexport { c } from \"./c.js\";\n"
    + "const d = await import('./d.js');\n// import e from './e.js';\n/* import('./f.js') */\n"
    + "import {\n  g,\n  h,\n} from './gh.js';\n";
  assert.deepEqual(jsImports(src).sort(), ['./a.js', './b.js', './c.js', './d.js', './gh.js']);
  assert.deepEqual(jsImports(src, { dynamic: false }).sort(), ['./a.js', './b.js', './c.js', './gh.js']);
});

test('JS: widgets import neither the API nor the worker (nor the chapter controller)', () => {
  const bad = jsEdges().filter((e) => webLayer(e.from) === 'widgets' && ['api', 'worker', 'chapter'].includes(webLayer(e.to)));
  assert.deepEqual(bad, []);
});

test('JS: the API imports nothing above it; the worker nothing from widgets or the chapter', () => {
  const above = { api: ['worker', 'chapter', 'widgets', 'cli'], worker: ['chapter', 'widgets', 'cli'] };
  const bad = jsEdges().filter((e) => above[webLayer(e.from)]?.includes(webLayer(e.to)));
  assert.deepEqual(bad, []);
});

test('JS: the figures import nothing outside web/js/figures (so they run in Node and a page alike)', () => {
  const figures = jsEdges().filter((e) => webLayer(e.from) === 'figures');
  assert.ok(figures.length > 0, 'the figures module was scanned');
  assert.deepEqual(figures.filter((e) => webLayer(e.to) !== 'figures'), []);
  const bare = files('web/js/figures', ['.js']).filter((f) => jsImports(readFileSync(f, 'utf8')).some((s) => !s.startsWith('.'))).map(rel);
  assert.deepEqual(bare, [], 'no package or node: built-in either');
});

test('JS: only the API loads the WebAssembly module', () => {
  const loaders = files('web', ['.js', '.mjs'])
    .filter((f) => !/^web\/(build|vendor)\//.test(rel(f)))
    .filter((f) => /lookback-core(\.mjs|\.wasm)?\b|\.wasm['"`]/.test(readFileSync(f, 'utf8').replace(/^\s*\/\/.*$/gm, '')))
    .map(rel);
  assert.ok(loaders.length > 0, 'the API names the module somewhere');
  assert.deepEqual(loaders.filter((f) => webLayer(resolve(ROOT, f)) !== 'api'), []);
});

// Every quoted #include of every C++ file under wasm/, as { from, to } paths relative to the repository.
function cppEdges() {
  const edges = [];
  for (const f of files('wasm', ['.cpp', '.hpp', '.h'])) {
    for (const m of readFileSync(f, 'utf8').matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
      edges.push({ from: rel(f), to: m[2], system: m[1] === '<' });
    }
  }
  return edges;
}

test('C++: only the bindings include Emscripten', () => {
  const bad = cppEdges().filter((e) => /^emscripten\b/.test(e.to) && !/^wasm\/bindings[^/]*\//.test(e.from));
  assert.deepEqual(bad, []);
});

test('C++: the kernels and their headers include nothing from the model (nor its config), trainer or bindings', () => {
  // the kernels' public headers; model_config.hpp is the model's (the kernels know no model configuration)
  const low = (p) => p.startsWith('wasm/src/kernels/') || (p.startsWith('wasm/include/lookback/') && !p.endsWith('/model_config.hpp'));
  const high = (to) => /^(model|train|train_live|bindings)\//.test(to) || to === 'lookback/model_config.hpp';
  const bad = cppEdges().filter((e) => low(e.from) && !e.system && high(e.to));
  assert.deepEqual(bad, []);
});

test('C++: the kernels\' internals (wasm/src/kernels) are included by the kernels alone (the trainer uses the public headers)', () => {
  const bad = cppEdges().filter((e) => !e.system && e.to.startsWith('kernels/') && !e.from.startsWith('wasm/src/kernels/'));
  assert.deepEqual(bad, []);
  assert.ok(cppEdges().some((e) => e.from.startsWith('wasm/src/train/') && e.to === 'lookback/nn.hpp'), 'the trainer was scanned');
});

test('CMake: the core library publishes wasm/include only; wasm/src is private (lookback_internals hands it on)', () => {
  const cmake = readFileSync(`${ROOT}CMakeLists.txt`, 'utf8');
  const calls = [...cmake.matchAll(/target_include_directories\((\S+)([^)]*)\)/g)].map((m) => ({ target: m[1], args: m[2] }));
  const core = calls.filter((c) => /^lookback_core(_mt)?$/.test(c.target));
  assert.equal(core.length, 2, 'both core libraries (single- and multi-threaded) were found');
  for (const c of core) {
    // the folders after PUBLIC/INTERFACE up to the next keyword
    const shown = [...c.args.matchAll(/\b(?:PUBLIC|INTERFACE)\b([^A-Z]*)/g)].flatMap((m) => m[1].trim().split(/\s+/));
    assert.ok(shown.includes('wasm/include'), `${c.target} publishes wasm/include`);
    assert.ok(!shown.includes('wasm/src'), `${c.target} must keep wasm/src private: ${c.args.trim()}`);
  }
});

test('C++: the model includes nothing from the trainer or the bindings', () => {
  const bad = cppEdges().filter((e) => e.from.startsWith('wasm/src/model/') && !e.system && /^(train|train_live|bindings)\//.test(e.to));
  assert.deepEqual(bad, []);
});

test('C++: the shared helpers (wasm/src/base) include only the standard library and one another', () => {
  const bad = cppEdges().filter((e) => e.from.startsWith('wasm/src/base/') && !e.system && !e.to.startsWith('base/'));
  assert.deepEqual(bad, []);
});

test('JS: protocol.js, which every side imports, imports nothing', () => {
  assert.deepEqual(jsImports(readFileSync(`${ROOT}web/js/protocol.js`, 'utf8')), []);
});
