// Measured WebAssembly SIMD128 peak: a hand-assembled module (bytes written here, no tools) whose loop
// keeps `acc` independent f32x4 accumulators busy with acc = acc * m + c (one f32x4.mul and one f32x4.add,
// counted as 2 flops per lane). The chains are data-dependent (nothing to hoist); several accumulator counts
// are tried and the best is the peak. Not a GEMM: no loads, no splats.

const uleb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const vec = (items) => [...uleb(items.length), ...items.flat()];
const str = (s) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const f32 = (x) => [...new Uint8Array(new Float32Array([x]).buffer)];

const I32 = 0x7f, F32 = 0x7d, V128 = 0x7b;
const SIMD = (op) => [0xfd, ...uleb(op)];
const op = {
  localGet: (i) => [0x20, ...uleb(i)], localSet: (i) => [0x21, ...uleb(i)], localTee: (i) => [0x22, ...uleb(i)],
  f32const: (x) => [0x43, ...f32(x)], i32const: (x) => [0x41, ...sleb(x)],
  i32sub: [0x6b], f32add: [0x92],
  splat: SIMD(0x13), extract: (lane) => [...SIMD(0x1f), lane], add: SIMD(0xe4), mul: SIMD(0xe6),
  block: [0x02, 0x40], loop: [0x03, 0x40], brIf: (d) => [0x0d, ...uleb(d)], end: [0x0b],
};

// (func (param $n i32) (result f32)): runs n iterations of `unroll` steps over `acc` accumulators.
function peakModule(acc, unroll) {
  const n = 0, m = 1, c = 2, a0 = 3;
  const body = [];
  body.push(...op.f32const(0.999), ...op.splat, ...op.localSet(m));
  body.push(...op.f32const(0.001), ...op.splat, ...op.localSet(c));
  for (let i = 0; i < acc; i++) body.push(...op.f32const(i * 0.01), ...op.splat, ...op.localSet(a0 + i));
  body.push(...op.block, ...op.loop);
  for (let u = 0; u < unroll; u++) {
    for (let i = 0; i < acc; i++) {
      body.push(...op.localGet(a0 + i), ...op.localGet(m), ...op.mul, ...op.localGet(c), ...op.add, ...op.localSet(a0 + i));
    }
  }
  body.push(...op.localGet(n), ...op.i32const(1), ...op.i32sub, ...op.localTee(n), ...op.brIf(0), ...op.end, ...op.end);
  // result: lane 0 of the sum of all accumulators, so that nothing is dead
  body.push(...op.localGet(a0));
  for (let i = 1; i < acc; i++) body.push(...op.localGet(a0 + i), ...op.add);
  body.push(...op.extract(0), ...op.end);
  const locals = vec([[...uleb(2 + acc), V128]]);
  const func = [...locals, ...body];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec([[I32]]), ...vec([[F32]])]])),
    ...section(3, vec([uleb(0)])),
    ...section(7, vec([[...str('run'), 0x00, ...uleb(0)]])),
    ...section(10, vec([[...uleb(func.length), ...func]])),
  ];
  return new Uint8Array(bytes);
}

export async function loadPeak(acc, unroll = 4) {
  const { instance } = await WebAssembly.instantiate(peakModule(acc, unroll));
  const run = instance.exports.run;
  return { acc, unroll, run, flopsPerIter: unroll * acc * 4 * 2 };
}

// The variants tried; the benchmark interleaves them with everything else and keeps the best median.
export const PEAK_ACCUMULATORS = [8, 10, 12, 13, 14];
