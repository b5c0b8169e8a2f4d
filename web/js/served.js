// Where the served web/ folder is, for the page's side of lookback: the worker's script, the bundled models'
// card.json and the code walk's source are all fetched under one base, so that configure({ baseUrl }) moves
// every one of them together (a bundled page, whose bundle no longer sits beside web/). By default the base is
// the folder above this file. Not the API's own base: loadLookback({ baseUrl }) takes its own (web/js/api).
const HERE = import.meta.url;   // kept as a value: bundlers rewrite only new URL('literal', import.meta.url)
let base = new URL('../', HERE);

// The URL of a file of web/ ('js/worker/worker.js', 'models/sprout/card.json').
export function servedUrl(path) {
  return new URL(path, base);
}

// Sets the base from a baseUrl as configure() takes it: absolute, or relative to the document.
export function setServedBase(baseUrl) {
  const url = new URL(String(baseUrl), globalThis.document?.baseURI ?? globalThis.location?.href);
  base = url.href.endsWith('/') ? url : new URL(`${url.href}/`);
  return base;
}
