// The npm package as a user gets it: `npm pack` (prepack included) gives a tarball with the built web/ parts,
// types, bin, README, LICENSE and CHANGELOG and no C++ source, test or script; installed offline into a
// temporary folder outside the repository, it runs a consumer script (attention, loadModel('sprout'), next,
// error codes), `npx lookback`, and a TypeScript check of a consumer file against the shipped types; with its
// .wasm gone, the error says to reinstall. Not the API's own tests (api.test.mjs, model.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
let dir;
let packed;

function sh(cmd, args, cwd, { ok = true } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (ok) assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'lookback-consumer-'));
  const out = sh('npm', ['pack', '--json', '--pack-destination', dir], root).stdout;
  [packed] = JSON.parse(out.slice(out.indexOf('[')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${packed.filename}`], dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the tarball holds what users need and no sources, tests or scripts', () => {
  const files = packed.files.map((f) => f.path);
  for (const need of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'custom-elements.json',
    'web/build/lookback-core.mjs', 'web/build/lookback-core.wasm', 'web/build/lookback-train.mjs', 'web/build/lookback-train.wasm',
    'web/build/lookback-core-mt.mjs', 'web/build/lookback-core-mt.wasm', 'web/build/lookback-core-mt.worker.js',
    'web/build/node/lookback-core-mt.js', 'web/build/node/lookback-core-mt.worker.js', 'web/build/node/package.json',
    'web/vendor/katex/katex.mjs', 'web/lookback.js', 'web/lookback.d.ts',
    'web/models/sprout/model.safetensors', 'web/models/sprout/card.json', 'web/js/api/index.d.ts',
    'web/js/api/node.js', 'web/js/worker/worker.js', 'web/js/worker/remote-model.js', 'web/js/cli/lookback.mjs',
    'web/index.html', 'web/embed.html', 'web/docs/api.md', 'web/docs/embedding.md']) {
    assert.ok(files.includes(need), `${need} is in the tarball`);
  }
  // The one C++ a user gets: the two files the chapter's code walk shows, as page assets under web/build/source/
  // (the widget fetches them); no other source, test or script.
  const shown = ['web/build/source/wasm/src/kernels/reference.cpp', 'web/build/source/wasm/src/kernels/attention.cpp'];
  for (const need of shown) assert.ok(files.includes(need), `${need} (shown by the code walk) is in the tarball`);
  const unwanted = files.filter((f) => !shown.includes(f)).filter((f) => /\.(cpp|hpp|h|cc|ts)$/.test(f) && !f.endsWith('.d.ts')
    || /^(tests|wasm|shared|\.scripts|\.ci|\.build|node_modules)\//.test(f) || /\.test\.mjs$/.test(f) || f === 'CMakeLists.txt');
  assert.deepEqual(unwanted, []);
  console.log(`# tarball ${packed.filename}: ${packed.files.length} files, ${(packed.size / 1e6).toFixed(2)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked`);
});

test('a consumer script runs attention, a bundled model and coded errors from the installed package', () => {
  writeFileSync(join(dir, 'consumer.mjs'), `
    import { loadLookback } from 'lookback';
    import { createRequire } from 'node:module';
    const pkg = createRequire(import.meta.url)('lookback/package.json');
    const lb = await loadLookback();
    // one query, two keys, d = 2: weights are the softmax of the scaled scores
    const q = [1, 0], k = [1, 0, 0, 1], v = [10, 0, 0, 10];
    const { output, weights } = lb.attention(q, k, v, { T: 1, S: 2, d: 2 });
    const m = await lb.loadModel('sprout');
    const top = m.next('Once upon a time', { topK: 3 });
    const g = m.generate('Once upon a time', { maxTokens: 5, temperature: 0 });
    let missing;
    try { await lb.loadModel('./no-such-model/'); } catch (e) { missing = e.code; }
    console.log(JSON.stringify({ version: pkg.version, resolved: import.meta.resolve('lookback'), weights: [...weights],
      output: [...output], top, generated: g.ids.length, missing, layers: m.info.config.n_layers }));
  `);
  const r = JSON.parse(sh('node', ['consumer.mjs'], dir).stdout);
  assert.equal(r.version, version);
  assert.ok(r.resolved.startsWith(`file://${dir}/node_modules/lookback/`), `resolved inside the consumer: ${r.resolved}`);
  const e = Math.exp(1 / Math.sqrt(2));
  assert.ok(Math.abs(r.weights[0] - e / (e + 1)) < 1e-5 && Math.abs(r.output[0] - 10 * e / (e + 1)) < 1e-4, JSON.stringify(r));
  assert.equal(r.top.length, 3);
  assert.ok(r.top[0].p >= r.top[1].p && r.top[0].p > 0 && typeof r.top[0].token === 'string');
  assert.ok(r.generated >= 1);
  assert.equal(r.missing, 'LOOKBACK_NOT_FOUND');
  assert.ok(r.layers > 0);
});

