// node:test tests of the JS API on the built WebAssembly module: values against a plain-JS float64 reference
// on random shapes, every bad-input case giving an Error with a useful message, and no heap growth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import { attentionRef, gemmRef, maxError, randomArray, scoresRef, softmaxRef } from './reference.mjs';

const lb = await loadLookback();

// max relative error (1e-4 relative + 1e-6 absolute units) <= 1
const close = (got, want, what) => assert.ok(maxError(got, want) <= 1, `${what}: error ${maxError(got, want)}`);

test('the module loads once per process and reports its SIMD width', async () => {
  assert.equal(await loadLookback(), lb);
  assert.equal(lb.simdWidth(), 4);
});

test('scores match the float64 reference on random shapes', () => {
  let seed = 1;
  for (const [T, S, H, D] of [[1, 1, 1, 1], [3, 5, 2, 3], [7, 7, 4, 8], [16, 20, 3, 33], [33, 40, 6, 32]]) {
    const q = randomArray(T * H * D, seed++), k = randomArray(S * H * D, seed++);
    for (const scale of [true, false, 0.3]) {
      const s = scale === true ? 1 / Math.sqrt(D) : scale === false ? 1 : scale;
      close(lb.scores(q, k, { T, S, heads: H, d: D, scale }), scoresRef(q, k, { T, S, H, D, scale: s }), `scores ${T},${S},${H},${D}`);
    }
  }
});

test('softmax matches the reference, with masks, -Infinity, temperature and fully masked rows', () => {
  const x = randomArray(4 * 9, 7, 90, 100);  // logits near 100
  x[3] = -Infinity;
  const mask = new Uint8Array(36).fill(1);
  for (let c = 0; c < 9; c++) mask[9 + c] = 0;  // row 1 fully masked
  const got = lb.softmax(x, { rows: 4, cols: 9, mask, temperature: 0.5 });
  const masked = Float32Array.from(x, (v, i) => (mask[i] ? v : -Infinity));
  const want = softmaxRef(masked, 4, 9, 0.5);
  close(got.weights, want.weights, 'softmax');
  assert.equal(got.emptyRows, 1);
  assert.equal(got.weights[3], 0);
  assert.ok(got.weights.slice(9, 18).every((w) => w === 0));
  assert.deepEqual(Array.from(lb.softmax([-5, -6, -7, -8]).weights, (w) => Math.round(w * 1e4) / 1e4), [0.6439, 0.2369, 0.0871, 0.0321]);
});

test('attention matches the reference: causal, grouped heads, masks, key offsets', () => {
  let seed = 100;
  for (const [T, S, H, Hkv, D, causal] of [[1, 1, 1, 1, 1, true], [5, 5, 2, 1, 3, true], [9, 12, 4, 2, 8, true],
    [17, 17, 6, 6, 32, false], [40, 40, 3, 3, 5, true], [4, 6, 2, 2, 4, false]]) {
    const q = randomArray(T * H * D, seed++, -2, 2), k = randomArray(S * Hkv * D, seed++, -2, 2), v = randomArray(S * Hkv * D, seed++);
    const mask = T === 4 ? Uint8Array.from({ length: T * S }, (_, i) => (i % 5 === 0 ? 0 : 1)) : null;
    const got = lb.attention(q, k, v, { T, S, heads: H, kvHeads: Hkv, d: D, causal, mask });
    const want = attentionRef(q, k, v, { T, S, H, Hkv, D, causal, mask, scale: 1 / Math.sqrt(D) });
    close(got.output, want.output, `output ${T},${S},${H},${Hkv},${D}`);
    close(got.weights, want.weights, `weights ${T},${S},${H},${Hkv},${D}`);
    assert.equal(got.emptyRows, want.emptyRows);
  }
});

test('blend, gemm and dot match the reference', () => {
  const w = lb.softmax(randomArray(2 * 3 * 5, 3), { rows: 6, cols: 5 }).weights;  // [H=2,T=3,S=5]
  const v = randomArray(5 * 2 * 4, 4);
  const want = new Float64Array(3 * 2 * 4);
  for (let t = 0; t < 3; t++) for (let h = 0; h < 2; h++) for (let d = 0; d < 4; d++) {
    for (let s = 0; s < 5; s++) want[(t * 2 + h) * 4 + d] += w[(h * 3 + t) * 5 + s] * v[(s * 2 + h) * 4 + d];
  }
  close(lb.blend(w, v, { T: 3, S: 5, heads: 2, d: 4 }), want, 'blend');
  const a = randomArray(7 * 9, 5), b = randomArray(9 * 11, 6);
  close(lb.gemm(a, b, { M: 7, N: 11, K: 9 }), gemmRef(a, b, 7, 11, 9, false), 'gemm');
  close(lb.gemm(a, b, { M: 7, N: 11, K: 9, transB: true }), gemmRef(a, b, 7, 11, 9, true), 'gemm transB');
  assert.ok(Math.abs(lb.dot([1, 2, 3], [4, 5, 6]) - 32) < 1e-6);
});

