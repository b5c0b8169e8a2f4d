// A Hugging Face Llama folder (LlamaForCausalLM config.json, model.safetensors with transformers' tensor
// names, byte-level BPE tokenizer.json) written by the test from a random lookback model: transformers'
// conversion permutes each head's q/k rows from interleaved pairs to two halves, and the folder must then give
// the same tokens, logits and generated ids as the original (adjacent-pair) model; F16 and BF16 data, tied
// embeddings, and the refusals. Not the C++ details (tests/cpp/test_hf_model.cpp), nor the other architectures
// (tests/js/hf-reference.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { BYTE_CHAR, writeST } from './hf-folders.mjs';

const lb = await loadLookback();
const H = 4, KV = 2, D = 8, C = 32;
const CONFIG = {
  arch: 'test', dim: C, n_layers: 2, n_heads: H, n_kv_heads: KV, head_dim: D, hidden_dim: 48, vocab_size: 261,
  max_seq_len: 64, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};
// lookback's byte-BPE: 0 <s>, 1 </s>, 2 + b the bytes, then merges " t", "he", " the"
const SP = 32 + 2, t = 116 + 2, h = 104 + 2, e = 101 + 2;
const TOKENIZER = { type: 'byte-bpe', version: 1, vocab_size: 261, bos_id: 0, eos_id: 1, merges: [[SP, t], [h, e], [258, 259]] };

// The same tokenizer in the tokenizers library's format, with the same ids.
function hfTokenizer() {
  const vocab = {};
  BYTE_CHAR.forEach((c, b) => { vocab[c] = b + 2; });
  Object.assign(vocab, { 'Ġt': 258, he: 259, 'Ġthe': 260 });
  return {
    version: '1.0',
    added_tokens: [{ id: 0, content: '<s>', special: true }, { id: 1, content: '</s>', special: true }],
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    decoder: { type: 'ByteLevel' },
    model: { type: 'BPE', vocab, merges: ['Ġ t', 'h e', ['Ġt', 'he']] },
  };
}

function hfConfig(extra = {}) {
  return {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: C, num_hidden_layers: 2,
    num_attention_heads: H, num_key_value_heads: KV, intermediate_size: 48, vocab_size: 261,
    max_position_embeddings: 64, rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: false,
    bos_token_id: 0, eos_token_id: 1, hidden_act: 'silu', rope_scaling: null, torch_dtype: 'float32', ...extra,
  };
}

// safetensors: { name: { dtype, shape, bytes } } <-> file bytes
function readST(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const out = {};
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    out[name] = { dtype: v.dtype, shape: v.shape, bytes: bytes.slice(8 + n + v.data_offsets[0], 8 + n + v.data_offsets[1]) };
  }
  return out;
}

// transformers' permute(w, heads): per head, rows (2i, 2i+1) -> (i, i + D/2).
function permuteRows(bytes, heads, rowBytes) {
  const out = new Uint8Array(bytes.length);
  for (let hd = 0; hd < heads; hd++) {
    for (let i = 0; i < D / 2; i++) {
      for (const [from, to] of [[2 * i, i], [2 * i + 1, i + D / 2]]) {
        const src = (hd * D + from) * rowBytes, dst = (hd * D + to) * rowBytes;
        out.set(bytes.subarray(src, src + rowBytes), dst);
      }
    }
  }
  return out;
}

const NAMES = [
  [/^tok_embeddings\.weight$/, 'model.embed_tokens.weight'], [/^norm\.weight$/, 'model.norm.weight'],
  [/^output\.weight$/, 'lm_head.weight'], [/\.attention_norm\./, '.input_layernorm.'],
  [/\.attention\.wq\./, '.self_attn.q_proj.'], [/\.attention\.wk\./, '.self_attn.k_proj.'],
  [/\.attention\.wv\./, '.self_attn.v_proj.'], [/\.attention\.wo\./, '.self_attn.o_proj.'],
  [/\.ffn_norm\./, '.post_attention_layernorm.'], [/\.feed_forward\.w1\./, '.mlp.gate_proj.'],
  [/\.feed_forward\.w3\./, '.mlp.up_proj.'], [/\.feed_forward\.w2\./, '.mlp.down_proj.'], [/^layers\./, 'model.layers.'],
];
const hfName = (name) => NAMES.reduce((n, [re, to]) => n.replace(re, to), name);

// The random lookback weights in transformers' layout (permute: false leaves q/k as they are, to show it matters).
function hfWeights(lookbackBytes, { permute = true, drop = [] } = {}) {
  const out = {};
  for (const [name, v] of Object.entries(readST(lookbackBytes))) {
    if (drop.includes(name)) continue;
    const width = v.dtype === 'F32' ? 4 : 2;
    const heads = /\.wq\./.test(name) ? H : /\.wk\./.test(name) ? KV : 0;
    out[hfName(name)] = { ...v, bytes: permute && heads ? permuteRows(v.bytes, heads, v.shape[1] * width) : v.bytes };
  }
  return writeST(out);
}

let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-hf-')); });
after(() => rm(dir, { recursive: true, force: true }));

