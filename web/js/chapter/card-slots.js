// Fills the page's prose slots from the model card at run time, so no model number is typed into the page:
// <span data-from-card="heads.previous_token.best.0.head" data-format="head"></span> gets the value at that path of
// card.json, formatted: head ("l.h" from the card, counting from 0, shown as layer.head counting from 1),
// layer (that head's layer, from 1), n2 / n3 (fixed digits), exp (e^value, 2 digits), int (grouped), pct.
// <span data-from-config="dim" data-format="int"> takes the model's config.json field instead. Not a widget.

const FORMATS = {
  head: (v) => String(v).split('.').map((x) => Number(x) + 1).join('.'),
  layer: (v) => String(Number(String(v).split('.')[0]) + 1),
  n2: (v) => Number(v).toFixed(2),
  n3: (v) => Number(v).toFixed(3),
  exp: (v) => Math.exp(Number(v)).toFixed(2),
  int: (v) => Math.round(Number(v)).toLocaleString('en-US'),
  pct: (v) => `${Math.round(100 * Number(v))}%`,
  params4: (v) => (4 * Number(v) * Number(v)).toLocaleString('en-US'),   // 4·C², a layer's attention weights
};

export function valueAt(obj, path) {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

function fill(el, value) {
  const format = FORMATS[el.dataset.format] ?? String;
  el.textContent = value === undefined || value === null ? 'not measured' : format(value);
  el.dataset.filled = value === undefined || value === null ? 'missing' : 'yes';
}

/** fills every [data-from-card] slot from the card (null: no card) and every [data-from-config] slot from the config */
export function fillCardSlots(root, card, config) {
  root.querySelectorAll('[data-from-card]').forEach((el) => fill(el, card ? valueAt(card, el.dataset.fromCard) : null));
  if (config) root.querySelectorAll('[data-from-config]').forEach((el) => fill(el, valueAt(config, el.dataset.fromConfig)));
}