test('out: attention and gemm write into the caller\'s array, the same numbers as a new one', () => {
  const [T, H, D] = [9, 3, 8];
  const q = randomArray(T * H * D, 41, -2, 2), k = randomArray(T * H * D, 42, -2, 2), v = randomArray(T * H * D, 43);
  const opts = { T, heads: H, d: D, causal: true };
  const fresh = lb.attention(q, k, v, opts);
  const out = new Float32Array(T * H * D).fill(7);
  for (let round = 0; round < 2; round++) {  // a second call overwrites the first's values
    const got = lb.attention(q, k, v, { ...opts, out });
    assert.equal(got.output, out);
    assert.deepEqual(got.output, fresh.output);
    assert.deepEqual(got.weights, fresh.weights);
  }
  const a = randomArray(7 * 9, 5), b = randomArray(9 * 11, 6);
  const c = new Float32Array(7 * 11);
  assert.equal(lb.gemm(a, b, { M: 7, N: 11, K: 9, out: c }), c);
  assert.deepEqual(c, lb.gemm(a, b, { M: 7, N: 11, K: 9 }));
  assert.throws(() => lb.attention(q, k, v, { ...opts, out: new Float32Array(5) }),
    /attention: out must hold T\*heads\*d \(9\*3\*8\) = 216 floats \(got 5\)/);
  assert.throws(() => lb.attention(q, k, v, { ...opts, out: new Float64Array(216) }), /attention: out must be a Float32Array of T\*heads\*d/);
  assert.throws(() => lb.gemm(a, b, { M: 7, N: 11, K: 9, out: [] }), /gemm: out must be a Float32Array of M\*N \(7\*11\) = 77 floats/);
  const before = Float32Array.from(c);
  assert.throws(() => lb.gemm(a, b, { M: 7, N: 11, K: 9, out: new Float32Array(76) }), /out must hold M\*N/);
  assert.deepEqual(c, before, 'a refused call writes nothing');
});

test('attention gives the same numbers after the memory grows between calls, in both modules', async () => {
  for (const threads of [1, 'auto']) {
    const m = await loadLookback({ threads });
    const [T, H, D] = [6, 2, 4];
    const q = randomArray(T * H * D, 71, -2, 2), k = randomArray(T * H * D, 72, -2, 2), v = randomArray(T * H * D, 73);
    const opts = { T, heads: H, d: D, causal: true };
    const want = attentionRef(q, k, v, { T, S: T, H, Hkv: H, D, causal: true, mask: null, scale: 1 / Math.sqrt(D) });
    const first = m.attention(q, k, v, opts);
    const kept = Float32Array.from(first.weights);
    // larger calls until the memory has grown (the weights of T=S=N, 16 heads: 16*N*N floats)
    const heap = m.heapBytes();
    for (const N of [512, 1024, 2048]) {
      if (m.heapBytes() > heap) break;
      const x = randomArray(N * 16 * 4, N);
      m.attention(x, x, x, { T: N, heads: 16, d: 4 });
    }
    assert.ok(m.heapBytes() > heap, `threads ${threads}: the memory grew`);
    const again = m.attention(q, k, v, opts);
    close(again.output, want.output, `threads ${threads}: output after growth`);
    close(again.weights, want.weights, `threads ${threads}: weights after growth`);
    assert.deepEqual(first.weights, kept, 'a result is the caller\'s own copy');
    assert.throws(() => m.attention(Float32Array.of(NaN, ...q.subarray(1)), k, v, opts), /attention: q\[0\] is NaN; expected finite values/);
  }
});

test('masks: causal with an offset, padding', () => {
  assert.deepEqual(Array.from(lb.causalMask(2, 3)), [1, 1, 0, 1, 1, 1]);
  assert.deepEqual(Array.from(lb.causalMask(3)), [1, 0, 0, 1, 1, 0, 1, 1, 1]);
  assert.deepEqual(Array.from(lb.paddingMask(1, 4, 2)), [1, 1, 0, 0]);
});

