// The list of widgets, read from its one source: web/js/widgets/all.js imports each widget module, and each of
// those calls define('lookback-…', Class). The manifest (custom-elements.mjs), the browser tests' list of tags
// and the checks of embed.html all derive from this. Not a JavaScript parser: import lines and define() calls.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const WIDGETS = 'web/js/widgets';

// The elements a widget module defines, in source order: [{ tag: 'lookback-window', cls: 'WindowWidget' }].
export function definitionsIn(source) {
  return [...source.matchAll(/\bdefine\(\s*'(lookback-[a-z0-9-]+)'\s*,\s*([A-Za-z_$][\w$]*)\s*\)/g)]
    .map((m) => ({ tag: m[1], cls: m[2] }));
}

// The tags a widget module defines, in source order.
export function tagsDefinedIn(source) {
  return definitionsIn(source).map((d) => d.tag);
}

// [{ file: 'window.js', tag: 'lookback-window' }, ...] in the order all.js imports them.
export function widgetList() {
  const all = readFileSync(`${root}${WIDGETS}/all.js`, 'utf8');
  const files = [...all.matchAll(/^import\s+'\.\/([\w.-]+\.js)';/gm)].map((m) => m[1]);
  return files.flatMap((file) => tagsDefinedIn(readFileSync(`${root}${WIDGETS}/${file}`, 'utf8')).map((tag) => ({ file, tag })));
}
