// A GGUF (version 3) writer for the JS tests and benchmarks: typed metadata, F32, F16, Q8_0, Q4_0 and Q4_K
// tensors, the alignment padding, and a llama GGUF made from a lookback safetensors bundle (lb.randomWeights) with a
// SentencePiece-style vocabulary.
// Not a converter for users (lookback reads GGUF, it does not write it); the C++ twin is tests/cpp/gguf_writer.hpp.

const TYPE = { u32: 4, i32: 5, f32: 6, string: 8, array: 9 };
const ALIGN = 32;

class Bytes {
  constructor() { this.parts = []; }
  u32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v, true); this.parts.push(b); }
  i32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setInt32(0, v, true); this.parts.push(b); }
  u64(v) { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(v), true); this.parts.push(b); }
  f32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); this.parts.push(b); }
  raw(b) { this.parts.push(b); }
  string(s) { const b = new TextEncoder().encode(s); this.u64(b.length); this.raw(b); }
  get length() { return this.parts.reduce((n, p) => n + p.length, 0); }
  pad() { const n = (ALIGN - (this.length % ALIGN)) % ALIGN; if (n) this.raw(new Uint8Array(n)); }
  bytes() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) { out.set(p, at); at += p.length; }
    return out;
  }
}

// float32 -> IEEE half bits, rounded to nearest even (as ggml's GGML_FP32_TO_FP16 on finite values).
export function halfBits(x) {
  const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = (u >>> 23) & 0xff, man = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  const round = (m, shift) => {  // m >> shift, rounded to nearest even
    const q = m >>> shift, rest = m - q * 2 ** shift, half = 2 ** (shift - 1);
    return rest > half || (rest === half && (q & 1)) ? q + 1 : q;
  };
  if (e <= 0) return e < -10 ? sign : sign | round(man | 0x800000, 14 - e);
  return (sign | (e << 10)) + round(man, 13);  // a carry out of the mantissa raises the exponent, as it should
}

// A tensor's values as ggml type `type` bytes: F32, F16, or Q8_0 / Q4_0 as ggml's reference quantisers
// (quantize_row_q8_0_ref, quantize_row_q4_0_ref) write them: blocks of 32 with a half-precision scale d; Q4_K by
// quantizeQ4K below.
const ENCODE = {
  F32: { id: 0, encode: (x) => new Uint8Array(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength)) },
  F16: { id: 1, encode: (x) => new Uint8Array(Uint16Array.from(x, halfBits).buffer) },
  Q8_0: { id: 8, encode: (x) => blocks(x, 34, (b, out, v) => {
    const amax = Math.max(...b.map(Math.abs)), d = Math.fround(amax / 127), id = d ? Math.fround(1 / d) : 0;
    v.setUint16(0, halfBits(d), true);
    const roundf = (y) => Math.sign(y) * Math.round(Math.abs(y));  // halves away from zero, as C's roundf
    b.forEach((y, j) => { v.setInt8(2 + j, roundf(Math.fround(y * id))); });
  }) },
  Q4_0: { id: 2, encode: (x) => blocks(x, 18, (b, out, v) => {
    const max = b.reduce((m, y) => (Math.abs(y) > Math.abs(m) ? y : m), 0);
    const d = Math.fround(max / -8), id = d ? Math.fround(1 / d) : 0;
    v.setUint16(0, halfBits(d), true);
    const q = (y) => Math.min(15, Math.trunc(Math.fround(Math.fround(y * id) + 8.5)));
    for (let j = 0; j < 16; j++) out[2 + j] = q(b[j]) | (q(b[16 + j]) << 4);
  }) },
  Q4_K: { id: 12, encode: (x) => quantizeQ4K(x).bytes },
};

function blocks(x, bytes, write) {
  const out = new Uint8Array((x.length / 32) * bytes);
  for (let i = 0; i < x.length / 32; i++) {
    const part = out.subarray(i * bytes, (i + 1) * bytes);
    write(Array.from(x.subarray(i * 32, (i + 1) * 32)), part, new DataView(part.buffer, part.byteOffset, bytes));
  }
  return out;
}

