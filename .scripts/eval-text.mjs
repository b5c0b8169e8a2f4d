// The half of `npm run eval` that measures Sprout on text it was not built around, through the JS API (the
// WebAssembly core): the hand-written probes (shared/probes/handwritten-{dev,final}.json: object recall, pronoun ->
// name, made-up names), free generation from plain prompts (repeated sentences, distinct 3-grams, the longest
// repeated span of greedy text), the start mark's weight by query position, and the tokenizer on text the project
// did not generate. Returns card sections; .scripts/eval.mjs writes them. Not the generator's own probes
// (lookback-eval measures those natively).
import { readFileSync } from 'node:fs';

// Plain story openings a reader might type; inputs of the measurement, not results.
export const PROMPTS = [
  'Once upon a time', 'One day, a little girl', 'Tom and his dog', 'It was a sunny morning and',
  'The little bird', 'Mia wanted to', 'In a small house there lived', 'Grandpa took the children to',
  'Ben looked out of the window and', 'After school, Lucy', 'The cat sat on', 'Sam found a',
  'There was a big tree near', 'Anna and her brother', 'At the park, the kids', 'The old man had',
  'Max was sad because', 'Every night, the girl', 'The red ball rolled', 'Lily said to her mom,',
];
export const START_BUCKETS = [[1, 16], [17, 64], [65, 128], [129, 256]];

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Each token's [start, end) char offsets in `text` (ids begin with the start mark, which covers nothing).
export function tokenSpans(model, text) {
  const ids = model.encode(text);
  const spans = [[0, 0]];
  let at = 0;
  for (let i = 1; i < ids.length; i++) {
    const end = model.decode(ids.slice(1, i + 1)).length;
    spans.push([at, end]);
    at = end;
  }
  if (model.decode(ids.slice(1)) !== text) throw new Error(`decode(encode(text)) differs from the text: ${text.slice(0, 60)}`);
  return { ids, spans };
}

// Tokens overlapping [from, to).
const tokensIn = (spans, from, to) => spans.flatMap(([a, b], i) => (i > 0 && a < to && b > from ? [i] : []));

// Char offsets of whole-word occurrences of `word` in `text` before `limit`.
function mentions(text, word, limit = Infinity) {
  const out = [];
  for (const m of text.matchAll(new RegExp(`\\b${escape(word)}\\b`, 'g'))) if (m.index < limit) out.push(m.index);
  return out;
}

const nll = (logits, V, t, id) => {
  const row = logits.subarray(t * V, (t + 1) * V);
  let mx = -Infinity;
  for (const x of row) mx = Math.max(mx, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - mx);
  return Math.log(sum) + mx - row[id];
};

// Object recall: the most probable next token is the answer's first token (as it follows a space).
function verdict(model, text, answer) {
  const want = model.encode(` ${answer}`, { bos: false })[0];
  const [top] = model.next(text, { topK: 1 });
  return { want, hit: top.id === want, predicted: top.token };
}

function recall(model, probes) {
  const rows = probes.map(({ text, answer }) => {
    const { want, hit, predicted } = verdict(model, text, answer);
    const p = model.next(text, { topK: model.info.config.vocab_size }).find((x) => x.id === want)?.p ?? 0;
    return { hit, predicted, p_answer: p };
  });
  return { probes: rows.length, top1: mean(rows.map((r) => (r.hit ? 1 : 0))), mean_p_answer: mean(rows.map((r) => r.p_answer)),
    misses: rows.flatMap((r, i) => (r.hit ? [] : [{ probe: i, predicted: r.predicted }])) };
}

