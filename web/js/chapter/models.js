// The page's models: every model widget computes with a model named 'sprout', 'window' or 'current', and
// this registry (owned by the compute controller) resolves the name to a model loaded once in the worker and
// shared. 'current' is Sprout until the reader brings a model of their own (useModel); switching it fires
// `lookback-model-change` on the document so that every model widget recomputes. Ops: model [name, method,
// args], modelInfo [name], modelCard [name] (a bundled model's card.json), useModel [source, label]. Each load
// reports itself as `lookback-model-progress` events on the document ({ name, label, state: 'loading' | 'done' |
// 'failed', loaded, total (bytes; total null until known), message }), which the page's progress bar shows. Not the worker's side
// (web/js/worker/model-ops.js) and not a widget (widgets reach it through `lookback-compute` events).

import { servedUrl } from '../served.js';

// (a Map: a model named "constructor" or "__proto__" is a name like any other, not a property of Object)
const LABELS = new Map([['sprout', 'Sprout'], ['window', 'window model']]);
const labelOf = (name) => LABELS.get(name) ?? String(name);
// A widget's model names a bundled model by its folder under models/, by the API's rule for names
// (web/js/api/model.js); anything else ("__proto__", a path) is no bundled model, not a file fetched beside the worker.
const BUNDLED_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const abortError = () => Object.assign(new Error('the model changed'), { name: 'AbortError' });

export class ModelRegistry {
  #client;
  #doc;
  #named = new Map();   // bundled name -> promise of { handle, info, context }
  #current = null;      // null: Sprout; else { entry (promise), label }
  #files = new Map();   // 'name/file' -> promise of parsed JSON or null

  constructor(client, doc) {
    this.#client = client;
    this.#doc = doc;
  }

  #bundled(name) {
    if (!this.#named.has(name)) {
      const p = BUNDLED_NAME.test(name) ? this.#load(name, labelOf(name), [name])
        : this.#refuse(name, `no bundled model is named "${name}" (a model widget's model is current, sprout, window or the folder name of a model under models/)`);
      p.catch(() => this.#named.delete(name));  // a failed load may be retried
      this.#named.set(name, p);
    }
    return this.#named.get(name);
  }

  #report(name, label, state, extra) {
    this.#doc.dispatchEvent(new CustomEvent('lookback-model-progress', { detail: { name, label, state, loaded: 0, total: null, ...extra } }));
  }

  // The worker's loadModel, reported as lookback-model-progress events.
  #load(name, label, args) {
    this.#report(name, label, 'loading');
    const p = this.#client.request('loadModel', args, { onProgress: (v) => this.#report(name, label, 'loading', v) });
    p.then(() => this.#report(name, label, 'done'), (err) => this.#report(name, label, 'failed', { message: String(err?.message ?? err) }));
    return p;
  }

  // A name that cannot be a bundled model's: failed at once, as a load that failed is reported.
  #refuse(name, message) {
    this.#report(name, String(name), 'failed', { message });
    return Promise.reject(new Error(message));
  }

  #entry(name) {
    if (name === 'current' || name === undefined) return this.#current ? this.#current.entry : this.#bundled('sprout');
    return this.#bundled(name);
  }

  // What a widget shows about the model it computes with: { name, label, info, context }.
  async describe(name = 'current') {
    const { info, context } = await this.#entry(name);
    const label = name === 'current' ? (this.#current?.label ?? labelOf('sprout')) : labelOf(name);
    return { name, label, custom: name === 'current' && this.#current !== null, info, context };
  }

  // One Model method (those model-ops.js methodsOf offers) on the named model. A call that fails because the model
  // was switched meanwhile rejects as an AbortError (the widget recomputes on the change event anyway).
  async call(name, method, args = [], key) {
    const entry = this.#entry(name);
    const { handle } = await entry;
    try {
      return await this.#client.request('modelCall', [handle, method, args], { key });
    } catch (err) {
      if (err?.name !== 'AbortError' && entry !== this.#entry(name)) throw abortError();
      throw err;
    }
  }

  // A JSON file that ships beside a bundled model (card.json, config.json), or null ('current' once the
  // reader brought a model of their own: a dropped file has no card).
  bundledJson(name, file) {
    const n = name === 'current' || name === undefined ? (this.#current ? null : 'sprout') : name;
    if (!n || !BUNDLED_NAME.test(n)) return Promise.resolve(null);
    const key = `${n}/${file}`;
    if (!this.#files.has(key)) {
      this.#files.set(key, fetch(servedUrl(`models/${n}/${file}`)).then((r) => (r.ok ? r.json() : null), () => null));
    }
    return this.#files.get(key);
  }

  card(name) {
    return this.bundledJson(name, 'card.json');
  }

  // Makes `source` the current model: null for Sprout again, else what loadModel takes (bytes objects
  // { checkpoint, tokenizer } or { weights, config, tokenizer }). Resolves to describe('current'); a file
  // the loader refuses rejects with the loader's error and leaves the current model as it was.
  async use(source, label) {
    const before = this.#current;
    if (source === null) this.#current = null;
    else {
      const entry = this.#load('current', label || 'your model', [source]);
      await entry;
      this.#current = { entry, label: label || 'your model' };
    }
    if (before) before.entry.then(({ handle }) => this.#client.request('modelCall', [handle, 'dispose'])).catch(() => {});
    const now = await this.describe('current');
    this.#doc.dispatchEvent(new CustomEvent('lookback-model-change', { detail: now }));
    return now;
  }

  // The controller's ops for widgets: model(name, method, args), modelInfo(name), modelCard(name),
  // useModel(source, label).
  ops() {
    return {
      model: (key, name, method, args) => this.call(name, method, args, key),
      modelInfo: (key, name) => this.describe(name),
      modelCard: (key, name) => this.card(name),
      useModel: (key, source, label) => this.use(source, label),
    };
  }
}