// IEEE half bits -> float
export function halfValue(h) {
  const e = (h >>> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (e ? 2 ** (e - 15) * (1 + m / 1024) : 2 ** -14 * (m / 1024));
}

// C's nearest_int in ggml-quants.c (the 1.5 * 2^23 trick): to nearest, halves to even.
const nearestInt = (x) => {
  const r = Math.round(x);  // halves up
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
};
const f = Math.fround;

// ggml's make_qkx2_quants(32, 15, x, weights, L, &min, Laux, -1, 0.1, 20, false): a scale and a min for one
// sub-block of 32 (weighted least squares over 21 trial scales), L the 4-bit levels. Returns { scale, min }.
function qkx2(x, w, L, aux) {
  const n = x.length, nmax = 15, rmin = -1, rdelta = f(0.1), nstep = 20;
  let min = x[0], max = x[0], sumW = w[0], sumX = f(w[0] * x[0]);
  for (let i = 1; i < n; i++) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    sumW = f(sumW + w[i]);
    sumX = f(sumX + f(w[i] * x[i]));
  }
  if (min > 0) min = 0;
  if (max === min) {
    L.fill(0);
    return { scale: 0, min: -min };
  }
  let iscale = f(nmax / f(max - min)), scale = f(1 / iscale), best = 0;
  for (let i = 0; i < n; i++) {
    L[i] = Math.max(0, Math.min(nmax, nearestInt(f(iscale * f(x[i] - min)))));
    const diff = f(f(f(scale * L[i]) + min) - x[i]);
    best = f(best + f(w[i] * f(diff * diff)));
  }
  for (let is = 0; is <= nstep; is++) {
    iscale = f(f(f(rmin + f(rdelta * is)) + nmax) / f(max - min));
    let sumL = 0, sumL2 = 0, sumXL = 0;
    for (let i = 0; i < n; i++) {
      let l = nearestInt(f(iscale * f(x[i] - min)));
      l = l < 0 ? 0 : l > nmax ? nmax : l;
      aux[i] = l;
      sumL = f(sumL + f(w[i] * l));
      sumL2 = f(sumL2 + f(f(w[i] * l) * l));
      sumXL = f(sumXL + f(f(w[i] * l) * x[i]));
    }
    const D = f(f(sumW * sumL2) - f(sumL * sumL));
    if (D > 0) {
      let thisScale = f(f(f(sumW * sumXL) - f(sumX * sumL)) / D), thisMin = f(f(f(sumL2 * sumX) - f(sumL * sumXL)) / D);
      if (thisMin > 0) thisMin = 0, thisScale = f(sumXL / sumL2);
      let mad = 0;
      for (let i = 0; i < n; i++) {
        const diff = f(f(f(thisScale * aux[i]) + thisMin) - x[i]);
        mad = f(mad + f(w[i] * f(diff * diff)));
      }
      if (mad < best) L.set(aux), best = mad, scale = thisScale, min = thisMin;
    }
  }
  return { scale, min: -min };
}

// The 6-bit scale and min of sub-block j from a Q4_K block's 12 scale bytes (ggml's get_scale_min_k4).
function scaleMinK4(j, q) {
  return j < 4 ? [q[j] & 63, q[j + 4] & 63] : [(q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4)];
}