// Pronoun -> name: weight from the pronoun's token onto every token of every earlier mention of each name.
function pronoun(model, probes, head) {
  const H = model.info.config.n_heads;
  const rows = probes.map(({ text: marked, name, other }) => {
    const at = marked.indexOf('[');
    const text = marked.replace(/\[([^\]]+)\]/, '$1');
    const word = marked.slice(at + 1, marked.indexOf(']'));
    const { ids, spans } = tokenSpans(model, text);
    const q = tokensIn(spans, at, at + word.length)[0];
    const keys = (n) => mentions(text, n, at).flatMap((c) => tokensIn(spans, c, c + n.length));
    const f = model.forward(ids, { attention: true });
    const T = f.shape.T;
    const row = (l, h) => f.attention.subarray(((l * H + h) * T + q) * T, ((l * H + h) * T + q + 1) * T);
    const weight = (l, h, ks) => ks.reduce((a, k) => a + row(l, h)[k], 0);
    const perHead = [];
    for (let l = 0; l < f.shape.L; l++) for (let h = 0; h < H; h++) perHead.push([weight(l, h, keys(name)), weight(l, h, keys(other))]);
    return perHead;
  });
  const stats = (i) => ({ on_name: mean(rows.map((r) => r[i][0])), on_other: mean(rows.map((r) => r[i][1])),
    name_wins: mean(rows.map((r) => (r[i][0] > r[i][1] ? 1 : 0))) });
  const all = rows[0].map((_, i) => ({ head: `${Math.floor(i / H)}.${i % H}`, ...stats(i) }));
  const chosen = all.find((x) => x.head === head);
  return { probes: rows.length, head, ...chosen, best_here: [...all].sort((a, b) => b.on_name - a.on_name).slice(0, 3) };
}

// Made-up names: mean loss per piece over the pieces of the name that can be copied (every piece but the first:
// what precedes the first gives no hint of it), the first time and the second time, as the native evaluator
// measures its probes; names of one piece have nothing to copy and are counted apart.
export function names(model, probes) {
  const rows = probes.map(({ text, name }) => {
    const { ids, spans } = tokenSpans(model, text);
    const [first, second] = mentions(text, name).map((c) => tokensIn(spans, c, c + name.length).slice(1));
    if (!first.length || !second.length) return null;
    const f = model.forward(ids);
    const V = f.shape.V;
    const loss = (pieces) => mean(pieces.map((t) => nll(f.logits, V, t - 1, ids[t])));
    return [loss(first), loss(second)];
  }).filter(Boolean);
  const first = mean(rows.map((r) => r[0])), second = mean(rows.map((r) => r[1]));
  return { probes: rows.length, one_piece_names: probes.length - rows.length, first_loss_nats: first, second_loss_nats: second,
    drop_nats: first - second };
}

// The chapter's example stories (shared/probes/showcase.json), each with its verdict as the page computes it
// again (web/js/chapter/sprout-limits.js): whether the most probable next token is the answer's first token.
export function showcase(model, set) {
  return set.stories.map(({ text, answer }) => {
    const { hit, predicted } = verdict(model, text, answer);
    return { text, answer, hit, top: predicted };
  });
}

export function handwritten(model, set, pronounHead) {
  return { recall: recall(model, set.recall), pronoun: pronoun(model, set.pronoun, pronounHead), names: names(model, set.names) };
}

