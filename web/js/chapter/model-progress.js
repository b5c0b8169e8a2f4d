// The page's model-loading bar: while a model loads (Sprout, the window model, a reader's own file), a bar
// at the foot of the window shows its name and the bytes read so far; it goes when the load ends, and says so
// when a bundled model fails to load. Listens to the registry's `lookback-model-progress` events (models.js);
// not a widget (nothing to embed) and not the loader.

const MB = 1e6;
const mb = (n) => (n / MB).toFixed(1);

export function showModelProgress(doc) {
  const bar = doc.createElement('div');
  bar.className = 'model-progress';
  bar.setAttribute('role', 'status');
  bar.setAttribute('aria-live', 'polite');
  bar.hidden = true;
  doc.body.append(bar);
  const rows = new Map();  // model name -> its row

  const row = (name) => {
    if (!rows.has(name)) {
      const r = doc.createElement('div');
      r.className = 'model-progress-row';
      r.dataset.model = name;
      const text = doc.createElement('span');
      const meter = doc.createElement('progress');
      meter.max = 1;
      r.append(text, meter);
      bar.append(r);
      rows.set(name, r);
    }
    return rows.get(name);
  };
  const drop = (name) => {
    rows.get(name)?.remove();
    rows.delete(name);
    bar.hidden = rows.size === 0;
  };

  doc.addEventListener('lookback-model-progress', ({ detail: d }) => {
    if (d.state === 'done' || (d.state === 'failed' && d.name === 'current')) {  // a reader's file: its widget says why
      drop(d.name);
      return;
    }
    const r = row(d.name);
    const [text, meter] = r.children;
    r.dataset.state = d.state;
    bar.hidden = false;
    if (d.state === 'failed') {
      text.textContent = `${d.label[0].toUpperCase()}${d.label.slice(1)} could not be loaded: ${d.message}. Reload the page to try again.`;
      meter.hidden = true;
      if (!r.querySelector('button')) {
        const close = doc.createElement('button');
        close.type = 'button';
        close.textContent = 'Dismiss';
        close.addEventListener('click', () => drop(d.name));
        r.append(close);
      }
      return;
    }
    const known = d.total > 0;
    text.textContent = !known && !d.loaded ? `Loading ${d.label}…`
      : `Loading ${d.label}: ${mb(d.loaded)}${known ? ` of ${mb(d.total)}` : ''} MB`;
    if (known) meter.value = Math.min(1, d.loaded / d.total);
    else meter.removeAttribute('value');  // indeterminate until the size is known
    meter.setAttribute('aria-label', `${d.label} loading`);
  });
}
