// node:test tests of modelSource (web/js/widgets/model-files.js), which turns the files a reader drops into
// what loadModel takes by the core's list of formats: a safetensors bundle written here by randomWeights(), the
// llama2.c stories260K files from shared/models/stories260K, a GGUF from tests/js/gguf-writer.mjs, and the
// messages for files that are not a model.
// Each accepted source is loaded through the JS API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { accepted, hint, modelSource as pick } from '../../web/js/widgets/model-files.js';
import { llamaGguf, llamaVocabulary } from './gguf-writer.mjs';

const lb = await loadLookback();
const { formats } = lb.modelFormats();
const modelSource = (files) => pick(files, formats);
const enc = (s) => new TextEncoder().encode(s);
const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 6, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 32, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: true, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const bundle = () => [
  { name: 'model.safetensors', bytes: lb.randomWeights(CONFIG, { seed: 3 }) },
  { name: 'config.json', bytes: enc(JSON.stringify(CONFIG)) },
  { name: 'tokenizer.json', bytes: enc(TOKENIZER) },
];

const LLAMA = { ...CONFIG, dim: 32, n_heads: 4, n_kv_heads: 4, head_dim: 8, hidden_dim: 64, vocab_size: 300, qk_norm: false, bos_id: 1, eos_id: 2 };

const STORIES = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));

test('a safetensors bundle from randomWeights(), in any order, loads', async () => {
  const { source, label } = modelSource(bundle().reverse());
  assert.equal(label, 'model.safetensors');
  const m = await lb.loadModel(source);
  assert.equal(m.info.config.n_layers, 2);
  assert.equal(m.next('ab', { topK: 3 }).length, 3);
  m.dispose();
});

test('stories260K.bin with tok512.bin loads', async () => {
  const files = ['tok512.bin', 'stories260K.bin'].map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(STORIES, name))) }));
  const { source, label } = modelSource(files);
  assert.equal(label, 'stories260K.bin');
  const m = await lb.loadModel(source);
  assert.equal(m.info.tokenizer, 'llama2c');
  assert.equal(m.info.config.n_layers, 5);
  m.dispose();
});

test('a .gguf alone loads: its tokenizer comes from the file, its storage from its tensor types', async () => {
  const gguf = { name: 'tiny.gguf', bytes: llamaGguf(LLAMA, lb.randomWeights(LLAMA, { seed: 4 }), 'Q8_0') };
  const { source, label } = modelSource([gguf]);
  assert.equal(label, 'tiny.gguf');
  assert.deepEqual(Object.keys(source), ['weights']);
  const m = await lb.loadModel(source);
  assert.equal(m.info.format, 'gguf');
  assert.equal(m.info.weights, 'q8');
  assert.deepEqual(m.encode('the', { bos: false }), [llamaVocabulary(LLAMA.vocab_size).tokens.indexOf('▁the')]);
  m.dispose();
});

test('files that are not a model say what is missing', () => {
  const [weights, config] = bundle();
  assert.throws(() => modelSource([]), /No file/);
  assert.throws(() => modelSource([weights]), /model\.safetensors needs config\.json and tokenizer\.json/);
  assert.throws(() => modelSource([weights, config]), /needs tokenizer\.json/);
  assert.throws(() => modelSource([{ name: 'stories.bin', bytes: new Uint8Array(8) }]), /needs its tokenizer \.bin/);
  assert.throws(() => modelSource([{ name: 'a.bin', bytes: new Uint8Array(8) }, { name: 'b.bin', bytes: new Uint8Array(8) }]),
    /Cannot tell the checkpoint from the tokenizer/);
  assert.throws(() => modelSource([{ name: 'notes.txt', bytes: enc('hi') }]), /notes\.txt: not a model/);
});

test('a wrong file passes modelSource but the loader refuses it with its own message', async () => {
  const { source } = modelSource([{ name: 'model.bin', bytes: enc('not a checkpoint at all') }, { name: 'tok.bin', bytes: new Uint8Array(16) }]);
  await assert.rejects(lb.loadModel(source), (err) => err instanceof Error && err.message.length > 10);
  assert.equal(lb.dot([1, 2], [3, 4]), 11, 'the module stays usable');
});

test('the hint and the accept list come from the core\'s formats, and a new format\'s files are picked by its entry', () => {
  assert.equal(hint(formats), 'pick a .safetensors file with its config.json and tokenizer.json, or a .gguf file, or a .bin checkpoint with its tokenizer .bin');
  assert.equal(accepted(formats), '.safetensors,.json,.gguf,.bin');
  // a format whose one file holds everything (as GGUF does): no tokenizer, no config
  const one = [...formats, { name: 'one-file', files: 'one-file models', weights: '.one', config: false, tokenizer: '' }];
  assert.deepEqual(pick([{ name: 'm.one', bytes: new Uint8Array(3) }], one).label, 'm.one');
  assert.match(hint(one), /, or a \.one file$/);
});
