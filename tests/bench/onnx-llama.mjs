// A llama2.c checkpoint as an ONNX graph built in code (onnx-proto), what a script writer running the model
// through onnxruntime-web (as transformers.js does) would execute: token ids [T] -> logits of the last position
// [V], every weight a graph initializer (transposed to [in, out] for MatMul), RMSNorm from ReduceMean/Sqrt,
// rotary positions as pairs (x0, x1) rotated with cos/sin inputs, causal attention with grouped heads expanded,
// SwiGLU. T is symbolic: ids, cos, sin and the mask are inputs made for each T (onnxInputs). No KV cache: one
// call is one prefill. Not a test: decode.mjs times it and checks its logits against lookback's.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');
const { FLOAT, INT64 } = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

const dimsOf = (dims) => ({ dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) });
const valueInfo = (name, dims, elemType = FLOAT) => onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType, shape: dimsOf(dims) } } });
const f32 = (name, dims, data) => onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
const i64 = (name, values) => onnx.TensorProto.create({ name, dims: [values.length], dataType: INT64, int64Data: values });
const ints = (name, v) => ({ name, type: A.INTS, ints: v });
const int = (name, v) => ({ name, type: A.INT, i: v });

// The llama2.c checkpoint: header of 7 int32, then the float32 tensors in run.c's order.
export function readCheckpoint(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [dim, hidden, layers, heads, kvHeads, vocabSigned, seqLen] = Array.from({ length: 7 }, (_, i) => dv.getInt32(4 * i, true));
  const V = Math.abs(vocabSigned), hs = dim / heads, kvDim = kvHeads * hs;
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 28, bytes.byteOffset + bytes.byteLength));
  let at = 0;
  const take = (n) => all.subarray(at, (at += n));
  const w = { dim, hidden, layers, heads, kvHeads, V, hs, kvDim, seqLen };
  w.emb = take(V * dim);
  w.rmsAtt = take(layers * dim);
  w.wq = take(layers * dim * dim);
  w.wk = take(layers * kvDim * dim);
  w.wv = take(layers * kvDim * dim);
  w.wo = take(layers * dim * dim);
  w.rmsFfn = take(layers * dim);
  w.w1 = take(layers * hidden * dim);
  w.w2 = take(layers * dim * hidden);
  w.w3 = take(layers * hidden * dim);
  w.rmsFinal = take(dim);
  take(seqLen * hs);  // the legacy freq_cis tables
  w.wcls = vocabSigned > 0 ? w.emb : take(V * dim);
  return w;
}

// [out, in] rows -> [in, out] for MatMul(x [T, in], W).
function transposed(src, out, inn) {
  const t = new Float32Array(out * inn);
  for (let o = 0; o < out; o++) for (let i = 0; i < inn; i++) t[i * out + o] = src[o * inn + i];
  return t;
}

