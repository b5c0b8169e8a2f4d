// Hugging Face folders of GPT-2, Qwen2, Qwen3 and Llama with llama3 rope scaling, written with random weights in
// transformers' own names and layouts (tests/js/hf-folders.mjs), loaded with lb.loadModel(folder): the float32
// logits against a float64 numpy forward pass written from each architecture's definition
// (tests/python/hf_reference.py). Not the readers' refusals (tests/js/hf-model.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { python } from './listing-check.mjs';
import { ARCHITECTURES, VOCAB, writeHfFolder } from './hf-folders.mjs';

const lb = await loadLookback();
const REFERENCE = fileURLToPath(new URL('../python/hf_reference.py', import.meta.url));
// 24 ids spread over the vocabulary (past Llama 3's original context of 16 in the llama3 folder)
const IDS = Array.from({ length: 24 }, (_, i) => (i * 97 + 13) % VOCAB);
// float32 arithmetic against float64 over two layers of width 32: the largest |logit| is 2 to 16 here, the
// largest difference measured 8e-7 to 5e-6, and the most allowed 1e-4
const TOLERANCE = 1e-4;

let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-hfref-')); });
after(() => rm(dir, { recursive: true, force: true }));

// numpy's float64 logits [T][V] of the folder on `ids`
export function referenceLogits(folder, ids) {
  const r = python(REFERENCE, { args: [folder, ...ids.map(String)], cwd: folder });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).logits;
}

// largest |lookback - reference| over every position and token
export function largestDifference(logits, reference) {
  const V = reference[0].length;
  let worst = 0;
  reference.forEach((row, t) => row.forEach((x, v) => { worst = Math.max(worst, Math.abs(logits[t * V + v] - x)); }));
  return worst;
}

for (const arch of Object.keys(ARCHITECTURES)) {
  test(`${arch}: lookback's logits equal the float64 numpy reference within ${TOLERANCE}`, async () => {
    const folder = await writeHfFolder(join(dir, arch), arch, { seed: 7 });
    const model = await lb.loadModel(folder);
    assert.equal(model.info.format, 'hf');
    const out = model.forward(IDS);
    assert.deepEqual(out.ids, IDS);
    const reference = referenceLogits(folder, IDS);
    const scale = Math.max(...reference.flat().map(Math.abs));
    assert.ok(scale > 1, `the logits are not all near zero (largest ${scale})`);
    const worst = largestDifference(out.logits, reference);
    assert.ok(worst <= TOLERANCE, `${arch}: largest logit difference ${worst} (largest logit ${scale})`);
    model.dispose();
  });
}
