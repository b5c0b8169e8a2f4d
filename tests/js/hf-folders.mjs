// Random-weight Hugging Face transformers folders for the tests: config.json, model.safetensors in the
// architecture's own tensor names and layouts (GPT-2's Conv1D [in, out] and fused c_attn, Qwen's biases and q/k
// norms), and a byte-level BPE tokenizer.json; optionally split into shards with model.safetensors.index.json.
// Written from transformers' conventions, not from lookback's tensors. Not a test file.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mulberry32 } from './reference.mjs';

// safetensors bytes of { name: { dtype, shape, bytes } } (header padded to 8 bytes, tensors in order)
export function writeST(tensors) {
  const header = {};
  let at = 0;
  for (const [name, v] of Object.entries(tensors)) {
    header[name] = { dtype: v.dtype, shape: v.shape, data_offsets: [at, at + v.bytes.length] };
    at += v.bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  let p = 8 + json.length;
  for (const v of Object.values(tensors)) {
    out.set(v.bytes, p);
    p += v.bytes.length;
  }
  return out;
}

// GPT-2's byte -> character table.
export const BYTE_CHAR = (() => {
  const table = [];
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    table.push(String.fromCodePoint(printable ? b : next++));
  }
  return table;
})();

export const VOCAB = 300;  // the models' vocabulary; the tokenizer has ids 0..259
export const EOT = 259;
// byte b has id b; merges " t", "he", " the" (256..258); <|endoftext|> 259
export function byteLevelTokenizer() {
  const vocab = {};
  BYTE_CHAR.forEach((c, b) => { vocab[c] = b; });
  Object.assign(vocab, { 'Ġt': 256, he: 257, 'Ġthe': 258 });
  return {
    version: '1.0',
    added_tokens: [{ id: EOT, content: '<|endoftext|>', special: true }],
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    decoder: { type: 'ByteLevel' },
    model: { type: 'BPE', vocab, merges: ['Ġ t', 'h e', 'Ġt he'] },
  };
}

// name -> F32 tensor of `shape` with values centre ± spread
function filler(seed) {
  const next = mulberry32(seed);
  return (shape, spread, centre = 0) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const values = Float32Array.from({ length: n }, () => centre + spread * (2 * next() - 1));
    return { dtype: 'F32', shape, bytes: new Uint8Array(values.buffer) };
  };
}

export const ARCHITECTURES = {
  gpt2: {
    config: {
      architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', n_embd: 32, n_head: 4, n_layer: 2, n_positions: 40,
      n_inner: null, vocab_size: VOCAB, layer_norm_epsilon: 1e-4, activation_function: 'gelu_new',
      bos_token_id: EOT, eos_token_id: EOT, tie_word_embeddings: true,
    },
    tensors(c, t) {
      const C = c.n_embd, F = 4 * C, s = 1 / Math.sqrt(C), out = {};
      out['transformer.wte.weight'] = t([c.vocab_size, C], 1);
      out['transformer.wpe.weight'] = t([c.n_positions, C], 0.5);
      for (let l = 0; l < c.n_layer; l++) {
        const p = `transformer.h.${l}.`;
        Object.assign(out, {
          [`${p}ln_1.weight`]: t([C], 0.2, 1), [`${p}ln_1.bias`]: t([C], 0.2),
          [`${p}attn.c_attn.weight`]: t([C, 3 * C], 2 * s), [`${p}attn.c_attn.bias`]: t([3 * C], 0.2),
          [`${p}attn.c_proj.weight`]: t([C, C], s), [`${p}attn.c_proj.bias`]: t([C], 0.2),
          [`${p}ln_2.weight`]: t([C], 0.2, 1), [`${p}ln_2.bias`]: t([C], 0.2),
          [`${p}mlp.c_fc.weight`]: t([C, F], s), [`${p}mlp.c_fc.bias`]: t([F], 0.2),
          [`${p}mlp.c_proj.weight`]: t([F, C], 1 / Math.sqrt(F)), [`${p}mlp.c_proj.bias`]: t([C], 0.2),
        });
      }
      out['transformer.ln_f.weight'] = t([C], 0.2, 1);
      out['transformer.ln_f.bias'] = t([C], 0.2);
      return out;
    },
  },
  qwen2: {
    config: {
      architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 32, num_attention_heads: 4,
      num_key_value_heads: 2, num_hidden_layers: 2, intermediate_size: 48, vocab_size: VOCAB,
      max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 1000000, hidden_act: 'silu',
      tie_word_embeddings: false, use_sliding_window: false, bos_token_id: EOT, eos_token_id: EOT,
    },
    tensors: (c, t) => llamaTensors(c, t, { qkvBias: true }),
  },
  qwen3: {
    config: {
      architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_size: 32, num_attention_heads: 4,
      num_key_value_heads: 2, head_dim: 16, num_hidden_layers: 2, intermediate_size: 48, vocab_size: VOCAB,
      max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 1000000, hidden_act: 'silu',
      attention_bias: false, tie_word_embeddings: true, use_sliding_window: false, bos_token_id: EOT, eos_token_id: EOT,
    },
    tensors: (c, t) => llamaTensors(c, t, { qkNorm: true }),
  },
  llama3: {  // Llama 3.1's rope_scaling, with a context past original_max_position_embeddings
    config: {
      architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 32, num_attention_heads: 4,
      num_key_value_heads: 2, num_hidden_layers: 2, intermediate_size: 48, vocab_size: VOCAB,
      max_position_embeddings: 64, rms_norm_eps: 1e-5, rope_theta: 500000, hidden_act: 'silu',
      rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 16 },
      tie_word_embeddings: false, bos_token_id: EOT, eos_token_id: EOT,
    },
    tensors: (c, t) => llamaTensors(c, t, {}),
  },
};

