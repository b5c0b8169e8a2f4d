// ONNX graphs for the benchmark, built in code with onnx-proto (no model files): causal attention as
// MatMul(Q, Kᵀ) · scale + mask -> Softmax -> MatMul(·, V) on [H,T,D] inputs, and a single MatMul (B an input,
// or a constant initializer).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');
const FLOAT = onnx.TensorProto.DataType.FLOAT;

const valueInfo = (name, dims) => onnx.ValueInfoProto.create({
  name,
  type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
});

const tensor = (name, dims, data) => onnx.TensorProto.create({
  name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
});

const node = (opType, input, output, attribute = []) => onnx.NodeProto.create({ opType, input, output, attribute, name: output[0] });

function model(graph) {
  const m = onnx.ModelProto.create({
    irVersion: 8, producerName: 'lookback-bench', opsetImport: [{ domain: '', version: 17 }], graph,
  });
  return onnx.ModelProto.encode(m).finish();
}

// Causal attention on q, k, v: [H,T,D] -> out [H,T,D]. The mask is a constant [T,T] with -1e9 above the
// diagonal, added after scaling; the full T×T score matrix is computed (that is what this graph says).
export function attentionModel(H, T, D) {
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -1e9;
  const graph = onnx.GraphProto.create({
    name: 'attention',
    input: [valueInfo('q', [H, T, D]), valueInfo('k', [H, T, D]), valueInfo('v', [H, T, D])],
    output: [valueInfo('out', [H, T, D])],
    initializer: [tensor('scale', [], new Float32Array([1 / Math.sqrt(D)])), tensor('mask', [T, T], mask)],
    node: [
      node('Transpose', ['k'], ['kt'], [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [0, 2, 1] }]),
      node('MatMul', ['q', 'kt'], ['qk']),
      node('Mul', ['qk', 'scale'], ['scaled']),
      node('Add', ['scaled', 'mask'], ['masked']),
      node('Softmax', ['masked'], ['p'], [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 }]),
      node('MatMul', ['p', 'v'], ['out']),
    ],
  });
  return model(graph);
}

// C[M,N] = A[M,K] · B[K,N], both operands graph inputs (passed on every run, like lb.gemm's).
export function gemmModel(M, N, K) {
  const graph = onnx.GraphProto.create({
    name: 'gemm',
    input: [valueInfo('a', [M, K]), valueInfo('b', [K, N])],
    output: [valueInfo('c', [M, N])],
    node: [node('MatMul', ['a', 'b'], ['c'])],
  });
  return model(graph);
}

// C[M,N] = A[M,K] · B with B a constant of the graph (an initializer, resident in the session).
export function gemmConstModel(M, N, K, b) {
  const graph = onnx.GraphProto.create({
    name: 'gemm_const',
    input: [valueInfo('a', [M, K])],
    output: [valueInfo('c', [M, N])],
    initializer: [tensor('b', [K, N], b)],
    node: [node('MatMul', ['a', 'b'], ['c'])],
  });
  return model(graph);
}