test('npx lookback runs the installed command line', () => {
  assert.equal(sh('npx', ['--no-install', 'lookback', '--version'], dir).stdout.trim(), version);
  const top = JSON.parse(sh('npx', ['--no-install', 'lookback', 'next', 'Once upon a time', '--top', '3', '--json'], dir).stdout);
  assert.equal(top.length, 3);
  assert.ok(top.every((t) => t.p > 0 && t.p <= 1));
});

test('a consumer TypeScript file type-checks against the shipped declarations', () => {
  const file = join(dir, 'consumer.ts');
  writeFileSync(file, `
    import { loadLookback, type Lookback, type LookbackError } from 'lookback';
    import { configure } from 'lookback/widgets';
    import { ComputeClient } from 'lookback/client';
    import { loadRemoteModel } from 'lookback/remote-model';
    async function page(): Promise<string> {
      configure({ baseUrl: '/lookback/' });
      const remote = await loadRemoteModel(new ComputeClient('/lookback/js/worker/worker.js'), 'sprout', { onProgress: (p) => p.loaded });
      const g = await remote.keyed('k').generate('Once', { onToken: (t) => t.text, signal: new AbortController().signal });
      // @ts-expect-error: a remote call returns a promise
      const n: number = remote.next('Once')[0].p;
      return g.text + n;
    }
    async function main(): Promise<number> {
      const lb: Lookback = await loadLookback({ baseUrl: new URL('./', import.meta.url) });
      const a = lb.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), { T: 1, d: 4 });
      const ac = new AbortController();
      const m = await lb.loadModel('sprout', { signal: ac.signal, onProgress: ({ loaded, total }) => loaded + (total ?? 0) });
      let n = 0;
      for await (const t of m.stream('Once', { maxTokens: 2 })) n += t.id + t.text.length;
      try { await lb.loadModel('x'); } catch (e) { n += (e as LookbackError).code.length; }
      // @ts-expect-error: d is required
      lb.attention(a.output, a.output, a.output, { T: 1 });
      return n + a.output.length;
    }
    main();
    page();
  `);
  const program = ts.createProgram([file], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.asynciterable.d.ts'], types: [],
  });
  const diags = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(diags, []);
  const declared = program.getSourceFiles().map((f) => f.fileName).find((f) => f.endsWith('index.d.ts'));
  assert.ok(declared.startsWith(join(dir, 'node_modules/lookback/')), `types from the installed package: ${declared}`);
});

test('without its .wasm, the installed package says to reinstall, once prefixed', () => {
  const wasm = join(dir, 'node_modules/lookback/web/build/lookback-core.wasm');
  const threaded = join(dir, 'node_modules/lookback/web/build/lookback-core-mt.wasm');
  renameSync(wasm, `${wasm}.gone`);
  renameSync(threaded, `${threaded}.gone`);
  try {
    const r = sh('npx', ['--no-install', 'lookback', 'next', 'Once'], dir, { ok: false });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^lookback: (?!lookback:).*reinstall it \(npm install lookback\)/);
    writeFileSync(join(dir, 'code.mjs'), "import { loadLookback } from 'lookback';\n"
      + 'loadLookback().catch((e) => console.log(e.code));\n');
    assert.equal(sh('node', ['code.mjs'], dir).stdout.trim(), 'LOOKBACK_CORE_MISSING');
  } finally {
    renameSync(`${wasm}.gone`, wasm);
    renameSync(`${threaded}.gone`, threaded);
  }
});
