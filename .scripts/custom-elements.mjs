// Writes custom-elements.json (the Custom Elements Manifest, schema 1.0.0) from the widget sources, so editors
// and documentation tools know every <lookback-*> element and attribute: each web/js/widgets/*.js file that
// calls define('lookback-…', Class) gives one element, its description from the file's header comment, its
// attributes from the class's observedAttributes, each described by an `@attr name - text` line of the JSDoc
// block just above the class, its own events from that block's `@fires name - text` lines (then the shared three);
// the modules are those web/js/widgets/all.js lists (widget-list.mjs). Also writes the attribute and event tables
// of web/docs/embedding.md (between its widget-attributes markers) from the same manifest.
// Run by the build and by prepack; a browser test checks the result against the elements the page really
// defines. Not a parser of JavaScript in general.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WIDGETS, definitionsIn, widgetList } from './widget-list.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

// The shared events every widget emits (web/js/widgets/widget-kit.js).
const EVENTS = [
  { name: 'lookback-ready', description: 'the widget has shown its first computed result' },
  { name: 'lookback-export', description: 'a PNG, JSON or CSV export is about to be saved (cancelable; detail {format, blob, filename})' },
  { name: 'lookback-compute', description: 'a request for a computation, answered by the controller that web/lookback.js installs' },
];

function header(source) {
  const lines = [];
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

// The `@TAG name - description` lines (TAG: attr, fires) of the JSDoc block that ends right above `class Cls`.
export function classDocs(source, cls, tag = 'attr') {
  const at = source.search(new RegExp(`^class ${cls}\\b`, 'm'));
  const doc = source.slice(0, at).match(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/);
  const out = new Map();
  const line = new RegExp(`@${tag === 'attr' ? 'attr(?:ibute)?' : tag}\\s+(?:\\{[^}]*\\}\\s+)?([\\w-]+)\\s+-\\s+([^\\n]*)`, 'g');
  for (const m of (doc?.[1] ?? '').matchAll(line)) out.set(m[1], m[2].trim());
  return out;
}

function moduleOf(file) {
  const source = readFileSync(`${root}${WIDGETS}/${file}`, 'utf8');
  const declarations = [];
  const exports = [];
  for (const { tag, cls } of definitionsIn(source)) {
    const body = source.slice(source.search(new RegExp(`class ${cls}\\b`)));
    const observed = body.match(/static observedAttributes\s*=\s*\[([^\]]*)\]/);
    const docs = classDocs(source, cls);
    const fires = [...classDocs(source, cls, 'fires')].map(([name, description]) => ({ name, description }));
    const attributes = observed ? [...observed[1].matchAll(/'([^']+)'/g)].map((m) => ({ name: m[1], type: { text: 'string' },
      ...(docs.has(m[1]) ? { description: docs.get(m[1]) } : {}) })) : [];
    const described = header(source).replace(new RegExp(`^<${tag}>:\\s*`), '');
    declarations.push({
      kind: 'class', name: cls, tagName: tag, customElement: true, description: described,
      superclass: { name: 'LookbackWidget', module: `${WIDGETS}/widget-kit.js` }, attributes, events: [...fires, ...EVENTS],
    });
    exports.push({ kind: 'custom-element-definition', name: tag, declaration: { name: cls, module: `${WIDGETS}/${file}` } });
  }
  return declarations.length ? { kind: 'javascript-module', path: `${WIDGETS}/${file}`, declarations, exports } : null;
}

export function manifest() {
  const files = [...new Set(widgetList().map((w) => w.file))].sort();
  const modules = files.map(moduleOf).filter(Boolean);
  return { schemaVersion: '1.0.0', readme: 'README.md', modules };
}

// The markdown table of every element and its attributes, in the order all.js lists the widgets.
export function attributeTable(m = manifest()) {
  const order = widgetList().map((w) => w.tag);
  const elements = m.modules.flatMap((mod) => mod.declarations).sort((a, b) => order.indexOf(a.tagName) - order.indexOf(b.tagName));
  const cell = (t) => t.replace(/\|/g, '\\|');
  const shared = new Set(EVENTS.map((e) => e.name));
  return ['| element | attribute | what it sets |', '|---|---|---|',
    ...elements.flatMap((e) => e.attributes.map((a, i) => `| ${i ? '' : `\`${e.tagName}\``} | \`${a.name}\` | ${cell(a.description ?? '')} |`)),
    '', `Events of each element (every element also fires ${EVENTS.map((e) => `\`${e.name}\``).join(', ')}):`, '',
    '| element | event | when |', '|---|---|---|',
    ...elements.flatMap((e) => e.events.filter((v) => !shared.has(v.name))
      .map((v, i) => `| ${i ? '' : `\`${e.tagName}\``} | \`${v.name}\` | ${cell(v.description ?? '')} |`)),
  ].join('\n');
}

export const EMBEDDING = `${root}web/docs/embedding.md`;
const MARKERS = /(<!-- widget-attributes:start -->\n)[\s\S]*?(<!-- widget-attributes:end -->)/;

// web/docs/embedding.md with its attribute table replaced by attributeTable(m).
export function embeddingWithTable(text, m = manifest()) {
  if (!MARKERS.test(text)) throw new Error('web/docs/embedding.md has no widget-attributes markers');
  return text.replace(MARKERS, (_, a, b) => `${a}${attributeTable(m)}\n${b}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = manifest();
  writeFileSync(`${root}custom-elements.json`, `${JSON.stringify(m, null, 2)}\n`);
  const docs = readFileSync(EMBEDDING, 'utf8'), table = embeddingWithTable(docs, m);
  if (table !== docs) writeFileSync(EMBEDDING, table);
  const count = m.modules.reduce((a, mod) => a + mod.declarations.length, 0);
  console.log(`custom-elements.json: ${count} elements`);
}