// Q4_K as ggml's quantize_row_q4_K_ref writes it: super-blocks of 256 values (144 bytes: half d and dmin, 12
// bytes of 6-bit scales and mins for the 8 sub-blocks of 32, 128 bytes of 4-bit levels). x.length: a multiple of
// 256. Returns the bytes and the values they stand for (each as ggml's dequantize_row_q4_K computes it).
export function quantizeQ4K(x) {
  if (x.length % 256) throw new Error(`quantizeQ4K: ${x.length} values are not whole blocks of 256`);
  const bytes = new Uint8Array((x.length / 256) * 144), values = new Float32Array(x.length);
  const L = new Uint8Array(256), w = new Float32Array(32), aux = new Uint8Array(32);
  for (let i = 0; i < x.length / 256; i++) {
    const xb = x.subarray(i * 256, (i + 1) * 256), out = bytes.subarray(i * 144, (i + 1) * 144);
    const scales = new Float32Array(8), mins = new Float32Array(8);
    let maxScale = 0, maxMin = 0;
    for (let j = 0; j < 8; j++) {
      const xs = xb.subarray(32 * j, 32 * j + 32);
      let sumX2 = 0;
      for (const v of xs) sumX2 = f(sumX2 + f(v * v));
      const av = f(Math.sqrt(f(sumX2 / 32)));
      for (let l = 0; l < 32; l++) w[l] = f(av + Math.abs(xs[l]));
      const r = qkx2(xs, w, L.subarray(32 * j, 32 * j + 32), aux);
      scales[j] = r.scale, mins[j] = r.min;
      maxScale = Math.max(maxScale, r.scale), maxMin = Math.max(maxMin, r.min);
    }
    const invScale = maxScale > 0 ? f(63 / maxScale) : 0, invMin = maxMin > 0 ? f(63 / maxMin) : 0;
    const sc = out.subarray(4, 16);
    for (let j = 0; j < 8; j++) {
      const ls = Math.min(63, nearestInt(f(invScale * scales[j]))), lm = Math.min(63, nearestInt(f(invMin * mins[j])));
      if (j < 4) sc[j] = ls, sc[j + 4] = lm;
      else sc[j + 4] = (ls & 0xf) | ((lm & 0xf) << 4), sc[j - 4] |= (ls >> 4) << 6, sc[j] |= (lm >> 4) << 6;
    }
    const dBits = halfBits(f(maxScale / 63)), mBits = halfBits(f(maxMin / 63));
    const v = new DataView(out.buffer, out.byteOffset, 144);
    v.setUint16(0, dBits, true), v.setUint16(2, mBits, true);
    const d = halfValue(dBits), dmin = halfValue(mBits);
    for (let j = 0; j < 8; j++) {
      const [s, m] = scaleMinK4(j, sc), dj = f(d * s), mj = f(dmin * m);
      for (let l = 0; l < 32; l++) {
        if (dj) L[32 * j + l] = Math.max(0, Math.min(15, nearestInt(f(f(xb[32 * j + l] + mj) / dj))));
        values[i * 256 + 32 * j + l] = f(f(dj * L[32 * j + l]) - mj);
      }
    }
    for (let j = 0; j < 256; j += 64) for (let l = 0; l < 32; l++) out[16 + j / 2 + l] = L[j + l] | (L[j + l + 32] << 4);
  }
  return { bytes, values };
}

// A matrix type for rows of `width` values: Q4_K needs whole blocks of 256, and rows that have none fall back to
// Q8_0 (a type lookback also reads; llama.cpp's own quantiser chooses Q5_0 there).
export const rowType = (type, width) => (type === 'Q4_K' && width % 256 ? 'Q8_0' : type);

// metadata: [key, kind, value] with kind 'u32' | 'i32' | 'f32' | 'string' | ['array', element kind];
// tensors: { name, dims (innermost first, as ggml lists them), data: Float32Array, type ('F32' when absent,
// 'F16', 'Q8_0', 'Q4_0', 'Q4_K') }.
export function writeGguf(metadata, tensors) {
  const o = new Bytes();
  o.raw(new TextEncoder().encode('GGUF'));
  o.u32(3);
  o.u64(tensors.length);
  o.u64(metadata.length);
  for (const [key, kind, value] of metadata) {
    o.string(key);
    if (Array.isArray(kind)) {
      o.u32(TYPE.array);
      o.u32(TYPE[kind[1]]);
      o.u64(value.length);
      for (const v of value) o[kind[1]](v);
    } else {
      o.u32(TYPE[kind]);
      o[kind](value);
    }
  }
  let offset = 0;
  const data = tensors.map((t) => ENCODE[t.type ?? 'F32'].encode(t.data));
  tensors.forEach((t, i) => {
    o.string(t.name);
    o.u32(t.dims.length);
    for (const d of t.dims) o.u64(d);
    o.u32(ENCODE[t.type ?? 'F32'].id);
    o.u64(offset);
    offset += Math.ceil(data[i].length / ALIGN) * ALIGN;
  });
  o.pad();
  for (const d of data) {
    o.raw(d);
    o.pad();
  }
  return o.bytes();
}

// safetensors bytes -> [{ name, shape, data: Float32Array }] (F32 only, as lb.randomWeights writes them)
export function readSafetensors(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  return Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, t]) => {
    const [from, to] = t.data_offsets;
    const copy = bytes.slice(8 + n + from, 8 + n + to);
    return { name, shape: t.shape, data: new Float32Array(copy.buffer) };
  });
}

