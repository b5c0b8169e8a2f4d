// The module specifiers a JS file names, read from its text (comments removed): for the checks of the source's
// layers (tests/js/layering.test.mjs) and for the module lists the build writes (module-lists.mjs). Not a JavaScript
// parser.

// Every module specifier a JS file names: import/export ... from '...', import '...', and import('...') unless
// dynamic is false (the static imports only: what loads with the file).
export function jsImports(text, { dynamic = true } = {}) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found = [];
  for (const re of [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g, /\bimport\s*(['"])([^'"]+)\1/g,
    ...(dynamic ? [/\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g] : [])]) {
    for (const m of code.matchAll(re)) found.push(m[2]);
  }
  return found;
}
