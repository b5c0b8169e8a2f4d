// node:test tests of the training recipe's stamp (.scripts/train.mjs weightSources): it covers exactly the sources
// compiled into the corpus, tokenizer and trainer tools, read from the native build's link maps and dependency
// files, so that editing code the tools never link (bindings, the JS API, other readers) does not force a retrain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mixLines, weightSources } from '../../.scripts/train.mjs';

test('the corpus stage is stamped by the generator and tokenizer sources only', () => {
  const { files, sha256 } = weightSources(['corpus', 'bpe']);
  for (const f of ['wasm/src/train/corpus.cpp', 'wasm/src/train/bpe_train.cpp', 'wasm/tools/corpus.cpp', 'wasm/tools/bpe.cpp']) {
    assert.ok(files.includes(f), `${f} decides the corpus or tokenizer`);
  }
  assert.ok(!files.some((f) => f.startsWith('wasm/bindings/') || f.includes('trainer')), files.join(', '));
  assert.match(sha256, /^[0-9a-f]{64}$/);
});

test('the training stage is stamped by the trainer and the model maths it links', () => {
  const { files } = weightSources(['train']);
  for (const f of ['wasm/src/train/trainer.cpp', 'wasm/src/train/ops.cpp', 'wasm/src/train/model.cpp', 'wasm/tools/train.cpp',
    'wasm/include/lookback/kernels.hpp']) {
    assert.ok(files.includes(f), `${f} decides the weights`);
  }
  for (const f of ['wasm/src/model/head_scores.cpp', 'wasm/src/model/llama2c.cpp', 'wasm/src/train/corpus.cpp']) {
    assert.ok(!files.includes(f), `${f} is not linked into the trainer`);
  }
  assert.ok(!files.some((f) => f.startsWith('wasm/bindings/')), files.join(', '));
});

test('the stamp is the same on every call (no time or path in it)', () => {
  assert.equal(weightSources(['train']).sha256, weightSources(['train']).sha256);
});

test('the sampled stories depend on the sampler alone, not on the runtime it is independent of', () => {
  const { files } = weightSources(['sample']);
  assert.ok(files.includes('wasm/tools/sample.cpp'));
  assert.ok(!files.some((f) => f.startsWith('wasm/src/kernels/') || f === 'wasm/src/model/transformer.cpp'), files.join(', '));
});

test('mixLines puts one extra line after every n main lines, the rest at the end', async () => {
  const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(`${tmpdir()}/lookback-mix-`);
  writeFileSync(`${dir}/a`, 'a1\na2\na3\na4\na5\n');
  writeFileSync(`${dir}/b`, 'b1\nb2\nb3\n');
  assert.deepEqual(mixLines(`${dir}/a`, `${dir}/b`, 2, `${dir}/out`), { main: 5, extra: 3 });
  assert.equal(readFileSync(`${dir}/out`, 'utf8'), 'a1\na2\nb1\na3\na4\nb2\na5\nb3\n');
});
