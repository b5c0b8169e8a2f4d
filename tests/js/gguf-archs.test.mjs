// node:test tests of the GGUF architectures against an independent float64 reference: for llama, qwen2 (q/k/v
// biases, half-a-head rotary pairs), qwen3 (q/k norms, a head size from key_length) and gpt2 (learned positions,
// LayerNorm with bias, one fused attn_qkv, tanh-GELU MLP with biases; head tied or separate), a GGUF written here
// from random weights (tests/js/gguf-writer.mjs) is run by lb.loadModel and by tests/python/gguf_reference.py
// (numpy, its own GGUF parser, each architecture as llama.cpp defines it); the logits agree. Then what is refused.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { modelGguf } from './gguf-writer.mjs';
import { python } from './listing-check.mjs';

const REFERENCE = fileURLToPath(new URL('../python/gguf_reference.py', import.meta.url));
const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-gguf-archs-'));
after(() => rm(dir, { recursive: true, force: true }));

const BASE = {
  arch: 'test', dim: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, hidden_dim: 48, vocab_size: 300,
  max_seq_len: 64, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 1, eos_id: 2,
};
const ARCHS = {
  llama: BASE,
  qwen2: { ...BASE, rope_layout: 'half', qkv_bias: true, tied_embeddings: true, rope_theta: 1000000, norm_eps: 1e-6 },
  // a head size (16) other than dim / n_heads (8), as Qwen3's key_length gives it
  qwen3: { ...BASE, rope_layout: 'half', qk_norm: true, head_dim: 16, norm_eps: 1e-6 },
  gpt2: {
    ...BASE, n_kv_heads: 4, norm: 'layer', positions: 'learned', mlp: 'gelu_tanh', qkv_bias: true, out_bias: true,
    mlp_bias: true, tied_embeddings: true,
  },
  'gpt2 (separate head)': {
    ...BASE, n_kv_heads: 4, norm: 'layer', positions: 'learned', mlp: 'gelu_tanh', qkv_bias: true, out_bias: true,
    mlp_bias: true,
  },
};
const IDS = [1, 40, 77, 299, 5, 40, 77, 12, 260, 3, 150, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 299];

function reference(path, ids) {
  const r = python(REFERENCE, { args: [path, JSON.stringify(ids)], cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).logits;
}

for (const [name, config] of Object.entries(ARCHS)) {
  test(`a ${name} GGUF gives the float64 reference's logits`, async () => {
    const arch = name.split(' ')[0];
    const path = join(dir, `${arch}-${config.tied_embeddings ? 'tied' : 'head'}.gguf`);
    await writeFile(path, modelGguf(arch, config, lb.randomWeights(config, { seed: 31 })));
    const m = await lb.loadModel(path);
    try {
      assert.equal(m.info.format, 'gguf');
      for (const k of ['dim', 'n_layers', 'n_heads', 'n_kv_heads', 'head_dim', 'hidden_dim', 'vocab_size', 'max_seq_len'])
        assert.equal(m.info.config[k], config[k], k);
      const got = m.forward(IDS).logits, want = reference(path, IDS).flat();
      assert.equal(got.length, want.length);
      // float32 products against float64: within 1e-4 of the largest logit (they differ by ~1e-6 here)
      const scale = Math.max(...want.map(Math.abs));
      const err = Math.max(...want.map((x, i) => Math.abs(got[i] - x)));
      assert.ok(err <= 1e-4 * scale, `${name}: max |logit - reference| ${err} (largest logit ${scale})`);
    } finally {
      m.dispose();
    }
  });
}

test('an architecture lookback does not run is refused naming the key and its value', async () => {
  const bytes = Buffer.from(modelGguf('qwen2', ARCHS.qwen2, lb.randomWeights(ARCHS.qwen2, { seed: 3 })));
  const at = bytes.indexOf('qwen2');  // general.architecture's value, the first string "qwen2" in the file
  bytes.write('mamba', at);
  await assert.rejects(lb.loadModel(bytes), /general\.architecture is "mamba"; lookback runs GGUF architectures: llama, qwen2, qwen3, gpt2/);
});

test('the list of formats names every GGUF architecture and tokenizer lookback runs', () => {
  const gguf = lb.modelFormats().formats.find((f) => f.name === 'gguf');
  for (const arch of Object.keys(ARCHS).map((name) => name.split(' ')[0])) assert.match(gguf.files, new RegExp(`\\b${arch}\\b`), arch);
  assert.match(gguf.files, /llama \(sentencepiece-style\) or gpt2 \(byte-level BPE\) tokenizer/);
  assert.match(lb.modelFormats().supported, /architectures llama, qwen2, qwen3 and gpt2/);
});
