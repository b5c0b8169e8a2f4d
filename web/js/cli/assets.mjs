// `lookback assets <dir> [--models sprout,window]`: copies the parts of web/ that a page using lookback fetches
// (lookback.js and the widgets' and worker's modules for the script tag, the WebAssembly core in build/ with the
// code walk's source, vendored highlight.js, the chosen bundled models) into a folder of the user's app, and
// prints what it copied and the baseUrl to give configure() and loadLookback(). Not copied: what only Node or
// the chapter use (the command line, build/node/, type declarations, KaTeX, the chapter's pages and styles).
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const WEB = fileURLToPath(new URL('../../', import.meta.url));

export const ASSETS_HELP = `lookback assets: copy the files a page using lookback fetches into a folder of your app

usage: lookback assets <dir> [--models sprout,window]

  --models M       the bundled models to copy, by name, comma-separated (default: sprout,window);
                   "none" for the widgets that need no model
  -h, --help       this help

Copies lookback.js, js/ (without the command line), build/ (the WebAssembly core, without Node's loader),
vendor/highlight/ and models/<name>/ for each model. Serve <dir> at a URL of your site and give that URL as
baseUrl: configure({ baseUrl }) from 'lookback/widgets' and loadLookback({ baseUrl }) from 'lookback'.`;

// What is served from web/, relative to it: a part is copied whole except for the files `skip` matches.
const SKIP = /(^|\/)(cli|node)(\/|$)|\.d\.ts$/;
const PARTS = ['lookback.js', 'js', 'build', 'vendor/highlight'];

function bundledModels() {
  const dir = join(WEB, 'models');
  return existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'config.json'))) : [];
}

function sizeOf(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return { files: 1, bytes: s.size };
  return readdirSync(path).map((n) => sizeOf(join(path, n))).reduce((a, b) => ({ files: a.files + b.files, bytes: a.bytes + b.bytes }), { files: 0, bytes: 0 });
}

// The URL path at which <dir> is likely served: below a public/ or static/ folder (Vite, Rollup and webpack
// set-ups copy those to the site's root), else the folder's own name at the root.
export function guessBaseUrl(dir) {
  const parts = resolve(dir).split(sep);
  const at = Math.max(parts.lastIndexOf('public'), parts.lastIndexOf('static'));
  const tail = at >= 0 ? parts.slice(at + 1) : [basename(resolve(dir))];
  return `/${tail.filter(Boolean).map(encodeURIComponent).join('/')}${tail.length ? '/' : ''}`;
}

export class AssetsUsageError extends Error {}

// Copies the parts and returns [{ part, files, bytes }] and the baseUrl to print.
export function copyAssets(dir, { models = ['sprout', 'window'] } = {}) {
  const known = bundledModels();
  const unknown = models.filter((m) => !known.includes(m));
  if (unknown.length) throw new AssetsUsageError(`no bundled model named ${unknown.join(', ')} (bundled: ${known.join(', ') || 'none: run `npm run build`'})`);
  if (!existsSync(join(WEB, 'build'))) throw new Error(`${join(WEB, 'build')} is missing (the WebAssembly core): run \`npm run build\`, or reinstall the package`);
  const dest = resolve(dir);
  mkdirSync(dest, { recursive: true });
  const copied = [];
  for (const part of [...PARTS, ...models.map((m) => `models/${m}`)]) {
    const from = join(WEB, part);
    if (!existsSync(from)) continue;
    cpSync(from, join(dest, part), { recursive: true, filter: (p) => !SKIP.test(relative(WEB, p).split(sep).join('/')) });
    copied.push({ part, ...sizeOf(join(dest, part)) });
  }
  return { copied, baseUrl: guessBaseUrl(dest) };
}

export function assetsCommand(args, print) {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true,
      options: { models: { type: 'string', default: 'sprout,window' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    throw new AssetsUsageError(`${e.message.split('\n')[0]} (see lookback assets --help)`);
  }
  if (parsed.values.help) return print(ASSETS_HELP);
  if (parsed.positionals.length !== 1) throw new AssetsUsageError('assets takes one folder: lookback assets <dir> (see lookback assets --help)');
  const list = parsed.values.models.split(',').map((s) => s.trim()).filter(Boolean);
  const models = list.length === 1 && list[0] === 'none' ? [] : list;
  const dir = parsed.positionals[0];
  const { copied, baseUrl } = copyAssets(dir, { models });
  const mb = (b) => `${(b / 1e6).toFixed(2)} MB`;
  for (const c of copied) print(`copied ${c.part.padEnd(18)} ${String(c.files).padStart(4)} files  ${mb(c.bytes).padStart(9)}`);
  const total = copied.reduce((a, c) => a + c.bytes, 0);
  print(`into ${resolve(dir)} (${mb(total)})`);
  print(`baseUrl: '${baseUrl}' if that folder is served at ${baseUrl}; in your page:`);
  print(`  configure({ baseUrl: '${baseUrl}' });              // from 'lookback/widgets'`);
  print(`  const lb = await loadLookback({ baseUrl: '${baseUrl}' });  // from 'lookback'`);
}
