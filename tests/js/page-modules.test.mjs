// The chapter page's module preloads (web/index.html) against the modules its scripts import: every module
// reached by static imports from the page's module scripts is preloaded, but KaTeX (left out on purpose: large,
// and needed only by the last script), and nothing else is. A module added to a widget without a preload would
// be fetched only once its importer has been parsed, late, on the way to the first widget. The same for the
// worker, which has no preloads: its entry imports every module of its graph itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsImports } from './js-imports.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const NOT_PRELOADED = new Set(['vendor/katex/katex.mjs']);

function closure(entries) {
  const seen = new Set();
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of jsImports(readFileSync(file, 'utf8'), { dynamic: false })) {  // import() loads on demand
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec));
    }
  };
  entries.forEach(walk);
  return new Set([...seen].map((f) => relative(WEB, f).split('\\').join('/')));
}

test('index.html preloads every module its scripts import (not the scripts themselves), KaTeX aside, and no other', () => {
  const html = readFileSync(`${WEB}index.html`, 'utf8');
  const scripts = [...html.matchAll(/<script type="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
  const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  assert.ok(scripts.length >= 2, 'the page has its module scripts');
  assert.equal(new Set(preloads).size, preloads.length, 'no module is preloaded twice');
  const wanted = [...closure(scripts.map((s) => resolve(WEB, s)))].filter((m) => !scripts.includes(m) && !NOT_PRELOADED.has(m));
  assert.ok(wanted.length > 20, `the closure was found (${wanted.length} modules)`);
  assert.deepEqual([...preloads].sort(), wanted.sort());
  for (const m of NOT_PRELOADED) assert.ok(closure(scripts.map((s) => resolve(WEB, s))).has(m), `${m} is still imported`);
});

test('the worker imports every module of its graph itself, so the graph is fetched in one wave', () => {
  const entry = resolve(WEB, 'js/worker/worker.js');
  const direct = new Set(jsImports(readFileSync(entry, 'utf8'), { dynamic: false })
    .filter((s) => s.startsWith('.')).map((s) => relative(WEB, resolve(dirname(entry), s)).split('\\').join('/')));
  const graph = [...closure([entry])].filter((m) => m !== 'js/worker/worker.js');
  assert.ok(graph.length > 10, `the worker's graph was found (${graph.length} modules)`);
  assert.deepEqual(graph.filter((m) => !direct.has(m)), [], 'modules only found a level down');
});
