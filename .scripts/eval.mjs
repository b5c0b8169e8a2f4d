// `npm run eval`: measures the shipped Sprout and window models with the native evaluator (lookback-eval) and
// writes the model card: shared/models/sprout/card.json (every number measured, plus the checksums of the
// shipped files) and card.md (a readable summary). Nothing in the card is typed by hand.
// Not the evaluator itself (wasm/src/train/evaluate.cpp) and not training (.scripts/train.mjs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

function summary(card) {
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
    `- Made-up names (${n.probes} probes): per-token loss ${fmt(n.first_loss_nats)} nats the first time, ${fmt(n.second_loss_nats)} the second time.`,
    `- Repeated random tokens: loss ${fmt(card.induction_test.first_half_loss_nats)} nats on the first half, ${fmt(card.induction_test.second_half_loss_nats)} on the repeat.`,
    '', '## Heads (best three of each habit; even spread in brackets)', '',
    ...['previous_token', 'start_mark', 'four_or_more_back', 'induction', 'start_mark_on_random_tokens', 'previous_token_on_random_tokens', 'pronoun_to_name', 'pronoun_to_every_mention'].map((k) =>
      `- ${k.replaceAll('_', ' ')} (${fmt(h[k].even)}): ${h[k].best.map((b) => `${b.head} ${fmt(b.score)}`).join(', ')}`),
    '', '## Files', '', '| file | bytes | sha256 |', '|---|---|---|',
    ...Object.entries(card.files).map(([f, x]) => `| ${f} | ${x.bytes} | ${x.sha256} |`),
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tool = `${root}.build/native/lookback-eval`;
  if (!existsSync(tool)) fail(`${tool} is missing; run \`npm run build\``);
  if (!existsSync(`${SPROUT}/model.safetensors`)) fail(`no trained Sprout in ${SPROUT}; run \`npm run train\``);
  const training = existsSync(`${SPROUT}/training.json`) ? JSON.parse(readFileSync(`${SPROUT}/training.json`, 'utf8')) : null;
  const seed = String(training?.recipe?.corpus_seed ?? 1);
  const args = ['--sprout', SPROUT, '--seed', seed, ...(existsSync(`${WINDOW}/model.safetensors`) ? ['--window', WINDOW] : [])];
  const r = spawnSync(tool, [...args, ...process.argv.slice(2)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) fail(`lookback-eval failed: ${r.stderr.trim()}`);
  const card = { model: 'sprout', ...JSON.parse(r.stdout), training, files: checksums(SPROUT) };
  if (existsSync(`${WINDOW}/model.safetensors`)) card.window_files = checksums(WINDOW);
  writeFileSync(`${SPROUT}/card.json`, `${JSON.stringify(card, null, 2)}\n`);
  writeFileSync(`${SPROUT}/card.md`, summary(card));
  console.log(summary(card));
  const failed = card.acceptance.filter((a) => !a.pass);
  console.log(failed.length ? `eval: ${failed.length} acceptance criteria not met` : 'eval: every acceptance criterion met');
}
