// The base of every widget that computes with a language model: attribute `model` names it ('current' by
// default: Sprout until the reader brings their own; or 'sprout', 'window'); askModel runs one Model method
// through the controller (op 'model'); the widget recomputes when the page's current model changes
// (`lookback-model-change` on the document; modelChanged() drops what it kept from the old model), and after
// any observed attribute changes (readAttributes()).
// Not the registry of models (web/js/chapter/models.js).
import { LookbackWidget, abortError } from './widget-kit.js';

export class ModelWidget extends LookbackWidget {
  constructor() {
    super();
    this.modelInfo = null;
    this.modelChanges = 0;   // the page's model changes so far (see modelKey)
    this._onModelChange = () => {
      this.modelChanges++;   // counted whatever this widget uses now: a result asked with 'current' may be pending
      if (this.modelName !== 'current') return;
      this.modelInfo = null;
      this.modelChanged?.();
      this.invalidate({ now: true });
    };
  }

  // An attribute changed after the first render: subclasses read them all again in readAttributes().
  attributeChangedCallback(name) {
    if (!this._built) return;
    if (name === 'model') this.modelInfo = null;
    this.readAttributes(name);
    this.invalidate({ now: true });
  }

  get modelName() {
    return this.getAttribute('model') || 'current';
  }

  // Which model answers belong to: a result kept across computations records the key it was asked with. It changes
  // only with this widget's model (so whatever throws abortError on a change has been marked to compute again).
  get modelKey() {
    return this.modelName === 'current' ? `current ${this.modelChanges}` : this.modelName;
  }

  connectedCallback() {
    super.connectedCallback();
    this.ownerDocument.addEventListener('lookback-model-change', this._onModelChange);
  }

  disconnectedCallback() {
    this.ownerDocument.removeEventListener('lookback-model-change', this._onModelChange);
    super.disconnectedCallback();
  }

  // { name, label, custom, info, context } of the model this widget computes with (asked once per model).
  async describeModel() {
    const model = this.modelKey;
    const info = this.modelInfo ?? await this.ask('modelInfo', [this.modelName], 'modelInfo', { keep: true });
    if (model !== this.modelKey) throw abortError();   // the model changed meanwhile
    this.modelInfo = info;
    return info;
  }

  // The bundled model's card.json (heads, scores, losses), or null for a reader's own model.
  async modelCard() {
    const model = this.modelKey;
    const card = await this.ask('modelCard', [this.modelName], 'modelCard', { keep: true });
    if (model !== this.modelKey) throw abortError();   // the model changed meanwhile
    return card;
  }

  // One Model method (encode, tokens, forward, next, generate, ...) on this widget's model, or on the model
  // named by opts.model ('sprout', 'window', 'current').
  askModel(method, args, name = method, { model = this.modelName, ...opts } = {}) {
    return this.ask('model', [model, method, args], name, opts);
  }
}