// lookback's tensor names -> llama.cpp's (src/llama-arch.cpp); the MLP's input matrix w1 is ffn_gate beside an
// up projection w3 (SwiGLU), and ffn_up when it is the only one (GPT-2's GELU MLP)
const LAYER = {
  'attention_norm.weight': 'attn_norm.weight', 'attention_norm.bias': 'attn_norm.bias',
  'attention.wq.weight': 'attn_q.weight', 'attention.wq.bias': 'attn_q.bias',
  'attention.wk.weight': 'attn_k.weight', 'attention.wk.bias': 'attn_k.bias',
  'attention.wv.weight': 'attn_v.weight', 'attention.wv.bias': 'attn_v.bias',
  'attention.q_norm.weight': 'attn_q_norm.weight', 'attention.k_norm.weight': 'attn_k_norm.weight',
  'attention.wo.weight': 'attn_output.weight', 'attention.wo.bias': 'attn_output.bias',
  'ffn_norm.weight': 'ffn_norm.weight', 'ffn_norm.bias': 'ffn_norm.bias',
  'feed_forward.w1.weight': 'ffn_gate.weight', 'feed_forward.w3.weight': 'ffn_up.weight',
  'feed_forward.w2.weight': 'ffn_down.weight', 'feed_forward.w2.bias': 'ffn_down.bias',
};
const GELU_LAYER = { 'feed_forward.w1.weight': 'ffn_up.weight', 'feed_forward.w1.bias': 'ffn_up.bias' };
const TOP = {
  'tok_embeddings.weight': 'token_embd.weight', 'pos_embeddings.weight': 'position_embd.weight',
  'norm.weight': 'output_norm.weight', 'norm.bias': 'output_norm.bias', 'output.weight': 'output.weight',
};

export function ggufName(ours, gelu = false) {
  if (TOP[ours]) return TOP[ours];
  const m = /^layers\.(\d+)\.(.+)$/.exec(ours);
  return `blk.${m[1]}.${(gelu && GELU_LAYER[m[2]]) || LAYER[m[2]]}`;
}

