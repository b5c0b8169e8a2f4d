// Runs before `npm pack` / `npm publish`: the package ships the built web/ parts (the WebAssembly loader and
// .wasm, vendored KaTeX, bundled models) and custom-elements.json, which are not in git. Builds the web module
// when it is missing and the toolchain is there, writes the manifest, and otherwise fails with what to run.
// Not a builder of its own (.scripts/build.mjs is).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { missingFigures } from './docs-figures.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const NEEDED = ['web/build/lookback-core.mjs', 'web/build/lookback-core.wasm', 'web/build/lookback-train.mjs', 'web/build/lookback-train.wasm',
  'web/build/lookback-core-mt.mjs', 'web/build/lookback-core-mt.wasm', 'web/build/lookback-core-mt.worker.js', 'web/build/node/lookback-core-mt.js',
  'web/vendor/katex/katex.mjs', 'web/models/sprout/model.safetensors'];
const missing = () => NEEDED.filter((f) => !existsSync(`${root}${f}`));

function run(cmd, args) {
  return spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status === 0;
}

if (missing().length) {
  const hasEmcc = spawnSync('emcmake', ['--version'], { stdio: 'ignore' }).status !== null;
  console.log(`prepack: ${missing().join(', ')} missing; ${hasEmcc ? 'building the web module' : 'no emcmake to build them'}`);
  if (hasEmcc) run('node', ['.scripts/build.mjs', '--web']);
}
if (missing().length) {
  console.error(`prepack: cannot pack lookback: ${missing().join(', ')} missing. Run \`npm run build\` first `
    + '(needs Emscripten; `npm run setup` installs it), then `npm pack` again.');
  process.exit(1);
}
if (!run('node', ['.scripts/widget-content.mjs'])) process.exit(1);
if (!run('node', ['.scripts/custom-elements.mjs'])) process.exit(1);
if (missingFigures().length && !run('node', ['.scripts/docs-figures.mjs'])) process.exit(1);
if (!run('node', ['.scripts/docs-site.mjs'])) process.exit(1);
