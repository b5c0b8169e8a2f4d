// A reader's own model for the browser tests: random weights with their own head count (2 layers × 3 heads,
// unlike Sprout) written to a temporary folder as a .safetensors file with its config.json and tokenizer.json, and
// the steps that drop them into the page's file picker (the "Use your own model" box of lookback-next-token).
// Not a test file (the runner only picks *.test.mjs).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ready, until } from './widget-helpers.mjs';

export const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 3, n_kv_heads: 3, head_dim: 8, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 512, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const NAMES = ['model.safetensors', 'config.json', 'tokenizer.json'];

// Writes the model (lb: the Node API) -> { weights (its path), paths (the three files), remove() }.
export function writeReaderModel(lb, { seed }) {
  const dir = mkdtempSync(join(tmpdir(), 'lookback-own-'));
  const data = [lb.randomWeights(CONFIG, { seed }), JSON.stringify(CONFIG), TOKENIZER];
  const paths = NAMES.map((name, i) => {
    writeFileSync(join(dir, name), data[i]);
    return join(dir, name);
  });
  return { weights: paths[0], paths, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// Drops the files into the page's picker and waits until the page uses the model; returns the picker's widget.
export async function useReaderModel(page, paths) {
  const picker = await ready(page, 'lookback-next-token');
  await picker.locator('details.own summary').click();
  await picker.locator('input[type=file]').setInputFiles(paths);
  await until(() => picker.locator('.model-name').textContent(), (v) => v === 'model.safetensors', 'the reader\'s model loaded', 30000);
  return picker;
}