// A SentencePiece-style vocabulary of V pieces: <unk>, <s>, </s>, the 256 byte pieces, then characters and
// words ("▁" = space; a merge joins two pieces of the vocabulary, as in llama2.c's encoder).
export function llamaVocabulary(V) {
  const tokens = ['<unk>', '<s>', '</s>'], types = [2, 3, 3];
  for (let b = 0; b < 256; b++) { tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`); types.push(6); }
  const words = ['▁', 't', 'h', 'e', 'a', '▁t', 'he', '▁the', '▁a', 'at'];
  for (let i = 0; tokens.length < V; i++) { tokens.push(i < words.length ? words[i] : `▁w${i}`); types.push(1); }
  const scores = tokens.map((_, i) => (types[i] === 1 ? -i : 0));
  return { tokens, scores, types };
}

// The metadata of a llama (SentencePiece-style) tokenizer: the vocabulary above, the config's marks.
function llamaTokenizer(config) {
  const { tokens, scores, types } = llamaVocabulary(config.vocab_size);
  return [
    ['tokenizer.ggml.model', 'string', 'llama'],
    ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.scores', ['array', 'f32'], scores],
    ['tokenizer.ggml.token_type', ['array', 'i32'], types],
    ['tokenizer.ggml.bos_token_id', 'u32', config.bos_id],
    ['tokenizer.ggml.eos_token_id', 'u32', config.eos_id],
  ];
}

// The metadata of a gpt2 (byte-level BPE) tokenizer as llama.cpp's converter writes it from a tokenizer.json
// (parsed): the tokens by id, added special tokens as control (3), other added ones user-defined (4), the rest
// normal (1); the merges as "left right"; `pre` names the split.
export function gpt2Tokenizer(json, pre, { bos, eos }) {
  const tokens = [], types = [];
  for (const [t, id] of Object.entries(json.model.vocab)) tokens[id] = t, types[id] = 1;
  for (const a of json.added_tokens) tokens[a.id] = a.content, types[a.id] = a.special ? 3 : 4;
  for (let i = 0; i < tokens.length; i++) if (tokens[i] === undefined) tokens[i] = `[PAD${i}]`, types[i] = 5;
  return [
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', pre],
    ['tokenizer.ggml.tokens', ['array', 'string'], tokens],
    ['tokenizer.ggml.token_type', ['array', 'i32'], types],
    ['tokenizer.ggml.merges', ['array', 'string'], json.model.merges.map((m) => (Array.isArray(m) ? m.join(' ') : m))],
    ['tokenizer.ggml.bos_token_id', 'u32', bos],
    ['tokenizer.ggml.eos_token_id', 'u32', eos],
  ];
}

// The architecture's keys (as llama.cpp's converter writes them) for a lookback config.
function archMetadata(arch, config) {
  const a = `${arch}.`;
  const keys = [
    [`${a}block_count`, 'u32', config.n_layers],
    [`${a}context_length`, 'u32', config.max_seq_len],
    [`${a}embedding_length`, 'u32', config.dim],
    [`${a}feed_forward_length`, 'u32', config.hidden_dim],
    [`${a}attention.head_count`, 'u32', config.n_heads],
    [`${a}attention.head_count_kv`, 'u32', config.n_kv_heads],
  ];
  if (arch === 'gpt2') return [...keys, [`${a}attention.layer_norm_epsilon`, 'f32', config.norm_eps]];
  if (arch !== 'qwen2') keys.push([`${a}attention.key_length`, 'u32', config.head_dim], [`${a}attention.value_length`, 'u32', config.head_dim]);
  if (arch === 'llama') keys.push([`${a}rope.dimension_count`, 'u32', config.head_dim]);
  return [...keys, [`${a}rope.freq_base`, 'f32', config.rope_theta], [`${a}attention.layer_norm_rms_epsilon`, 'f32', config.norm_eps]];
}

// A GGUF of architecture `arch` (llama, qwen2, qwen3, gpt2) from a lookback bundle's weights of the matching
// variant (config: the bundle's), its matrices in ggml type `matrixType` (norms and biases F32, as llama.cpp's
// converter keeps them), with the SentencePiece-style vocabulary above. gpt2's q, k and v rows go into one
// attn_qkv tensor, as llama.cpp's converter writes GPT-2's c_attn.
export function modelGguf(arch, config, safetensors, matrixType = 'F32', tokenizer = llamaTokenizer(config)) {
  const metadata = [
    ['general.architecture', 'string', arch],
    ['general.name', 'string', `test ${arch}`],
    ['general.alignment', 'u32', ALIGN],
    ...archMetadata(arch, config),
    ...tokenizer,
  ];
  const gelu = config.mlp !== undefined && config.mlp !== 'swiglu';
  let tensors = readSafetensors(safetensors).map((t) => ({
    name: ggufName(t.name, gelu), dims: [...t.shape].reverse(), data: t.data,
    type: t.shape.length === 2 ? rowType(matrixType, t.shape[1]) : 'F32',
  }));
  if (arch === 'gpt2') {
    const fused = [];
    for (const t of tensors) {
      const m = /^blk\.(\d+)\.attn_q\.(weight|bias)$/.exec(t.name);
      if (!m) continue;
      const parts = ['q', 'k', 'v'].map((x) => tensors.find((u) => u.name === `blk.${m[1]}.attn_${x}.${m[2]}`));
      const data = new Float32Array(parts.reduce((n, p) => n + p.data.length, 0));
      parts.reduce((at, p) => { data.set(p.data, at); return at + p.data.length; }, 0);
      const rows = parts.reduce((n, p) => n + p.dims[p.dims.length - 1], 0);
      fused.push({ name: `blk.${m[1]}.attn_qkv.${m[2]}`, dims: [...t.dims.slice(0, -1), rows], data, type: t.type });
    }
    tensors = [...tensors.filter((t) => !/\.attn_[qkv]\./.test(t.name)), ...fused];
  }
  return writeGguf(metadata, tensors);
}

// A llama GGUF of a lookback bundle's weights (adjacent-pair rotary, no q/k norms).
export const llamaGguf = (config, safetensors, matrixType = 'F32') => modelGguf('llama', config, safetensors, matrixType);
