// `npm run eval`: measures the shipped Sprout and window models with the native evaluator (lookback-eval) and
// writes the model card: shared/models/sprout/card.json (every number measured, plus the checksums of the
// shipped files) and card.md (a readable summary). Nothing in the card is typed by hand.
// Not the evaluator itself (wasm/src/train/evaluate.cpp) and not training (.scripts/train.mjs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../web/js/api/index.js';
import * as text from './eval-text.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SPROUT = `${root}shared/models/sprout`;
const WINDOW = `${root}shared/models/window`;
const CARD_FILES = new Set(['card.json', 'card.md']);

function fail(message) {
  console.error(`eval: ${message}`);
  process.exit(1);
}

// name -> {bytes, sha256} for the files of a model folder (the card itself excluded).
export function checksums(dir) {
  const out = {};
  for (const f of readdirSync(dir).sort()) {
    if (CARD_FILES.has(f)) continue;
    const data = readFileSync(`${dir}/${f}`);
    out[f] = { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  }
  return out;
}

const fmt = (x, d = 3) => (typeof x === 'number' ? x.toFixed(d) : String(x));
// A head as people read it: the card's "l.h" indexes (counting from 0) as layer.head counting from 1.
export const headLabel = (indexes) => String(indexes).split('.').map((x) => Number(x) + 1).join('.');
const HEAD_NUMBERING = 'the "head" fields are "layer_index.head_index", counting from 0; the card\'s text and card.md '
  + 'name heads as people read them, layer.head counting from 1 (indexes "0.4" are head 1.5)';

// The card.md lines of what eval-text.mjs measured (absent from cards written before it existed).
function textSummary(card) {
  if (!card.handwritten) return [];
  const row = (name, x) => `| ${name} | ${fmt(x.recall.top1)} (${x.recall.probes}) | ${fmt(x.pronoun.on_name)} / ${fmt(x.pronoun.on_other)}, right name above the other in ${fmt(x.pronoun.name_wins)} (${x.pronoun.probes}) | ${fmt(x.names.first_loss_nats)} -> ${fmt(x.names.second_loss_nats)} (${x.names.probes}) |`;
  const g = card.generation, sm = card.heads.start_mark_by_position, tk = card.tokenizer;
  const bucketRow = (what, buckets, head) => {
    const [l, h] = head.split('.').map(Number);
    return `| ${what} | ${buckets.map((b) => `${fmt(b.by_layer[l][h])} (${b.queries})`).join(' | ')} |`;
  };
  const best = sm.best_up_to_64.stories.head;
  const tokRow = (what, t) => `| ${what} | ${fmt(t.handwritten.share_one_token)} / ${fmt(t.handwritten.tokens_per_word)} | ${fmt(t.stories260k_samples.share_one_token)} / ${fmt(t.stories260k_samples.tokens_per_word)} |`;
  return [
    '', '## Hand-written probes (plain English, kept out of training and of the tokenizer\'s data)', '',
    `| set | object recall top-1 (probes) | pronoun head ${headLabel(card.handwritten.final.pronoun.head)}: weight on the right name / the other (probes) | made-up name loss, first -> second time, nats (probes) |`,
    '|---|---|---|---|', row('development', card.handwritten.dev), row('final', card.handwritten.final),
    '', '## Generation', '',
    `${g.prompts} plain prompts, ${g.tokens_each} tokens each at temperature ${g.temperature}: ${g.samples_repeating_a_sentence} samples repeat a sentence verbatim; distinct 3-grams ${fmt(g.distinct_3gram_share)}. Greedy from "Once upon a time": longest repeated span ${g.greedy_longest_repeated_span_words} words.`,
    '', ...g.samples.map((x) => `> ${x}\n`),
    '', `## Start mark by query position (head ${headLabel(best)}, the best over positions 1-64 in stories; queries in brackets)`, '',
    `| text | ${sm.stories.map((b) => b.positions).join(' | ')} |`, `|---|${sm.stories.map(() => '---|').join('')}`,
    bucketRow('stories', sm.stories, best), bucketRow('random tokens', sm.random_tokens, best),
    '', '## Tokenizer on text the project did not generate (share of words that are one token / tokens per word)', '',
    '| tokenizer | hand-written probes | stories260K samples |', '|---|---|---|',
    tokRow('this model', tk.unseen_text), ...(tk.before ? [tokRow(`before (${tk.before.revision})`, tk.before.unseen_text)] : []),
  ];
}

// The card.md table of the acceptance criteria in each weight format (absent from cards written before them).
function formatsTable(card) {
  const w = card.weight_formats;
  if (!w) return [];
  return ['', '## Weight formats (the card measured again with Sprout loaded in f16 and in q8)', '',
    '| criterion | f32 | f16 | q8 |', '|---|---|---|---|',
    ...card.acceptance.map((a, i) => `| ${a.criterion} | ${fmt(a.value)} | ${fmt(w.f16.criteria[i].value)} | ${fmt(w.q8.criteria[i].value)} |`),
    `| validation loss, Sprout (nats/token) | ${fmt(card.validation.sprout.loss_nats, 4)} | ${fmt(w.f16.validation_loss_nats, 4)} | ${fmt(w.q8.validation_loss_nats, 4)} |`];
}

// The model block of web/docs/models.md (between the model-card markers, filled by the docs build from the card:
// .scripts/docs-site.mjs): the card's acceptance and losses, and how it was trained.
export function readmeBlock(card) {
  const v = card.validation, t = card.training?.recipe;
  const need = (a) => a.need.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return [
    '| criterion (from the card) | measured | needed | |', '|---|---|---|---|',
    ...card.acceptance.map((a) => `| ${a.criterion} | ${fmt(a.value)} | ${need(a)} | ${a.pass ? 'met' : 'not met'} |`),
    '', '| validation loss on held-out generated stories | nats/token | e^loss (choosing among N) |', '|---|---|---|',
    `| Sprout | ${fmt(v.sprout.loss_nats)} | ${fmt(v.sprout.perplexity, 2)} |`,
    ...(v.window ? [`| window model (last 8 tokens) | ${fmt(v.window.loss_nats)} | ${fmt(v.window.perplexity, 2)} |`] : []),
    ...formatsLine(card),
    ...(t ? ['', trainedLine(card)] : []),
  ].join('\n');
}

// How the shipped Sprout was trained, from the card (its recipe, shape and the minutes of the last run).
export function trainedLine(card) {
  const t = card.training.recipe, s = card.shape;
  const T = s?.context ?? 256;
  const tokens = t.steps * t.batch * T;
  const M = (n) => `${(n / 1e6).toFixed(1)}M`;
  const shape = s ? ` on ${M(s.parameters)} parameters (${s.n_layers} layers of ${s.n_heads} heads of ${s.head_dim}, width ${s.dim}, `
    + `MLP ${s.hidden_dim}), ${(tokens / s.parameters).toFixed(1)} tokens per parameter` : '';
  const minutes = card.training.total_minutes_last_run;
  const stages = card.training.stage_minutes_last_run;
  const took = minutes ? `, ${minutes} minutes in all on this machine's 2 cores (${Object.entries(stages).map(([k, v]) => `${k} ${v}`).join(', ')})` : '';
  return `Trained by \`npm run train\`: ${t.steps} steps of ${t.batch} x ${T} tokens, ${M(tokens)} tokens${shape}${took}; `
    + `corpus seed ${t.corpus_seed}, ${t.train_stories} generated stories${t.samples ? `, ${t.samples.stories} sampled` : ''}.`;
}

// Lines on the card measured again in the compact weight formats (absent from cards written before them): per
// format, how many criteria stay within 0.01 of f32, those that move more, and the validation loss's change.
function formatsLine(card) {
  const w = card.weight_formats;
  if (!w) return [];
  const line = (name) => {
    const x = w[name], moved = x.criteria.filter((c) => Math.abs(c.diff) > 0.01);
    const d = x.validation_loss_diff;
    return `- ${name}: ${x.criteria.length - moved.length} of ${x.criteria.length} criteria within 0.01 of f32` +
      `${moved.length ? ` (beyond it: ${moved.map((c) => `${c.criterion}, ${fmt(c.f32)} -> ${fmt(c.value)}`).join('; ')})` : ''}` +
      `; validation loss ${d >= 0 ? '+' : '-'}${Math.abs(d).toExponential(1)} nats/token`;
  };
  return ['', 'Sprout loaded in the compact weight formats (`loadModel(src, { weights })`), every measure above taken again:',
    line('f16'), line('q8')];
}

// card.md: the card in words and tables (heads named layer.head counting from 1).
export function summary(card) {
  const v = card.validation, r = card.probes.recall, n = card.probes.name, h = card.heads;
  const lines = [
    '# Sprout: model card', '',
    `Measured by \`npm run eval\` on held-out text (corpus seed ${card.evaluation.seed}); every number below is in card.json.`, '',
    '## Acceptance', '', '| criterion | measured | needed | |', '|---|---|---|---|',
    ...card.acceptance.map((a) => `| ${a.criterion} | ${fmt(a.value)} | ${a.need.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '')} | ${a.pass ? 'pass' : 'FAIL'} |`),
    '', '## Validation loss', '',
    `${v.stories} stories, ${v.tokens} tokens.`, '', '| model | nats/token | e^loss (choosing among N) |', '|---|---|---|',
    `| Sprout | ${fmt(v.sprout.loss_nats)} | ${fmt(v.sprout.perplexity, 2)} |`,
    ...(v.window ? [`| window (last 8 tokens) | ${fmt(v.window.loss_nats)} | ${fmt(v.window.perplexity, 2)} |`] : []),
    '', '## Probes', '',
    `- Object recall (${r.probes} probes): Sprout top-1 ${fmt(r.sprout_top1)}${r.window_top1 !== undefined ? `, window model ${fmt(r.window_top1)}` : ''}; swapping the early mention moves Sprout's prediction in ${fmt(r.swap_follows)} of probes.`,
    `- Made-up names (${n.probes} probes${n.one_piece_names ? `; ${n.one_piece_names} one-piece names left out` : ''}): loss per piece that can be copied (every piece but the first) ${fmt(n.first_loss_nats)} nats the first time, ${fmt(n.second_loss_nats)} the second time.`,
    `- Repeated random tokens: loss ${fmt(card.induction_test.first_half_loss_nats)} nats on the first half, ${fmt(card.induction_test.second_half_loss_nats)} on the repeat.`,
    '', '## Heads (best three of each habit; even spread in brackets; heads named layer.head counting from 1)', '',
    ...['previous_token', 'start_mark', 'four_or_more_back', 'induction', 'start_mark_on_random_tokens', 'previous_token_on_random_tokens', 'pronoun_to_name', 'pronoun_to_every_mention'].map((k) =>
      `- ${k === 'four_or_more_back' ? 'four or more back (the start mark not counted)' : k.replaceAll('_', ' ')} (${fmt(h[k].even)}): ${h[k].best.map((b) => `${headLabel(b.head)} ${fmt(b.score)}`).join(', ')}`),
    ...textSummary(card),
    ...formatsTable(card),
    '', '## Files', '', '| file | bytes | sha256 |', '|---|---|---|',
    ...Object.entries(card.files).map(([f, x]) => `| ${f} | ${x.bytes} | ${x.sha256} |`),
  ];
  return `${lines.join('\n')}\n`;
}

// `--before REV` also measures the tokenizer of the Sprout committed at git revision REV, for comparison.
function options(argv) {
  const i = argv.indexOf('--before');
  if (i < 0) return { before: null, rest: argv };
  if (!argv[i + 1]) fail('--before needs a git revision');
  return { before: argv[i + 1], rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
}

// Lines of a tool's output file, written to a temporary folder.
function toolLines(name, args) {
  const dir = mkdtempSync(`${tmpdir()}/lookback-eval-`);
  try {
    const r = spawnSync(`${root}.build/native/lookback-${name}`, [...args, '--out', `${dir}/out.txt`], { encoding: 'utf8' });
    if (r.status !== 0) fail(`lookback-${name} failed: ${r.stderr.trim()}`);
    return readFileSync(`${dir}/out.txt`, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The Sprout bundle committed at a git revision, in a temporary folder (the caller removes it).
function modelAt(rev) {
  const dir = mkdtempSync(`${tmpdir()}/lookback-before-`);
  for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) {
    const r = spawnSync('git', ['show', `${rev}:shared/models/sprout/${f}`], { cwd: root, maxBuffer: 1 << 28 });
    if (r.status !== 0) fail(`cannot read shared/models/sprout/${f} at ${rev}`);
    writeFileSync(`${dir}/${f}`, r.stdout);
  }
  return dir;
}

const PROBES = `${root}shared/probes`;
// The hand-written sets: dev for iterating, final read once for the card of the model trained after it was written
// (the sets of the Sprouts before, handwritten-final.json and -v3, stay; each card names the file it read).
export const HANDWRITTEN = { dev: 'handwritten-dev.json', final: 'handwritten-final-v4.json' };
const probeTexts = (set) => [...set.recall, ...set.pronoun, ...set.names].map((p) => p.text.replace(/[[\]]/g, ''));

// Measures Sprout (loaded in `weights`) on text it was not built around (see eval-text.mjs) and adds the criteria
// of that text.
async function measureText(card, seed, before, weights) {
  const lb = await loadLookback();
  const model = await lb.loadModel(SPROUT, { weights });
  const dev = text.readProbes(`${PROBES}/${HANDWRITTEN.dev}`);
  const final = text.readProbes(`${PROBES}/${HANDWRITTEN.final}`);
  const pronounHead = card.heads.pronoun_to_name.best[0].head;
  const c = model.info.config;
  card.shape = { parameters: model.info.parameters, n_layers: c.n_layers, n_heads: c.n_heads, head_dim: c.head_dim,
    dim: c.dim, hidden_dim: c.hidden_dim, vocab_size: c.vocab_size, context: model.context };
  card.handwritten = { about: dev.about, files: HANDWRITTEN, dev: text.handwritten(model, dev, pronounHead),
    final: text.handwritten(model, final, pronounHead) };
  card.showcase = { file: 'showcase.json', stories: text.showcase(model, JSON.parse(readFileSync(`${PROBES}/showcase.json`, 'utf8'))) };
  console.log('eval: hand-written probes measured');
  card.generation = text.generation(model);
  console.log('eval: generation measured');
  const stories = toolLines('corpus', ['--seed', String(seed), '--split', 'validation', '--stories', '200']);
  const sampled = toolLines('sample', ['--model', `${root}shared/models/stories260K/stories260K.bin`,
    '--tokenizer', `${root}shared/models/stories260K/tok512.bin`, '--stories', '200', '--seed', '1001']);
  const inContext = (ids) => ids.length <= model.context;
  card.heads.start_mark_by_position = {
    stories: text.startMarkByPosition(model, stories.map((s) => model.encode(s)).filter(inContext)),
    random_tokens: text.startMarkByPosition(model, text.randomSequences(model, 16, model.context, seed)),
  };
  const tokenizer = (m) => ({ handwritten: text.tokenizerStats(m, [...probeTexts(dev), ...probeTexts(final)]),
    stories260k_samples: text.tokenizerStats(m, sampled) });
  card.tokenizer = { unseen_text: tokenizer(model) };
  if (before) {
    const dir = modelAt(before);
    const old = await lb.loadModel(dir);
    card.tokenizer.before = { revision: before, unseen_text: tokenizer(old) };
    old.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  model.dispose();
  const f = card.handwritten.final;
  const up64 = text.startMarkUpTo64(card.heads.start_mark_by_position.stories);
  card.heads.start_mark_by_position.best_up_to_64 = { stories: up64, random_tokens: text.startMarkUpTo64(card.heads.start_mark_by_position.random_tokens) };
  card.acceptance.push(
    check('hand-written (final): object recall top-1', f.recall.top1, '>=', 0.6),
    check('hand-written (development): object recall top-1', card.handwritten.dev.recall.top1, '>=', 0.8),
    check(`hand-written (final): pronoun head ${headLabel(f.pronoun.head)}'s weight on the right name`, f.pronoun.on_name, '>=', 0.5),
    check(`hand-written (final): pronoun head ${headLabel(f.pronoun.head)} weighs the right name above the other`, f.pronoun.name_wins, '>=', 0.8),
    check('hand-written (final): made-up name, first minus second occurrence loss (nats)', f.names.drop_nats, '>=', 2),
    check(`generation: samples repeating a sentence (of ${card.generation.prompts})`, card.generation.samples_repeating_a_sentence, '<=', 2),
    check(`best start-mark head in stories, queries at positions 1-64 (head ${headLabel(up64.head)})`, up64.score, '>=', 0.5),
  );
}

const check = (criterion, value, op, need) => ({ criterion, value, need: `${op} ${need}`, pass: op === '>=' ? value >= need : value <= need });

// The card's measurements with Sprout loaded in `weights` ('f32', 'f16' or 'q8'): the native evaluator, then the
// text measures through the JS API.
async function measure(tool, args, seed, before, weights, extra = {}) {
  const r = spawnSync(tool, [...args, '--weights', weights], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) fail(`lookback-eval failed: ${r.stderr.trim()}`);
  const card = { model: 'sprout', head_numbering: HEAD_NUMBERING, ...JSON.parse(r.stdout), ...extra };
  await measureText(card, Number(seed), before, weights);
  return card;
}

// The compact format's card set against f32's: each acceptance criterion (in the same order; a criterion that
// names a head carries the head its own card chose) and the validation loss, with the differences.
export function formatChanges(f32, other) {
  const criteria = f32.acceptance.map((a, i) => {
    const b = other.acceptance[i];
    return { criterion: a.criterion, ...(b.criterion !== a.criterion ? { as_measured: b.criterion } : {}),
      f32: a.value, value: b.value, diff: b.value - a.value, pass: b.pass };
  });
  return { validation_loss_nats: other.validation.sprout.loss_nats,
    validation_loss_diff: other.validation.sprout.loss_nats - f32.validation.sprout.loss_nats, criteria };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tool = `${root}.build/native/lookback-eval`;
  if (!existsSync(tool)) fail(`${tool} is missing; run \`npm run build\``);
  if (!existsSync(`${SPROUT}/model.safetensors`)) fail(`no trained Sprout in ${SPROUT}; run \`npm run train\``);
  const training = existsSync(`${SPROUT}/training.json`) ? JSON.parse(readFileSync(`${SPROUT}/training.json`, 'utf8')) : null;
  const seed = String(training?.recipe?.corpus_seed ?? 1);
  const args = ['--sprout', SPROUT, '--seed', seed, ...(existsSync(`${WINDOW}/model.safetensors`) ? ['--window', WINDOW] : [])];
  const { before, rest } = options(process.argv.slice(2));
  const card = await measure(tool, [...args, ...rest], seed, before, 'f32', { training, files: checksums(SPROUT) });
  card.weight_formats = { about: 'the card measured again with Sprout loaded in each compact format (loadModel(src, { weights })); diff = that value minus f32\'s' };
  for (const weights of ['f16', 'q8']) {
    card.weight_formats[weights] = formatChanges(card, await measure(tool, [...args, ...rest], seed, null, weights));
    console.log(`eval: ${weights} measured`);
  }
  if (existsSync(`${WINDOW}/model.safetensors`)) card.window_files = checksums(WINDOW);
  writeFileSync(`${SPROUT}/card.json`, `${JSON.stringify(card, null, 2)}\n`);
  writeFileSync(`${SPROUT}/card.md`, summary(card));
  console.log(summary(card));
  const failed = card.acceptance.filter((a) => !a.pass);
  console.log(failed.length ? `eval: ${failed.length} acceptance criteria not met` : 'eval: every acceptance criterion met');
}