test('bad input gives an Error that names the argument, and the module stays usable', () => {
  const q = new Float32Array(4), k = new Float32Array(6);
  const cases = [
    [() => lb.scores(q, k, { T: 2, S: 4, d: 2 }), /scores: k must hold S\*heads\*d \(4\*1\*2\) = 8 floats \(got 6\)/],
    [() => lb.scores(q, k, { T: 0, S: 3, d: 2 }), /scores: T must be an integer in \[1, /],
    [() => lb.scores(q, k, { T: 2.5, S: 3, d: 2 }), /T must be an integer/],
    [() => lb.scores(q, k, { S: 3, d: 2 }), /option "T" is required/],
    [() => lb.scores(q, k, { T: 2, S: 3, d: 2, scale: 'yes' }), /scale must be true/],
    [() => lb.scores(q, k, { T: 2, S: 3, d: 2, heads: 1e9 }), /heads must be an integer in \[1, 1024\]/],
    [() => lb.scores('hello', k, { T: 2, S: 3, d: 2 }), /q must be a Float32Array/],
    [() => lb.scores(q, k, { T: 2, S: 3, d: 2, scale: NaN }), /scale must be a finite number \(got NaN\)/],
    [() => lb.scores(Float32Array.of(1, NaN, 0, 0), k, { T: 2, S: 3, d: 2 }), /q\[1\] is NaN; expected finite values/],
    [() => lb.scores(q, k, { T: 2, S: 3, d: 2, dims: 2 }), /unknown option "dims"/],
    [() => lb.softmax([1, Infinity]), /x\[1\] is Infinity; expected finite values or -Infinity/],
    [() => lb.softmax([1, 2], { temperature: 0 }), /temperature must be a finite positive number/],
    [() => lb.softmax([1, 2, 3], { rows: 2 }), /cols must be an integer/],
    [() => lb.softmax([1, 2], { mask: new Float32Array(2) }), /mask must be a Uint8Array/],
    [() => lb.softmax([1, 2], { mask: new Uint8Array(3) }), /mask must hold rows\*cols \(1\*2\) = 2 bytes \(got 3\)/],
    [() => lb.attention(q, k, k, { T: 2, S: 3, d: 2, heads: 2, kvHeads: 2 }), /q must hold T\*heads\*d/],
    [() => lb.attention(q, k, k, { T: 2, S: 3, d: 1, heads: 2, kvHeads: 3 }), /kvHeads must be an integer in \[1, 2\]/],
    [() => lb.attention(new Float32Array(6), k, k, { T: 3, S: 3, d: 2, heads: 1, kvHeads: 1, causal: true, mask: [1] }), /mask must hold T\*S/],
    [() => lb.attention(new Float32Array(12), new Float32Array(4), new Float32Array(4), { T: 3, S: 2, d: 2, heads: 2, causal: true }), /causal attention needs S >= T/],
    [() => lb.attention(new Float32Array(12), new Float32Array(8), new Float32Array(8), { T: 2, S: 2, d: 3, heads: 2, kvHeads: 2, weights: true, causal: false, mask: null, temperature: -1 }), /temperature must be a finite positive number/],
    [() => lb.blend(new Float32Array(3), new Float32Array(3), { T: 1, S: 3, d: 2 }), /blend: v must hold S\*heads\*d/],
    [() => lb.gemm([1], [1], { M: 1, N: 1, K: 2 }), /gemm: a must hold M\*K/],
    [() => lb.dot([1, 2], [1]), /dot: b must hold a.length = 2 floats \(got 1\)/],
    [() => lb.causalMask(3, 2), /causalMask: S must be an integer in \[3, /],
    [() => lb.paddingMask(2, 3, 4), /paddingMask: valid must be an integer in \[0, 3\]/],
    [() => lb.scores(new Float32Array(65536), new Float32Array(65536), { T: 65536, S: 65536, d: 1 }), /more than 67108864 elements/],
    [() => lb.attention(q, k, k, 'causal'), /options must be an object/],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
    assert.equal(lb.dot([1, 1], [2, 3]), 5, 'still usable');
  }
});

test('no heap growth over 10,000 calls', () => {
  const q = randomArray(16 * 2 * 8, 9), k = randomArray(16 * 2 * 8, 10);
  for (let i = 0; i < 100; i++) lb.attention(q, k, k, { T: 16, heads: 2, d: 8, causal: true });
  const before = lb.heapBytes();
  for (let i = 0; i < 10000; i++) {
    lb.attention(q, k, k, { T: 16, heads: 2, d: 8, causal: true });
    if (i % 100 === 0) assert.throws(() => lb.scores(q, k, { T: 3, d: 8 }));
  }
  assert.equal(lb.heapBytes(), before);
});
