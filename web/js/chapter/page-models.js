// The page's models: each loads ONCE per page in the worker and is shared by every widget. Widgets name a
// model in `model.<method>` compute ops: args [name, ...method args], e.g. op 'model.forward', args
// ['current', text, {attention: true}]. Names: 'sprout' and 'window' (bundled), any name given to use(), and
// 'current', the page's current model (Sprout until use() or setCurrent() switches it; then every widget that
// asks for 'current' is told by a `lookback-model-change` event on the document and recomputes).
// Two ops are not Model methods: 'model.describe' [name] -> {name, label, info, context} and
// 'model.card' [name] -> the bundled model's card.json or null. Not the worker (web/js/worker) nor a widget.
import { loadRemoteModel } from '../worker/remote-model.js';

const MODELS = new URL('../../models/', import.meta.url);
const LABELS = { sprout: 'Sprout', window: 'window model' };

export class PageModels {
  #client;
  #doc;
  #sources = new Map([['sprout', 'sprout'], ['window', 'window']]);
  #loading = new Map();   // name -> promise of a RemoteModel
  #loaded = new Map();    // name -> RemoteModel, once loaded (calls then leave in the same task)
  #files = new Map();    // 'name/file' -> promise of parsed JSON or null
  #current = 'sprout';

  constructor(client, doc = document) {
    this.#client = client;
    this.#doc = doc;
  }

  get current() {
    return this.#current;
  }

  /** registers a model source (a bundled name, a URL, or {weights, config, tokenizer} bytes) under a name
   * and, unless told otherwise, makes it the page's current model */
  use(name, source, { current = true } = {}) {
    this.#loaded.get(name)?.dispose();
    this.#loaded.delete(name);
    this.#loading.delete(name);
    for (const k of this.#files.keys()) if (k.startsWith(`${name}/`)) this.#files.delete(k);
    this.#sources.set(name, source);
    if (current) this.setCurrent(name);
  }

  setCurrent(name) {
    if (!this.#sources.has(name)) throw new Error(`no model named "${name}" on this page`);
    this.#current = name;
    this.#doc.dispatchEvent(new CustomEvent('lookback-model-change', { detail: { name } }));
  }

  resolve(name = 'current') {
    const n = name === 'current' ? this.#current : name;
    if (!this.#sources.has(n)) throw new Error(`no model named "${n}" on this page (known: ${[...this.#sources.keys()].join(', ')})`);
    return n;
  }

  model(name) {
    const n = this.resolve(name);
    if (!this.#loading.has(n)) {
      const p = loadRemoteModel(this.#client, this.#sources.get(n)).then((m) => {
        if (this.#loading.get(n) === p) this.#loaded.set(n, m);
        return m;
      });
      this.#loading.set(n, p);
      p.catch(() => this.#loading.delete(n));
    }
    return this.#loading.get(n);
  }

  /** the bundled model's card.json, or null (a model given as bytes or URL has none) */
  card(name) {
    return this.bundledJson(name, 'card.json');
  }

  /** a JSON file that ships beside a bundled model (card.json, config.json), or null */
  async bundledJson(name, file) {
    const n = this.resolve(name);
    const source = this.#sources.get(n);
    if (typeof source !== 'string' || !/^[A-Za-z0-9_-]+$/.test(source)) return null;
    const key = `${n}/${file}`;
    if (!this.#files.has(key)) {
      this.#files.set(key, fetch(new URL(`${source}/${file}`, MODELS)).then((r) => (r.ok ? r.json() : null), () => null));
    }
    return this.#files.get(key);
  }

  // One `model.*` op: a Model method through the worker (with the widget's key, so stale calls are dropped).
  run(op, args, key) {
    const [name, ...rest] = args;
    const method = op.slice('model.'.length);
    if (method === 'card') return this.card(name);
    const n = this.resolve(name);
    const call = (m) => {
      if (method === 'describe') return { name: n, label: LABELS[n] ?? n, info: m.info, context: m.context };
      if (typeof m[method] !== 'function') throw new Error(`a model has no method "${method}"`);
      return m.keyed(key)[method](...rest);
    };
    const ready = this.#loaded.get(n);
    return ready ? Promise.resolve().then(() => call(ready)) : this.model(n).then(call);
  }
}
