// `npm run train`: the whole, reproducible path from nothing to the shipped models. Generates the story corpus
// (seed 1), trains the byte-level BPE tokenizer, encodes the splits, trains Sprout and the window model with the
// native trainer (fixed step counts, so the same command gives the same weights on the same thread count), and
// exports shared/models/window and shared/models/sprout with training.json beside them. Interrupted? Run it
// again: finished stages are skipped and training resumes from its last checkpoint.
// Not the evaluation (`npm run eval` writes the model card afterwards).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => `${root}.build/native/lookback-${name}`;
const work = `${root}.build/train-run`;
const data = `${work}/data`;
const SAMPLER = `${root}shared/models/stories260K`;  // the llama2.c model the mixed-in stories are sampled from

// Everything that decides the weights. Changing any value retrains from scratch (the stamp differs).
export const RECIPE = {
  corpus_seed: 1, train_stories: 120000, validation_stories: 2000, vocab: 3072,
  // Stories sampled from llama2.c's stories260K (shared/models/stories260K), one after every `every` generated
  // training stories: plain TinyStories-like phrasing beside the generator's structure. The tokenizer counts them.
  samples: { stories: 40000, seed: 7, temperature: 0.9, top_p: 0.95, every: 5 },
  // The share of sampled stories that get an object recall wrapped around them (lookback-corpus --wrap): a child
  // in the story gets a thing early and uses it at the end, with the sample's own plain text in between.
  wrap_share: 0.8,
  // The recall's surface forms (lookback-corpus --wrap-frames): 1, the ~20 frames the shipped Sprout learned from;
  // 2, many more verbs that get and use the thing, cues ("her", "the little", "my"/"your" in dialogue, "their"),
  // other things between and just before the recall, and shorter gaps; 3, frames 2 for half the stories and, for the
  // other half, a recall of a thing the sampled story itself names. Absent means 1. (A fine-tune test of 2 and 3 is
  // in web/docs/models.md: they are learned but barely move recall on hand-written stories.)
  wrap_frames: 1,
  // Sprout in the full config (8 layers of 6 heads of 32, width 192, MLP 512). A `shape` here
  // (lookback-train --config, e.g. 'layers=5,hidden=384') would change its sizes.
  sprout: { steps: 4500, batch: 16, lr: 2e-3, warmup: 200, seed: 2, threads: 2, drill_share: 0.1 },
  window: { steps: 1600, batch: 16, lr: 3e-3, warmup: 100, seed: 1, threads: 2, drill_share: 0.1 },
};

function run(cmd, args, { log } = {}) {
  console.log(`train: ${[cmd.replace(root, ''), ...args.map((a) => a.replace(root, ''))].join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status === 3) {
    console.error('train: stopped before the last step; `npm run train` again resumes from the checkpoint');
    process.exit(1);
  }
  if (r.status !== 0) {
    console.error(`train: ${cmd} failed (exit ${r.status ?? r.signal})${log ? `; see ${log}` : ''}`);
    process.exit(1);
  }
}

// The C++ that decides the weights: exactly the sources and headers compiled into the tools a stage runs. The
// linker's map (CMakeLists.txt writes .build/native/lookback-NAME.map) names the objects each tool is made of;
// the compiler's dependency file beside each object names its source and every header it read. Their contents,
// hashed, are part of the stage's stamp: a change to the corpus generator, tokenizer, trainer or the model maths
// they use retrains, while a change anywhere else in wasm/ (bindings, readers the tools never link) does not.
export function weightSources(tools) {
  const build = `${root}.build/native`;
  const files = new Set();
  for (const tool of tools) {
    const map = `${build}/lookback-${tool}.map`;
    if (!existsSync(map)) throw new Error(`${map} is missing; run \`npm run build\``);
    const objects = [`CMakeFiles/lookback-${tool}.dir/wasm/tools/${tool}.cpp.o`];
    // "…/liblookback_core.a(bpe.cpp.o)": an archive member the link pulled in.
    for (const m of readFileSync(map, 'utf8').matchAll(/lib(lookback_\w+)\.a\(([^)]+\.o)\)/g)) {
      for (const dep of findDepfiles(`${build}/CMakeFiles/${m[1]}.dir`, m[2])) objects.push(dep.slice(build.length + 1, -2));
    }
    for (const o of objects) {
      const depfile = `${build}/${o}.d`;
      if (!existsSync(depfile)) throw new Error(`${depfile} is missing; run \`npm run build\``);
      const deps = readFileSync(depfile, 'utf8').replace(/\\\n/g, ' ').split(':').slice(1).join(':').trim().split(/\s+/);
      for (const d of deps) {
        const abs = resolve(build, d);
        if (abs.startsWith(root)) files.add(abs.slice(root.length));
      }
    }
  }
  const hash = createHash('sha256');
  const list = [...files].sort();
  for (const f of list) hash.update(`${f}\0`).update(readFileSync(`${root}${f}`)).update('\0');
  return { files: list, sha256: hash.digest('hex') };
}