async function folder(name, weights, config = hfConfig(), tokenizer = hfTokenizer()) {
  const path = join(dir, name);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, 'model.safetensors'), weights);
  await writeFile(join(path, 'config.json'), JSON.stringify(config));
  await writeFile(join(path, 'tokenizer.json'), JSON.stringify(tokenizer));
  return path;
}

const TEXT = 'the cat sat on the mat. then the end';
function assertSame(ref, hf, tol) {
  const a = ref.forward(TEXT), b = hf.forward(TEXT);
  assert.deepEqual(b.ids, a.ids);
  let worst = 0;
  for (let i = 0; i < a.logits.length; i++) worst = Math.max(worst, Math.abs(a.logits[i] - b.logits[i]));
  assert.ok(worst <= tol, `largest logit difference ${worst}`);
  return worst;
}

test('a transformers Llama folder gives the tokens, logits and text of the model it was converted from', async () => {
  const weights = lb.randomWeights(CONFIG, { seed: 11 });
  const ref = await lb.loadModel(weights, { config: CONFIG, tokenizer: TOKENIZER });
  const hf = await lb.loadModel(await folder('f32', hfWeights(weights)));
  assert.equal(hf.info.tokenizer, 'hf-byte-bpe');
  assert.equal(hf.info.config.rope_layout, 'half');
  assert.equal(hf.info.config.n_kv_heads, KV);
  assert.equal(hf.info.parameters, ref.info.parameters);
  assert.deepEqual(hf.encode(TEXT), ref.encode(TEXT));
  assert.ok(ref.encode(TEXT).includes(260), 'the merges are used (" the")');
  assert.deepEqual(hf.tokens(' the').map((x) => x.text), ['◆', ' the']);
  assert.equal(hf.decode(hf.encode(TEXT)), TEXT);
  assertSame(ref, hf, 1e-4);
  const opts = { maxTokens: 20, temperature: 0 };
  assert.deepEqual(hf.generate('the cat', opts).ids, ref.generate('the cat', opts).ids);
  assert.deepEqual(hf.next('the cat', { topK: 5 }).map((x) => x.id), ref.next('the cat', { topK: 5 }).map((x) => x.id));
  // without the permutation, the rotate-half positions pair the wrong rows: a different model
  const unpermuted = await lb.loadModel(await folder('unpermuted', hfWeights(weights, { permute: false })));
  assert.throws(() => assertSame(ref, unpermuted, 1e-2), /largest logit difference/);
  for (const m of [ref, hf, unpermuted]) m.dispose();
});

test('F16 and BF16 weights, and tied embeddings', async () => {
  const f16 = lb.randomWeights(CONFIG, { seed: 12, f16: true });
  const ref16 = await lb.loadModel(f16, { config: CONFIG, tokenizer: TOKENIZER });
  const hf16 = await lb.loadModel(await folder('f16', hfWeights(f16), hfConfig({ torch_dtype: 'float16' })));
  assertSame(ref16, hf16, 1e-4);
  // BF16: the top half of each float; the same floats with their low half zeroed, as F32, are the reference
  const f32 = readST(lb.randomWeights(CONFIG, { seed: 13 }));
  const bf16 = {}, rounded = {};
  for (const [name, v] of Object.entries(f32)) {
    const u16 = new Uint16Array(v.bytes.buffer, v.bytes.byteOffset, v.bytes.length / 2);
    const top = Uint16Array.from({ length: u16.length / 2 }, (_, i) => u16[2 * i + 1]);
    bf16[name] = { dtype: 'BF16', shape: v.shape, bytes: new Uint8Array(top.buffer) };
    const back = new Uint16Array(u16.length);
    top.forEach((x, i) => { back[2 * i + 1] = x; });
    rounded[name] = { dtype: 'F32', shape: v.shape, bytes: new Uint8Array(back.buffer) };
  }
  const refBf = await lb.loadModel(writeST(rounded), { config: CONFIG, tokenizer: TOKENIZER });
  const hfBf = await lb.loadModel(await folder('bf16', hfWeights(writeST(bf16)), hfConfig({ torch_dtype: 'bfloat16' })));
  assertSame(refBf, hfBf, 1e-4);
  const tiedConfig = { ...CONFIG, tied_embeddings: true };
  const tied = lb.randomWeights(tiedConfig, { seed: 14 });
  const refTied = await lb.loadModel(tied, { config: tiedConfig, tokenizer: TOKENIZER });
  const hfTied = await lb.loadModel(await folder('tied', hfWeights(tied), hfConfig({ tie_word_embeddings: true })));
  assertSame(refTied, hfTied, 1e-4);
  for (const m of [ref16, hf16, refBf, hfBf, refTied, hfTied]) m.dispose();
});

