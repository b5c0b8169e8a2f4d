// node:test tests of resident weight matrices (lb.weight): the same products as lb.gemm for M around the
// matrix-vector / GEMM switch and the tile sizes, both layouts of b, reuse across calls with different M,
// argument errors that name what is expected, dispose, and no heap growth over repeated calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';

const lb = await loadLookback();

function rand(n, seed) {
  let s = seed;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) / 2 ** 23 - 1;
  });
}
const close = (a, b) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-4 * (1 + Math.abs(b[i])), `[${i}] ${a[i]} vs ${b[i]}`);
};

test('weight.gemm equals gemm for M = 1..9 and 64, with b as [K,N] or [N,K]', () => {
  const K = 37, N = 21;
  const b = rand(K * N, 1);
  for (const transB of [false, true]) {
    const w = lb.weight(b, { K, N, transB });
    assert.equal(w.K, K);
    assert.equal(w.N, N);
    for (const M of [1, 2, 3, 4, 5, 8, 9, 64]) {
      const a = rand(M * K, M);
      close(w.gemm(a, { M }), lb.gemm(a, b, { M, N, K, transB }));
    }
    w.dispose();
  }
});

test('weight: bad input names the argument; after dispose, calls say so', () => {
  assert.throws(() => lb.weight(new Float32Array(5), { K: 2, N: 3 }), /b must hold K\*N \(2\*3\) = 6 floats/);
  assert.throws(() => lb.weight(new Float32Array(6), { K: 2 }), /option "N" is required/);
  assert.throws(() => lb.weight(Float32Array.of(1, 2, NaN, 4, 5, 6), { K: 2, N: 3 }), /b\[2\] is NaN/);
  const w = lb.weight(new Float32Array(6), { K: 2, N: 3 });
  assert.throws(() => w.gemm(new Float32Array(3), { M: 1 }), /a must hold M\*K \(1\*2\) = 2 floats/);
  assert.throws(() => w.gemm(new Float32Array(2), { M: 1, N: 3 }), /unknown option "N"/);
  assert.deepEqual(Array.from(w.gemm([1, 2], { M: 1 })), [0, 0, 0]);
  const out = new Float32Array(3).fill(9);
  assert.equal(w.gemm([1, 2], { M: 1, out }), out);
  assert.deepEqual(Array.from(out), [0, 0, 0]);
  assert.throws(() => w.gemm([1, 2], { M: 1, out: new Float32Array(4) }), /weight.gemm: out must hold M\*N \(1\*3\) = 3 floats \(got 4\)/);
  w.dispose();
  w.dispose();
  assert.throws(() => w.gemm([1, 2], { M: 1 }), /disposed/);
});

test('repeated weight.gemm calls do not grow the heap', () => {
  const K = 64, N = 96, M = 16;
  const w = lb.weight(rand(K * N, 3), { K, N });
  const a = rand(M * K, 4);
  for (let i = 0; i < 5; i++) w.gemm(a, { M });
  const before = lb.heapBytes();
  for (let i = 0; i < 200; i++) w.gemm(a, { M });
  assert.equal(lb.heapBytes(), before);
  w.dispose();
});

test('the staged path (Float32Array a of M*K floats) gives the checked path\'s results and messages', () => {
  const K = 40, N = 24;
  const b = rand(K * N, 5);
  const w = lb.weight(b, { K, N });
  // M up and down (the staging buffer grows only when needed); a plain array takes the checked path
  for (const M of [1, 9, 3, 64, 2]) {
    const a = rand(M * K, 10 + M);
    const want = lb.gemm(a, b, { M, N, K });
    close(w.gemm(a, { M }), want);
    close(w.gemm(Array.from(a), { M }), want);
    const out = new Float32Array(M * N);
    assert.equal(w.gemm(a, { M, out }), out);
    close(out, want);
  }
  const a = rand(K, 7);
  a[3] = NaN;
  assert.throws(() => w.gemm(a, { M: 1 }), /weight.gemm: a\[3\] is NaN; expected finite values/);
  a[3] = 1e37;
  assert.throws(() => w.gemm(a, { M: 1 }), /weight.gemm: a sum of products a·b could reach/);
  assert.throws(() => w.gemm(rand(K, 8), { M: 1, out: new Float32Array(N + 1) }), /out must hold M\*N \(1\*24\) = 24 floats \(got 25\)/);
  assert.throws(() => w.gemm(rand(K, 8), { M: 1.5 }), /M/);
  w.dispose();
  assert.throws(() => w.gemm(rand(K, 8), { M: 1 }), /disposed/);
});

// The one-thread module's memory is an ArrayBuffer, which growth detaches (with every view into it); the threaded
// module's is shared and stays in place.
for (const threads of [1, 2]) {
  test(`the staged path stays right when the module's memory grows between and during calls (threads: ${threads})`, async () => {
    const lbt = await loadLookback({ threads });
    const K = 48, N = 32;
    const b = rand(K * N, 11);
    const w = lbt.weight(b, { K, N });
    const a1 = rand(K, 12);
    close(w.gemm(a1, { M: 1 }), lbt.gemm(a1, b, { M: 1, N, K }));
    // another weight of 64 MiB grows the memory between two calls
    const big = lbt.weight(new Float32Array(4096 * 4096), { K: 4096, N: 4096 });
    close(w.gemm(a1, { M: 1 }), lbt.gemm(a1, b, { M: 1, N, K }));
    // a first call with a large M grows the staging buffer (and the memory) before the call; the GEMM's own
    // buffers may grow it during the call
    const M = 3000, a = rand(M * K, 13);
    close(w.gemm(a, { M }), lbt.gemm(a, b, { M, N, K }));
    big.dispose();
    w.dispose();
  });
}
