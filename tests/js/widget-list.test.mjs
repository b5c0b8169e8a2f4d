// The widget list has one source, web/js/widgets/all.js: every module in web/js/widgets that defines an element
// is in it, the embed page shows each listed element, and both entry points (web/lookback.js, the chapter) load
// the list rather than keeping their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WIDGETS, tagsDefinedIn, widgetList } from '../../.scripts/widget-list.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (p) => readFileSync(`${root}${p}`, 'utf8');

test('every module that defines a widget is in all.js, once', () => {
  const defining = readdirSync(`${root}${WIDGETS}`).filter((f) => f.endsWith('.js'))
    .filter((f) => tagsDefinedIn(read(`${WIDGETS}/${f}`)).length > 0).sort();
  const listed = widgetList().map((w) => w.file);
  assert.deepEqual([...new Set(listed)].sort(), defining);
  assert.equal(new Set(listed).size, listed.length);
  assert.ok(listed.length >= 16);
});

test('the embed page shows every listed widget', () => {
  const embed = read('web/embed.html');
  assert.deepEqual(widgetList().filter((w) => !embed.includes(`<${w.tag}`)).map((w) => w.tag), []);
});

test('web/lookback.js and the chapter load the list, not a copy of it', () => {
  for (const entry of ['web/lookback.js', 'web/js/chapter/main.js']) {
    const source = read(entry);
    assert.match(source, /import '\.\/js\/widgets\/all\.js';|import '\.\.\/widgets\/all\.js';/, entry);
    assert.deepEqual(widgetList().filter((w) => source.includes(`/${w.file}'`)).map((w) => w.file), [], `${entry} names widget modules itself`);
  }
});

test('the manifest lists exactly the listed widgets', () => {
  const manifest = JSON.parse(read('custom-elements.json'));
  const tags = manifest.modules.flatMap((m) => m.declarations.map((d) => d.tagName)).sort();
  assert.deepEqual(tags, widgetList().map((w) => w.tag).sort());
});

test('every event a widget emits is in its JSDoc @fires lines, and so in the manifest; none is listed that it does not emit', () => {
  const manifest = JSON.parse(read('custom-elements.json'));
  const SHARED = ['lookback-ready', 'lookback-export', 'lookback-compute'];
  for (const mod of manifest.modules) {
    const source = read(mod.path);
    for (const d of mod.declarations) {
      const emitted = [...new Set([...source.matchAll(/\bemit\(\s*'(lookback-[a-z-]+)'/g)].map((m) => m[1]))].sort();
      const listed = d.events.map((e) => e.name).filter((n) => !SHARED.includes(n)).sort();
      assert.deepEqual(listed, emitted, `${d.tagName}: @fires lines against this.emit calls`);
      assert.ok(d.events.every((e) => e.description), `${d.tagName}: every event described`);
    }
  }
});
