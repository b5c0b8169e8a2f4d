// The module lists the build writes (.scripts/module-lists.mjs): the chapter page's preloads (web/index.html) and
// the worker's import block (web/js/worker/worker.js) are exactly what the build writes from the modules the page
// and the worker import, so a hand edit, or a module added without a build, fails here. A module missing from a
// list would be fetched only once its importer had been parsed, late, on the way to the first widget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleLists } from '../../.scripts/module-lists.mjs';

const lists = moduleLists();

test('index.html preloads what the build writes: every module its scripts import, KaTeX aside', () => {
  const page = lists.find((b) => b.file === 'web/index.html');
  const preloads = [...page.wanted.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  assert.ok(preloads.length > 20 && preloads.includes('js/widgets/shuffle.js'), `the closure was found (${preloads.length} modules)`);
  assert.ok(!preloads.some((m) => m.includes('katex')), 'KaTeX is left to main.js');
  assert.equal(new Set(preloads).size, preloads.length, 'no module is preloaded twice');
  assert.equal(page.text, page.wanted, 'web/index.html\'s preloads differ from what the build writes (node .scripts/module-lists.mjs)');
});

test('the worker imports what the build writes: every module of its graph, so it is fetched in one wave', () => {
  const worker = lists.find((b) => b.file === 'web/js/worker/worker.js');
  const imports = [...worker.wanted.matchAll(/^import '([^']+)';$/gm)].map((m) => m[1]);
  assert.ok(imports.length > 8 && imports.includes('../api/model.js'), `the worker's graph was found (${imports.length} modules)`);
  assert.equal(worker.text, worker.wanted, 'web/js/worker/worker.js\'s import block differs from what the build writes (node .scripts/module-lists.mjs)');
});
