// Small helpers shared by the widgets that show the trained model: head names (layer.head counting from 1,
// the page's one convention), reading a head's habit from the model card, one query's attention row out of a
// forward pass's [L, H, T, T] weights, a token's probability from its logits, token display text, where a name said
// twice sits among a text's tokens.
// Not a custom element; computes nothing the core should (softmax of one logits row is display arithmetic).

/** "layer.head", counting from 1 */
export const headName = (layer, head) => `${layer + 1}.${head + 1}`;

/** the card's "l.h" (counting from 0) as {layer, head} */
export function parseHead(s) {
  const [layer, head] = String(s).split('.').map(Number);
  return { layer, head };
}

/** a head's score for a habit of the card (e.g. 'previous_token'), or null when the card lacks it */
export const habit = (card, key, layer, head) => card?.heads?.[key]?.by_layer?.[layer]?.[head] ?? null;

/** the best head of a habit in the card: {layer, head, score, name} or null */
export function bestHead(card, key, rank = 0) {
  const b = card?.heads?.[key]?.best?.[rank];
  if (!b) return null;
  const h = parseHead(b.head);
  return { ...h, score: b.score, name: headName(h.layer, h.head) };
}

/** query t's weights over keys 0..t for head h of layer l (h < 0: the average of the layer's heads); att: [L,H,T,T] */
export function attentionRow(att, { T, H }, l, h, t) {
  const row = new Float64Array(t + 1);
  const heads = h < 0 ? [...Array(H).keys()] : [h];
  for (const hh of heads) {
    const base = ((l * H + hh) * T + t) * T;
    for (let s = 0; s <= t; s++) row[s] += att[base + s] / heads.length;
  }
  return row;
}

/** the probability that position t - 1's logits gave to token id (logits: [T, V]) */
export function tokenProbability(logits, V, t, id) {
  const row = logits.subarray((t - 1) * V, t * V);
  let max = -Infinity;
  for (let v = 0; v < V; v++) if (row[v] > max) max = row[v];
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(row[v] - max);
  return Math.exp(row[id] - max) / sum;
}

/** a token's text for display: spaces kept visible, the start mark as it comes (◆) */
export const shown = (text) => text.replace(/ /g, '\u2423').replace(/\n/g, '\u21b5');

// Where each {name} of the template starts in the text.
function namePlaces(template, name) {
  const parts = template.split('{name}'), out = [];
  for (let i = 0, at = 0; i + 1 < parts.length; i++) {
    at += parts[i].length;
    out.push(at);
    at += name.length;
  }
  return out;
}

// The positions of the tokens whose part of the text overlaps [start, end) (tokens: the API's { start, end }).
function tokensOver(tokens, start, end) {
  const out = [];
  tokens.forEach((t, i) => { if (t.end > t.start && t.end > start && t.start < end) out.push(i); });
  return out;
}

// The name's two copies among the text's tokens (the API's tokens() of the text; decoded: the text they decode to),
// found by where each token sits in the text (not by encoding the
// name alone: a tokenizer may split a word alone otherwise, e.g. sentencepiece puts a space before any text):
// { a, b, part } when both are the same ids, else { split: [pieces of the first, of the second] }.
export function nameCopies(tokens, decoded, text, template, name) {
  let places = namePlaces(template, name);
  if (decoded !== text) {  // the decoded text differs from the typed one (a normalization): look for the name in it
    places = [];
    for (let at = decoded.indexOf(name); at >= 0 && places.length < 2; at = decoded.indexOf(name, at + name.length)) places.push(at);
  }
  const [first, second] = places.slice(0, 2).map((at) => tokensOver(tokens, at, at + name.length));
  const ids = (pos) => pos?.map((i) => tokens[i].id) ?? [];
  if (first?.length && second?.length && JSON.stringify(ids(first)) === JSON.stringify(ids(second))) {
    return { a: first[0], b: second[0], part: ids(first) };
  }
  return { split: [first, second].map((pos) => (pos ?? []).map((i) => tokens[i].text)) };
}