// The dependency files of every object named `object` under a target's CMakeFiles folder.
function findDepfiles(dir, object) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${d}/${e.name}`);
      else if (e.name === `${object}.d`) out.push(`${d}/${e.name}`);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

// Writes `out`: the lines of `main`, with the next line of `extra` after every `every` of them (the rest of
// `extra`, if any, at the end). Deterministic, so the mixed file depends only on its inputs.
export function mixLines(main, extra, every, out) {
  const a = readFileSync(main, 'utf8').split('\n').filter(Boolean);
  const b = readFileSync(extra, 'utf8').split('\n').filter(Boolean);
  const lines = [];
  let j = 0;
  a.forEach((line, i) => {
    lines.push(line);
    if ((i + 1) % every === 0 && j < b.length) lines.push(b[j++]);
  });
  lines.push(...b.slice(j));
  writeFileSync(out, `${lines.join('\n')}\n`);
  return { main: a.length, extra: b.length };
}

// sha256 over the bytes of the given files.
function fileHash(...files) {
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(f));
  return hash.digest('hex');
}

// Runs a stage unless its stamp file records the same recipe.
function stage(name, recipe, fn) {
  const stamp = `${work}/${name}.done.json`;
  const want = JSON.stringify(recipe);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) {
    console.log(`train: ${name}: already done`);
    return;
  }
  const started = Date.now();
  fn();
  writeFileSync(stamp, want);
  const timings = existsSync(`${work}/minutes.json`) ? JSON.parse(readFileSync(`${work}/minutes.json`, 'utf8')) : {};
  timings[name] = Number(((Date.now() - started) / 60000).toFixed(1));
  writeFileSync(`${work}/minutes.json`, `${JSON.stringify(timings)}\n`);
}

// Adds each stage's minutes of its last run (and their sum: the whole `npm run train`) to a training.json.
function addStageMinutes(kind) {
  const file = `${root}shared/models/${kind}/training.json`;
  if (!existsSync(file) || !existsSync(`${work}/minutes.json`)) return;
  const stages = JSON.parse(readFileSync(`${work}/minutes.json`, 'utf8'));
  const t = JSON.parse(readFileSync(file, 'utf8'));
  t.stage_minutes_last_run = stages;
  t.total_minutes_last_run = Number(Object.values(stages).reduce((a, b) => a + b, 0).toFixed(1));
  writeFileSync(file, `${JSON.stringify(t, null, 2)}\n`);
}

// Trains one model; resumes only a checkpoint made with the same recipe (else starts afresh).
function trainModel(kind, r, stampRecipe) {
  const out = `${work}/${kind}`;
  const recipeFile = `${out}/recipe.json`;
  const want = JSON.stringify(stampRecipe);
  const resumable = existsSync(`${out}/checkpoint.bin`) && existsSync(recipeFile) && readFileSync(recipeFile, 'utf8') === want;
  if (!resumable && existsSync(out)) {
    console.log(`train: ${kind}: the checkpoint in ${out.replace(root, '')} is from another recipe; starting afresh`);
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(recipeFile, want);
  const args = ['--model', kind, ...(r.shape ? ['--config', r.shape] : []), '--data', `${data}/train.bin`, '--val', `${data}/validation.bin`,
    '--tokenizer', `${data}/tokenizer.json`, '--vocab', String(RECIPE.vocab), '--out', out, '--export', `${root}shared/models/${kind}`,
    '--steps', String(r.steps), '--batch', String(r.batch), '--lr', String(r.lr), '--warmup', String(r.warmup),
    '--seed', String(r.seed), '--threads', String(r.threads), '--drill-share', String(r.drill_share),
    '--log-every', '20', '--val-every', '200'];
  if (resumable) args.push('--resume');
  const started = Date.now();
  run(bin('train'), args, { log: `${out}/train.log` });
  const minutes = (Date.now() - started) / 60000;
  const commit = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim() || 'unknown';
  writeFileSync(`${root}shared/models/${kind}/training.json`, `${JSON.stringify({
    command: 'npm run train', source_commit: commit, recipe: { corpus_seed: RECIPE.corpus_seed, train_stories: RECIPE.train_stories, vocab: RECIPE.vocab, samples: RECIPE.samples, wrap_share: RECIPE.wrap_share, wrap_frames: RECIPE.wrap_frames, ...r },
    // sha256 of the sources compiled into the corpus and tokenizer tools and into the trainer (weightSources)
    weight_sources: { samples: stampRecipe.corpus.samples.source, corpus_and_tokenizer: stampRecipe.corpus.source, trainer: stampRecipe.source },
    trainer_args: args.filter((a) => a !== '--resume').map((a) => a.replace(root, '')),
    wall_minutes_last_run: Number(minutes.toFixed(1)),
    loss_curve: `${out.replace(root, '')}/loss.csv`,
  }, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(data, { recursive: true });
  // The sampled stories are their own stage: a change to the generator or tokenizer does not resample them.
  const sm = RECIPE.samples;
  const samples = { ...sm, sampler: fileHash(`${SAMPLER}/stories260K.bin`, `${SAMPLER}/tok512.bin`),
    source: weightSources(['sample']).sha256 };
  stage('samples', samples, () => {
    run(bin('sample'), ['--model', `${SAMPLER}/stories260K.bin`, '--tokenizer', `${SAMPLER}/tok512.bin`,
      '--stories', String(sm.stories), '--seed', String(sm.seed), '--temperature', String(sm.temperature),
      '--top-p', String(sm.top_p), '--threads', String(RECIPE.sprout.threads), '--out', `${data}/samples.txt`]);
  });
  const corpus = { seed: RECIPE.corpus_seed, train: RECIPE.train_stories, validation: RECIPE.validation_stories, vocab: RECIPE.vocab,
    samples, wrap_share: RECIPE.wrap_share, ...(RECIPE.wrap_frames !== 1 ? { wrap_frames: RECIPE.wrap_frames } : {}),
    source: weightSources(['corpus', 'bpe']).sha256 };
  stage('data', corpus, () => {
    const seed = String(RECIPE.corpus_seed);
    run(bin('corpus'), ['--seed', seed, '--split', 'train', '--stories', String(RECIPE.train_stories), '--out', `${data}/generated.txt`]);
    run(bin('corpus'), ['--seed', seed, '--split', 'validation', '--stories', String(RECIPE.validation_stories), '--out', `${data}/validation.txt`]);
    run(bin('corpus'), ['--seed', seed, '--wrap', `${data}/samples.txt`, '--wrap-share', String(RECIPE.wrap_share),
      '--wrap-frames', String(RECIPE.wrap_frames ?? 1), '--out', `${data}/wrapped.txt`]);
    mixLines(`${data}/generated.txt`, `${data}/wrapped.txt`, sm.every, `${data}/train.txt`);
    run(bin('bpe'), ['--train', `${data}/generated.txt`, '--also', `${data}/wrapped.txt`, '--vocab', String(RECIPE.vocab), '--out', `${data}/tokenizer.json`]);
    for (const split of ['train', 'validation']) {
      run(bin('bpe'), ['--tokenizer', `${data}/tokenizer.json`, '--encode-corpus', `${data}/${split}.txt`, '--out', `${data}/${split}.bin`]);
    }
  });
  const trainerSource = weightSources(['train']).sha256;
  for (const kind of ['sprout', 'window']) {
    const recipe = { corpus, ...RECIPE[kind], source: trainerSource };
    stage(kind, recipe, () => trainModel(kind, RECIPE[kind], recipe));
  }
  for (const kind of ['sprout', 'window']) addStageMinutes(kind);
  console.log('train: done; the models are in shared/models/. Next: `npm run eval` writes the model card.');
}
