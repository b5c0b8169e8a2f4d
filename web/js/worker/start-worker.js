// Starts the module worker, also when the script that asks for it came from another origin (a CDN, an asset
// host): a page may only start workers from its own origin, so a cross-origin worker script is started
// through a same-origin blob: module that imports it (the host must send CORS headers, as it must for the
// module scripts anyway, and a page's CSP must allow "worker-src blob: <that origin>": a module worker's
// imports are worker fetches). Not the protocol spoken with the worker (client.js).

export function startWorker(url) {
  const href = new URL(url, globalThis.location?.href).href;
  const here = globalThis.location?.origin;
  if (!here || here === 'null' || new URL(href).origin === here) return new Worker(href, { type: 'module' });
  const wrapper = new Blob([`import ${JSON.stringify(href)};\n`], { type: 'text/javascript' });
  const blobUrl = URL.createObjectURL(wrapper);
  try {
    return new Worker(blobUrl, { type: 'module' });
  } finally {
    setTimeout(() => URL.revokeObjectURL(blobUrl), 60000);  // the worker has fetched it long before
  }
}

// What to tell a reader whose worker could not start, by where the page and the script are.
export function workerAdvice(url) {
  const page = globalThis.location;
  if (page?.protocol === 'file:') {
    return 'this page was opened from a file, and browsers do not run workers or load modules from files: '
      + 'serve the folder over http (e.g. `python3 -m http.server 8080` in it) and open http://localhost:8080/';
  }
  const from = new URL(url, page?.href).origin;
  if (from !== page?.origin) {
    return `the widget files come from ${from}, another origin: that host must send "Access-Control-Allow-Origin" `
      + `(CORS) headers, and a Content-Security-Policy on this page must allow "worker-src blob: ${from}"; or serve `
      + 'lookback.js and its folder from this page\'s own origin';
  }
  return 'check the browser console for the file that failed to load, and that the whole folder of lookback.js is served';
}