export function llamaModel(bytes) {
  const w = readCheckpoint(bytes);
  const { dim: C, hidden: F, layers: L, heads: H, kvHeads: Hkv, V, hs, kvDim } = w;
  const nodes = [], inits = [];
  let n = 0;
  const op = (type, inputs, attrs = []) => {
    const out = `t${n++}`;
    nodes.push(onnx.NodeProto.create({ opType: type, input: inputs, output: [out], attribute: attrs, name: out }));
    return out;
  };
  const init = (name, dims, data) => (inits.push(f32(name, dims, data)), name);
  const shape = (name, values) => (inits.push(i64(name, values)), name);
  init('eps', [], new Float32Array([1e-5]));
  init('scale', [], new Float32Array([1 / Math.sqrt(hs)]));
  shape('s_pairs', [0, C / 2, 2]);
  shape('s_kpairs', [0, kvDim / 2, 2]);
  shape('s_q', [0, H, hs]);
  shape('s_kv', [0, Hkv, hs]);
  shape('s_flat', [0, C]);
  shape('s_flatkv', [0, kvDim]);
  shape('last', [-1]);
  const rms = (x, weight) => {
    const ms = op('ReduceMean', [op('Mul', [x, x])], [ints('axes', [-1]), int('keepdims', 1)]);
    return op('Mul', [op('Div', [x, op('Sqrt', [op('Add', [ms, 'eps'])])]), weight]);
  };
  // x [T, width] with pairs (x0, x1) rotated by the position's angle: cos, sin [T, width/2, 1]
  const rope = (x, pairs, flat, cos, sin) => {
    const p = op('Reshape', [x, pairs]);
    const x0 = op('Slice', [p, shape(`z${n}`, [0]), shape(`o${n}`, [1]), shape(`a${n}`, [2])]);
    const x1 = op('Slice', [p, shape(`z${n}`, [1]), shape(`o${n}`, [2]), shape(`a${n}`, [2])]);
    const a = op('Sub', [op('Mul', [x0, cos]), op('Mul', [x1, sin])]);
    const b = op('Add', [op('Mul', [x0, sin]), op('Mul', [x1, cos])]);
    return op('Reshape', [op('Concat', [a, b], [int('axis', 2)]), flat]);
  };
  // [T, heads*hs] -> [heads, T, hs]; grouped key/value heads repeated to H
  const heads = (x, s) => op('Transpose', [op('Reshape', [x, s])], [ints('perm', [1, 0, 2])]);
  const expand = (x) => {
    if (Hkv === H) return x;
    const u = op('Unsqueeze', [x, shape(`u${n}`, [1])]);  // [Hkv, 1, T, hs]
    const e = op('Expand', [u, op('Concat', [shape(`e${n}`, [Hkv, H / Hkv]), op('Slice', [op('Shape', [x]), shape(`b${n}`, [1]), shape(`f${n}`, [3])])], [int('axis', 0)])]);
    return op('Reshape', [e, op('Concat', [shape(`h${n}`, [H]), op('Slice', [op('Shape', [x]), shape(`c${n}`, [1]), shape(`d${n}`, [3])])], [int('axis', 0)])]);
  };
  let x = op('Gather', [init('emb', [V, C], w.emb), 'ids']);
  for (let l = 0; l < L; l++) {
    const sl = (arr, size) => arr.subarray(l * size, (l + 1) * size);
    const xn = rms(x, init(`att_norm${l}`, [C], sl(w.rmsAtt, C)));
    const q = rope(op('MatMul', [xn, init(`wq${l}`, [C, C], transposed(sl(w.wq, C * C), C, C))]), 's_pairs', 's_flat', 'cos', 'sin');
    const k = rope(op('MatMul', [xn, init(`wk${l}`, [C, kvDim], transposed(sl(w.wk, kvDim * C), kvDim, C))]), 's_kpairs', 's_flatkv', 'cos_kv', 'sin_kv');
    const v = op('MatMul', [xn, init(`wv${l}`, [C, kvDim], transposed(sl(w.wv, kvDim * C), kvDim, C))]);
    const qh = heads(q, 's_q'), kh = expand(heads(k, 's_kv')), vh = expand(heads(v, 's_kv'));
    const scores = op('Add', [op('Mul', [op('MatMul', [qh, op('Transpose', [kh], [ints('perm', [0, 2, 1])])]), 'scale']), 'mask']);
    const att = op('MatMul', [op('Softmax', [scores], [int('axis', -1)]), vh]);  // [H, T, hs]
    const merged = op('Reshape', [op('Transpose', [att], [ints('perm', [1, 0, 2])]), 's_flat']);
    x = op('Add', [x, op('MatMul', [merged, init(`wo${l}`, [C, C], transposed(sl(w.wo, C * C), C, C))])]);
    const xf = rms(x, init(`ffn_norm${l}`, [C], sl(w.rmsFfn, C)));
    const h1 = op('MatMul', [xf, init(`w1${l}`, [C, F], transposed(sl(w.w1, F * C), F, C))]);
    const h3 = op('MatMul', [xf, init(`w3${l}`, [C, F], transposed(sl(w.w3, F * C), F, C))]);
    const g = op('Mul', [op('Mul', [h1, op('Sigmoid', [h1])]), h3]);
    x = op('Add', [x, op('MatMul', [g, init(`w2${l}`, [F, C], transposed(sl(w.w2, C * F), C, F))])]);
  }
  const lastRow = op('Gather', [x, 'last'], [int('axis', 0)]);  // [1, C]
  const logits = op('MatMul', [rms(lastRow, init('final_norm', [C], w.rmsFinal)), init('wcls', [C, V], transposed(w.wcls, V, C))]);
  nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [logits], output: ['logits'], name: 'logits' }));
  const graph = onnx.GraphProto.create({
    name: 'llama2c',
    input: [valueInfo('ids', ['T'], INT64), valueInfo('cos', ['T', C / 2, 1]), valueInfo('sin', ['T', C / 2, 1]),
      valueInfo('cos_kv', ['T', kvDim / 2, 1]), valueInfo('sin_kv', ['T', kvDim / 2, 1]), valueInfo('mask', ['T', 'T'])],
    output: [valueInfo('logits', [1, V])],
    initializer: inits, node: nodes,
  });
  const m = onnx.ModelProto.create({ irVersion: 8, producerName: 'lookback-bench', opsetImport: [{ domain: '', version: 17 }], graph });
  return { bytes: onnx.ModelProto.encode(m).finish(), config: w };
}

// The graph's inputs for ids (run.c's rotary angles: pair i of a head at position t turns by t / 10000^(2i/hs)).
export function onnxInputs(ort, ids, { dim, kvDim, hs }) {
  const T = ids.length;
  const table = (width) => {
    const cos = new Float32Array(T * width / 2), sin = new Float32Array(T * width / 2);
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < width / 2; i++) {
        const a = t / 10000 ** (((2 * i) % hs) / hs);
        cos[t * width / 2 + i] = Math.cos(a);
        sin[t * width / 2 + i] = Math.sin(a);
      }
    }
    return [new ort.Tensor('float32', cos, [T, width / 2, 1]), new ort.Tensor('float32', sin, [T, width / 2, 1])];
  };
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -1e9;
  const [cos, sin] = table(dim), [cosKv, sinKv] = table(kvDim);
  return {
    ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [T]), cos, sin, cos_kv: cosKv, sin_kv: sinKv,
    mask: new ort.Tensor('float32', mask, [T, T]),
  };
}