// Sentences (trimmed, of 3 or more words) that occur more than once in a text.
export function repeatedSentences(text) {
  const seen = new Map();
  for (const s of text.split(/(?<=[.!?]["']?)\s+/)) {
    const k = s.trim();
    if (k.split(/\s+/).length >= 3) seen.set(k, (seen.get(k) || 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([s]) => s);
}

// The longest run of words that occurs twice (possibly overlapping) in a text, in words.
export function longestRepeat(text) {
  const w = text.split(/\s+/).filter(Boolean);
  let best = 0;
  for (let shift = 1; shift < w.length; shift++) {
    let run = 0;
    for (let i = 0; i + shift < w.length; i++) {
      run = w[i] === w[i + shift] ? run + 1 : 0;
      best = Math.max(best, run);
    }
  }
  return best;
}

export function generation(model, { tokens = 150, temperature = 0.8 } = {}) {
  const samples = PROMPTS.map((prompt, i) => prompt + model.generate(prompt, { maxTokens: tokens, temperature, seed: i + 1 }).text);
  const trigrams = [];
  for (const s of samples) {
    const w = s.split(/\s+/).filter(Boolean);
    for (let i = 0; i + 2 < w.length; i++) trigrams.push(w.slice(i, i + 3).join(' '));
  }
  const greedy = `Once upon a time${model.generate('Once upon a time', { maxTokens: tokens, temperature: 0 }).text}`;
  return {
    prompts: PROMPTS.length, tokens_each: tokens, temperature,
    samples_repeating_a_sentence: samples.filter((s) => repeatedSentences(s).length > 0).length,
    distinct_3gram_share: new Set(trigrams).size / trigrams.length,
    greedy_longest_repeated_span_words: longestRepeat(greedy),
    greedy, samples: samples.slice(0, 3),
  };
}

// Every head's average weight on the start mark for query positions in each bucket, over the id sequences.
export function startMarkByPosition(model, sequences) {
  const { n_layers: L, n_heads: H } = model.info.config;
  const sums = START_BUCKETS.map(() => new Float64Array(L * H));
  const counts = START_BUCKETS.map(() => 0);
  for (const ids of sequences) {
    const f = model.forward(ids, { attention: true });
    const T = f.shape.T;
    for (let t = 1; t < T; t++) {
      const b = START_BUCKETS.findIndex(([lo, hi]) => t >= lo && t <= hi);
      if (b < 0) continue;
      counts[b]++;
      for (let lh = 0; lh < L * H; lh++) sums[b][lh] += f.attention[(lh * T + t) * T];
    }
  }
  return START_BUCKETS.map(([lo, hi], b) => ({
    positions: `${lo}-${hi}`, queries: counts[b],
    by_layer: Array.from({ length: L }, (_, l) => Array.from(sums[b].subarray(l * H, (l + 1) * H), (x) => (counts[b] ? x / counts[b] : 0))),
  }));
}

// The best head's weight on the start mark over queries at positions 1..64 (buckets 1-16 and 17-64, by count),
// and that head's weight in every bucket.
export function startMarkUpTo64(buckets) {
  const [a, b] = buckets;
  const n = a.queries + b.queries;
  const scores = a.by_layer.flatMap((row, l) => row.map((x, h) => ({ l, h, score: n ? (x * a.queries + b.by_layer[l][h] * b.queries) / n : 0 })));
  const { l, h, score } = scores.sort((x, y) => y.score - x.score)[0];
  // the same head in every bucket: how the habit changes as the text grows
  return { head: `${l}.${h}`, score, by_position: buckets.map((k) => ({ positions: k.positions, queries: k.queries, score: k.by_layer[l][h] })) };
}

// Random ids from the merged tokens (ids >= 258: whole pieces of words, not bytes), the start mark first.
export function randomSequences(model, count, length, seed) {
  let s = seed >>> 0;
  const rand = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
  const V = model.info.config.vocab_size;
  return Array.from({ length: count }, () => [model.encode('')[0], ...Array.from({ length: length - 1 }, () => 258 + Math.floor(rand() * (V - 258)))]);
}

// How the tokenizer splits words of text the project did not generate: share of words that are one token and
// mean tokens per word (each word as it appears in running text, after a space).
export function tokenizerStats(model, texts) {
  const words = texts.flatMap((t) => t.match(/[A-Za-z']+/g) || []);
  const counts = new Map();
  const pieces = words.map((w) => {
    if (!counts.has(w)) counts.set(w, model.encode(` ${w}`, { bos: false }).length);
    return counts.get(w);
  });
  return { words: words.length, share_one_token: mean(pieces.map((n) => (n === 1 ? 1 : 0))), tokens_per_word: mean(pieces) };
}

export const readProbes = (path) => JSON.parse(readFileSync(path, 'utf8'));