test('what lookback does not read is refused by name', async () => {
  const weights = hfWeights(lb.randomWeights(CONFIG, { seed: 15 }));
  const refused = async (name, files, pattern) => {
    await assert.rejects(lb.loadModel(await folder(name, ...files)), (err) => err.code === 'LOOKBACK_BAD_MODEL' && pattern.test(err.message));
  };
  await refused('mistral', [weights, hfConfig({ architectures: ['MistralForCausalLM'] })], /LlamaForCausalLM/);
  await refused('scaled', [weights, hfConfig({ rope_scaling: { type: 'linear', factor: 2 } })], /rope_scaling/);
  await refused('sentencepiece', [weights, hfConfig(), { ...hfTokenizer(), model: { type: 'BPE', byte_fallback: true, vocab: {}, merges: [] } }], /byte_fallback/);
  const missing = hfWeights(lb.randomWeights(CONFIG, { seed: 15 }), { drop: ['layers.1.attention.wk.weight'] });
  await refused('missing', [missing], /model\.layers\.1\.self_attn\.k_proj\.weight" is missing/);
  await refused('mismatch', [weights, hfConfig({ intermediate_size: 40 })], /mlp\.(gate|up|down)_proj\.weight" has shape/);
});

// The file with its header text edited (padded to 8 bytes), the data as it was.
function editHeader(bytes, edit) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  let text = edit(new TextDecoder().decode(bytes.subarray(8, 8 + n)).trimEnd());
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  out.set(bytes.subarray(8 + n), 8 + text.length);
  return out;
}

test('files that once loaded wrong are refused, naming file, key and what was wanted: 64-bit integers, id-changing tokenizer settings, overlapping or repeated tensors, JSON of the wrong type', async () => {
  const weights = hfWeights(lb.randomWeights(CONFIG, { seed: 15 }));
  const refused = async (name, files, pattern) => {
    await assert.rejects(lb.loadModel(await folder(name, ...files)), (err) => err.code === 'LOOKBACK_BAD_MODEL' && pattern.test(err.message), name);
  };
  // integers of config.json are read in 64 bits: 2^32 + 2 layers is not 2
  await refused('layers', [weights, hfConfig({ num_hidden_layers: 2 ** 32 + 2 })], /config\.json.*"num_hidden_layers" is 4294967298; it must be an integer in \[0, 2147483647\]/);
  await refused('heads', [weights, hfConfig({ num_attention_heads: -4 })], /"num_attention_heads" is -4/);
  const long = await lb.loadModel(await folder('context', weights, hfConfig({ max_position_embeddings: 2 ** 31 })));
  assert.ok(long.context > 0 && long.context <= 2 ** 31, `context ${long.context}`);
  long.dispose();
  // tokenizer settings that would change the ids are refused by name
  const tok = hfTokenizer();
  await refused('lowercase', [weights, hfConfig(), { ...tok, normalizer: { type: 'Lowercase' } }], /normalizer Lowercase/);
  await refused('nfkc', [weights, hfConfig(), { ...tok, normalizer: { type: 'NFKC' } }], /normalizer NFKC/);
  await refused('regex', [weights, hfConfig(), { ...tok, pre_tokenizer: { ...tok.pre_tokenizer, use_regex: false } }], /use_regex: false/);
  await refused('dropout', [weights, hfConfig(), { ...tok, model: { ...tok.model, dropout: 0.1 } }], /dropout 0\.1/);
  await refused('prefix', [weights, hfConfig(), { ...tok, model: { ...tok.model, continuing_subword_prefix: '##' } }], /continuing_subword_prefix "##"/);
  await refused('suffix', [weights, hfConfig(), { ...tok, model: { ...tok.model, end_of_word_suffix: '</w>' } }], /end_of_word_suffix/);
  for (const quiet of [{ normalizer: null }, { model: { ...tok.model, dropout: null, continuing_subword_prefix: null, end_of_word_suffix: '' } }]) {
    (await lb.loadModel(await folder('quiet', weights, hfConfig(), { ...tok, ...quiet }))).dispose();
  }
  // two tensors over the same bytes, and a tensor named twice (JSON keeps the last of a repeated key)
  const q0 = 'model.layers.0.self_attn.q_proj.weight', q1 = 'model.layers.1.self_attn.q_proj.weight';
  const overlap = editHeader(weights, (text) => {
    const h = JSON.parse(text);
    h[q1].data_offsets = h[q0].data_offsets;
    return JSON.stringify(h);
  });
  await refused('overlap', [overlap], new RegExp(`tensors "(${q0}|${q1})" and "(${q0}|${q1})" overlap`));
  const twice = editHeader(weights, (text) => {
    const h = JSON.parse(text);
    return `{"${q1}":${JSON.stringify(h[q0])},${text.slice(1)}`;
  });
  await refused('twice', [twice], new RegExp(`the name "${q1}" appears twice`));
  // JSON of the wrong type names the file, the key and the type
  const badShape = editHeader(weights, (text) => {
    const h = JSON.parse(text);
    h[q0].shape = 'big';
    return JSON.stringify(h);
  });
  await refused('shape', [badShape], new RegExp(`model\\.safetensors: tensor "${q0}": "shape" must be an array of integers \\(got "big"\\)`));
  await refused('content', [weights, hfConfig(), { ...tok, added_tokens: [{ id: 0, content: 5 }] }], /tokenizer\.json: "content" of an added token must be a string \(got 5\)/);
  await refused('dims', [weights, hfConfig({ hidden_size: '32' })], /config\.json.*"hidden_size" must be an integer \(got "32"\)/);
});
