// A reader's own model for the browser tests: random weights with their own head count (unlike Sprout's), written
// to a temporary folder as the reader would have them: a .safetensors file with its config.json and tokenizer.json
// (2 layers × 3 heads), or one .gguf file that holds its tokenizer (a llama GGUF with Q8_0 matrices and a
// sentencepiece-style vocabulary, 2 layers × 4 heads; a gpt2 GGUF with a byte-level BPE tokenizer, 2 layers × 5
// heads), and the steps that drop them into the page's file picker (the "Use your own model" box of
// lookback-next-token). Not a test file (the runner only picks *.test.mjs).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gpt2Tokenizer, modelGguf } from '../js/gguf-writer.mjs';
import { EOT, byteLevelTokenizer } from '../js/hf-folders.mjs';
import { ready, until } from './widget-helpers.mjs';

export const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 3, n_kv_heads: 3, head_dim: 8, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 512, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });

// llama: rows of 32 values in every matrix (ggml's quantised blocks are 32 wide), grouped-query attention; the
// vocabulary of gguf-writer.mjs (<unk>, <s>, </s>, 256 byte pieces, words)
const LLAMA = { ...CONFIG, dim: 32, n_heads: 4, n_kv_heads: 2, hidden_dim: 64, vocab_size: 300, bos_id: 1, eos_id: 2 };
// gpt2: learned positions, LayerNorm, biases, tanh-GELU; the byte-level BPE tokenizer of hf-folders.mjs (the 256
// bytes, three merges, <|endoftext|>) as llama.cpp's converter writes it
const GPT2 = {
  ...CONFIG, dim: 40, n_heads: 5, n_kv_heads: 5, hidden_dim: 64, vocab_size: EOT + 1, max_seq_len: 256,
  norm: 'layer', positions: 'learned', mlp: 'gelu_tanh', qkv_bias: true, out_bias: true, mlp_bias: true,
  tied_embeddings: true, bos_id: EOT, eos_id: EOT,
};

// name -> { config, files: [[file name, bytes of (lb, seed)]] } (the first file is the weights)
export const READER_MODELS = {
  safetensors: { config: CONFIG, files: [['model.safetensors', (lb, seed) => lb.randomWeights(CONFIG, { seed })],
    ['config.json', () => JSON.stringify(CONFIG)], ['tokenizer.json', () => TOKENIZER]] },
  'llama GGUF (Q8_0, sentencepiece)': { config: LLAMA, files: [['tiny-llama-q8_0.gguf',
    (lb, seed) => modelGguf('llama', LLAMA, lb.randomWeights(LLAMA, { seed }), 'Q8_0')]] },
  'gpt2 GGUF (byte-level BPE)': { config: GPT2, files: [['tiny-gpt2.gguf', (lb, seed) => modelGguf('gpt2', GPT2,
    lb.randomWeights(GPT2, { seed }), 'F16', gpt2Tokenizer(byteLevelTokenizer(), 'gpt-2', { bos: EOT, eos: EOT }))]] },
};

// Writes the named model (lb: the Node API) -> { config, label (the name the page gives it: the weights file's),
// weights (its path), paths (its files), remove() }.
export function writeReaderModel(lb, { seed, model = 'safetensors' }) {
  const { config, files } = READER_MODELS[model];
  const dir = mkdtempSync(join(tmpdir(), 'lookback-own-'));
  const paths = files.map(([name, bytes]) => {
    writeFileSync(join(dir, name), bytes(lb, seed));
    return join(dir, name);
  });
  return { config, label: files[0][0], weights: paths[0], paths, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// Drops the files (writeReaderModel's) into the page's picker and waits until the page uses the model; returns the
// picker's widget.
export async function useReaderModel(page, files) {
  const picker = await ready(page, 'lookback-next-token');
  if (!(await picker.locator('details.own').evaluate((d) => d.open))) await picker.locator('details.own summary').click();
  await picker.locator('input[type=file]').setInputFiles(files.paths);
  await until(() => picker.locator('.model-name').textContent(), (v) => v === files.label, 'the reader\'s model loaded', 30000);
  return picker;
}