function llamaTensors(c, t, { qkvBias = false, qkNorm = false }) {
  const C = c.hidden_size, H = c.num_attention_heads, KV = c.num_key_value_heads;
  const D = c.head_dim ?? C / H, F = c.intermediate_size, s = 1 / Math.sqrt(C), out = {};
  out['model.embed_tokens.weight'] = t([c.vocab_size, C], 1);
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    out[`${p}input_layernorm.weight`] = t([C], 0.2, 1);
    for (const [x, rows] of [['q', H * D], ['k', KV * D], ['v', KV * D]]) {
      out[`${p}self_attn.${x}_proj.weight`] = t([rows, C], 2 * s);
      if (qkvBias) out[`${p}self_attn.${x}_proj.bias`] = t([rows], 0.2);
    }
    out[`${p}self_attn.o_proj.weight`] = t([C, H * D], 1 / Math.sqrt(H * D));
    if (qkNorm) {
      out[`${p}self_attn.q_norm.weight`] = t([D], 0.2, 1);
      out[`${p}self_attn.k_norm.weight`] = t([D], 0.2, 1);
    }
    out[`${p}post_attention_layernorm.weight`] = t([C], 0.2, 1);
    out[`${p}mlp.gate_proj.weight`] = t([F, C], 2 * s);
    out[`${p}mlp.up_proj.weight`] = t([F, C], 2 * s);
    out[`${p}mlp.down_proj.weight`] = t([C, F], 1 / Math.sqrt(F));
  }
  out['model.norm.weight'] = t([C], 0.2, 1);
  if (!c.tie_word_embeddings) out['lm_head.weight'] = t([c.vocab_size, C], s);
  return out;
}

// The named architecture's tensors from `seed` (config: keys that replace the architecture's config.json's).
export function randomTensors(arch, seed, config = {}) {
  const a = ARCHITECTURES[arch];
  return a.tensors({ ...a.config, ...config }, filler(seed));
}

// Writes folder `path` of architecture `arch` with seeded random weights; shards: the number of safetensors
// files (1: model.safetensors; more: model-0000i-of-0000n.safetensors with model.safetensors.index.json).
export async function writeHfFolder(path, arch, { seed = 1, shards = 1, config = {} } = {}) {
  await mkdir(path, { recursive: true });
  const tensors = randomTensors(arch, seed, config);
  await writeFile(join(path, 'config.json'), JSON.stringify({ ...ARCHITECTURES[arch].config, ...config }));
  await writeFile(join(path, 'tokenizer.json'), JSON.stringify(byteLevelTokenizer()));
  if (shards === 1) {
    await writeFile(join(path, 'model.safetensors'), writeST(tensors));
    return path;
  }
  const names = Object.keys(tensors), per = Math.ceil(names.length / shards), weightMap = {};
  for (let i = 0; i < shards; i++) {
    const file = `model-${String(i + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
    const part = Object.fromEntries(names.slice(i * per, (i + 1) * per).map((n) => [n, tensors[n]]));
    for (const n of Object.keys(part)) weightMap[n] = file;
    await writeFile(join(path, file), writeST(part));
  }
  const size = Object.values(tensors).reduce((a, v) => a + v.bytes.length, 0);
  await writeFile(join(path, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: size }, weight_map: weightMap }));
  return path;
}
