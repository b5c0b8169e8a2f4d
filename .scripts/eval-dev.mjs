// `node .scripts/eval-dev.mjs [MODEL_DIR ...]`: a quick look at a Sprout bundle (default shared/models/sprout)
// on the development sets only, for comparing candidate models without writing a card: object recall top-1 on
// shared/probes/handwritten-dev.json and handwritten-dev2.json (with the misses), the generator's criteria that
// lookback-eval measures (validation loss, previous-token head, generator recall), and generation (samples that
// repeat a sentence). Never reads a final set: those are for `npm run eval` of the model trained after them.
//   node .scripts/eval-dev.mjs .build/ft/new/export --json out.json
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../web/js/api/index.js';
import * as text from './eval-text.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const DEV_SETS = ['handwritten-dev.json', 'handwritten-dev2.json'];

function native(dir) {
  const r = spawnSync(`${root}.build/native/lookback-eval`, ['--sprout', dir, '--seed', '1'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`lookback-eval failed: ${r.stderr.trim()}`);
  const card = JSON.parse(r.stdout);
  const crit = (name) => card.acceptance?.find((a) => a.criterion === name)?.value;
  return {
    validation_loss: card.validation.sprout.loss_nats,
    previous_token_head: crit('best previous-token head'),
    generator_recall_top1: crit('object recall top-1, Sprout'),
    induction_head: crit('best induction head'),
    pronoun_head: crit('best pronoun-to-name head'),
  };
}

async function measure(lb, dir) {
  const model = await lb.loadModel(dir);
  const out = { model: dir.replace(root, '') };
  for (const file of DEV_SETS) {
    // the same verdict as the card's recall top-1: the most probable next token is the answer's first token
    const rows = text.showcase(model, { stories: text.readProbes(`${root}shared/probes/${file}`).recall });
    out[file] = { top1: rows.filter((r) => r.hit).length / rows.length,
      misses: rows.flatMap((r, i) => (r.hit ? [] : [{ probe: i, answer: r.answer, predicted: r.top }])) };
  }
  const g = text.generation(model);
  out.samples_repeating_a_sentence = g.samples_repeating_a_sentence;
  out.distinct_3gram_share = g.distinct_3gram_share;
  model.dispose();
  Object.assign(out, native(dir));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const j = args.indexOf('--json');
  const jsonOut = j >= 0 ? args.splice(j, 2)[1] : null;
  const dirs = args.length ? args : [`${root}shared/models/sprout`];
  const lb = await loadLookback();
  const rows = [];
  for (const dir of dirs) {
    if (!existsSync(`${dir}/model.safetensors`)) throw new Error(`no model.safetensors in ${dir}`);
    const r = await measure(lb, dir);
    rows.push(r);
    console.log(`${r.model}: dev ${r['handwritten-dev.json'].top1.toFixed(3)}, dev2 ${r['handwritten-dev2.json'].top1.toFixed(3)}, `
      + `val loss ${r.validation_loss.toFixed(4)}, previous-token head ${r.previous_token_head.toFixed(3)}, `
      + `generator recall ${r.generator_recall_top1.toFixed(3)}, repeats ${r.samples_repeating_a_sentence} of 20`);
  }
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(rows, null, 2)}\n`);
}
