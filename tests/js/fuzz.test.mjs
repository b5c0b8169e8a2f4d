// Random campaigns over the JS API, run by `npm test`: every core function on extreme finite floats (float32's
// largest and smallest values, denormals, signed zeros, huge scales and temperatures) must either throw an Error
// or return only finite numbers, never NaN; and every tokenizer (byte-level BPE with and without merges, through
// the transformer's bindings and the window model's, llama2.c's) must give back random UTF-16 strings as
// TextEncoder would (lone surrogates as U+FFFD). Seeded, so a failure repeats; the counts are printed. Not the
// hand-written regressions (hardening.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import { mulberry32 } from './reference.mjs';

const lb = await loadLookback();

const FLT_MAX = 3.4028234663852886e38;
const EXTREMES = [0, -0, 1, -1, FLT_MAX, -FLT_MAX, 1e38, -1e38, 1e30, -1e30, 1e20, -1e20, 1e10, 1.401298464324817e-45,
  -1.401298464324817e-45, 1.1754943508222875e-38, 1e-30, 0.5, 3];
const SIZES = [0, 1e-45, 1e-39, 1e-31, 1e-30, 1e-10, 1, 2, 1e10, 1e30, 1e31, 1e39, FLT_MAX];

// wild: the share of extreme values (often none, at most a fifth, so that many cases still compute)
function draw(r, n, wild) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = r() < wild ? EXTREMES[Math.floor(r() * EXTREMES.length)] : (r() - 0.5) * 8;
  return out;
}

const wildness = (r) => (r() < 0.3 ? 0 : r() * 0.2);
const pick = (r, xs) => xs[Math.floor(r() * xs.length)];
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

// Each returned Float32Array (or number) must be free of NaN and Infinity; or the call threw an Error.
function finiteOrError(what, f, counts) {
  let result;
  try {
    result = f();
  } catch (e) {
    assert.equal(e.constructor, Error, `${what}: ${e.constructor.name}: ${e.message}`);
    assert.ok(e.message.length > 10, `${what}: an Error that says what`);
    counts.errors++;
    return;
  }
  counts.results++;
  const arrays = typeof result === 'number' ? [[result]] : result instanceof Float32Array ? [result]
    : Object.values(result).filter((v) => v instanceof Float32Array);
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) {
      if (!Number.isFinite(a[i])) assert.fail(`${what}: element ${i} is ${a[i]}`);
    }
  }
}

const CORE = {
  scores(r) {
    const T = int(r, 1, 9), S = int(r, 1, 9), heads = int(r, 1, 3), d = int(r, 1, 9), w = wildness(r);
    const scale = r() < 0.5 ? r() < 0.5 : pick(r, SIZES) * (r() < 0.5 ? -1 : 1);
    return () => lb.scores(draw(r, T * heads * d, w), draw(r, S * heads * d, w), { T, S, heads, d, scale });
  },
  softmax(r) {
    const rows = int(r, 1, 5), cols = int(r, 1, 19), x = draw(r, rows * cols, wildness(r));
    for (let i = 0; i < x.length; i++) if (r() < 0.1) x[i] = -Infinity;
    const mask = r() < 0.3 ? Uint8Array.from({ length: rows * cols }, () => (r() < 0.7 ? 1 : 0)) : null;
    return () => lb.softmax(x, { rows, cols, mask, temperature: pick(r, SIZES) });
  },
  blend(r) {
    const T = int(r, 1, 9), S = int(r, 1, 9), heads = int(r, 1, 3), d = int(r, 1, 9), w = wildness(r);
    return () => lb.blend(draw(r, heads * T * S, w), draw(r, S * heads * d, w), { T, S, heads, d });
  },
  attention(r) {
    const T = int(r, 1, 9), S = T + int(r, 0, 4), kvHeads = int(r, 1, 2), heads = kvHeads * int(r, 1, 2);
    const d = int(r, 1, 9), w = wildness(r), causal = r() < 0.5;
    const mask = r() < 0.3 ? Uint8Array.from({ length: T * S }, () => (r() < 0.7 ? 1 : 0)) : null;
    const scale = r() < 0.5 ? r() < 0.5 : pick(r, SIZES) * (r() < 0.5 ? -1 : 1);
    return () => lb.attention(draw(r, T * heads * d, w), draw(r, S * kvHeads * d, w), draw(r, S * kvHeads * d, w),
      { T, S, heads, kvHeads, d, causal, mask, scale, temperature: pick(r, SIZES), weights: r() < 0.5 });
  },
  gemm(r) {
    const M = int(r, 1, 9), N = int(r, 1, 9), K = int(r, 1, 9), w = wildness(r);
    return () => lb.gemm(draw(r, M * K, w), draw(r, K * N, w), { M, N, K, transB: r() < 0.5 });
  },
  dot(r) {
    const n = int(r, 0, 40), w = wildness(r);
    return () => lb.dot(draw(r, n, w), draw(r, n, w));
  },
};

test('every core function on extreme finite floats: finite results or an Error, never NaN', () => {
  const N = 1500;
  for (const [name, make] of Object.entries(CORE)) {
    const r = mulberry32(name.length * 7919);
    const counts = { results: 0, errors: 0 };
    for (let i = 0; i < N; i++) finiteOrError(`${name} #${i}`, make(r), counts);
    console.log(`fuzz ${name}: ${N} cases, ${counts.results} finite results, ${counts.errors} errors`);
    assert.ok(counts.results > N / 10, `${name}: most cases still compute`);
  }
});

// A random UTF-16 string: ASCII, Latin, CJK, astral pairs, lone surrogates (high or low), controls and NUL.
function utf16(r, n) {
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r();
    if (k < 0.3) s += String.fromCharCode(32 + Math.floor(r() * 95));
    else if (k < 0.4) s += pick(r, [' ', '\n', '\t', '\r', '\0']);
    else if (k < 0.55) s += String.fromCharCode(0xA0 + Math.floor(r() * 0x700));
    else if (k < 0.65) s += String.fromCharCode(0x4E00 + Math.floor(r() * 0x5000));
    else if (k < 0.8) s += String.fromCodePoint(0x10000 + Math.floor(r() * 0xFFFFF));
    else s += String.fromCharCode(0xD800 + Math.floor(r() * 0x800));  // a lone surrogate (or, by chance, a pair)
  }
  return s;
}

function roundTrips(model, seed, label) {
  const r = mulberry32(seed);
  const N = 400;
  for (let i = 0; i < N; i++) {
    const s = utf16(r, int(r, 0, 40));
    const ids = model.encode(s);
    assert.equal(model.decode(ids), s.toWellFormed(), `${label}: ${JSON.stringify(s)}`);
    assert.deepEqual(ids, model.encode(s.toWellFormed()), `${label}: ${JSON.stringify(s)}`);
  }
  console.log(`fuzz ${label}: ${N} random UTF-16 strings round-trip`);
}

const TEST_CONFIG = {
  arch: 'test', dim: 8, n_layers: 1, n_heads: 2, n_kv_heads: 2, head_dim: 4, hidden_dim: 16, vocab_size: 258,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};

test('byte-level BPE, no merges and the bundled Sprout tokenizer: random UTF-16 round-trips', async () => {
  const plain = await lb.loadModel(lb.randomWeights(TEST_CONFIG), {
    config: TEST_CONFIG, tokenizer: { type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] },
  });
  roundTrips(plain, 1, 'byte-bpe without merges');
  plain.dispose();
  const sprout = fileURLToPath(new URL('../../shared/models/sprout/', import.meta.url));
  const tokenizer = JSON.parse(readFileSync(`${sprout}tokenizer.json`, 'utf8'));
  const config = { ...JSON.parse(readFileSync(`${sprout}config.json`, 'utf8')), dim: 8, n_layers: 1, n_heads: 2, n_kv_heads: 2, head_dim: 4, hidden_dim: 16, max_seq_len: 16 };
  const merged = await lb.loadModel(lb.randomWeights(config), { config, tokenizer });
  roundTrips(merged, 2, `byte-bpe with Sprout's ${tokenizer.merges.length} merges`);
  merged.dispose();
});

test("the window model's tokenizer (its own bindings): random UTF-16 round-trips", async () => {
  const win = await lb.loadModel('window');
  roundTrips(win, 5, 'the window model');
  win.dispose();
});

// A llama2.c tokenizer .bin: <unk>, <s>, </s>, the 256 byte pieces, then a few pieces (scored) to merge into.
function spTokenizer(pieces) {
  const enc = new TextEncoder();
  const all = ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`), ...pieces];
  const bytes = all.map((p) => enc.encode(p));
  const out = new Uint8Array(4 + bytes.reduce((n, b) => n + 8 + b.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.max(...bytes.map((b) => b.length)), true);
  let at = 4;
  bytes.forEach((b, i) => {
    view.setFloat32(at, i >= 259 ? -(i - 259) : 0, true);
    view.setInt32(at + 4, b.length, true);
    out.set(b, at + 8);
    at += 8 + b.length;
  });
  return { bytes: out, vocab: all.length };
}

// A llama2.c checkpoint of small random weights (tied classifier) for that vocabulary.
function llama2c(vocab) {
  const dim = 8, hidden = 16, L = 1, H = 2, kvH = 2, seq = 16, hd = dim / H, kv = kvH * hd;
  const floats = vocab * dim + L * (dim + dim * dim + 2 * dim * kv + dim * dim + dim + 3 * hidden * dim) + dim + seq * hd;
  const out = new Uint8Array(28 + 4 * floats);
  const view = new DataView(out.buffer);
  [dim, hidden, L, H, kvH, vocab, seq].forEach((v, i) => view.setInt32(4 * i, v, true));
  const r = mulberry32(3);
  for (let i = 0; i < floats; i++) view.setFloat32(28 + 4 * i, (r() - 0.5) * 0.2, true);
  return out;
}

test("llama2.c's tokenizer (a made-up vocabulary, and stories260K's): random UTF-16 round-trips", async () => {
  const tok = spTokenizer([' ', 'a', ' a', 'é', '中', ' t', 'th', ' th', 'the', ' the', '\uFFFD', '😀']);
  const made = await lb.loadModel({ checkpoint: llama2c(tok.vocab), tokenizer: tok.bytes });
  roundTrips(made, 3, 'llama2.c tokenizer (made up)');
  made.dispose();
  const dir = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));
  const stories = await lb.loadModel(`${dir}stories260K.bin`, { tokenizer: `${dir}tok512.bin` });
  roundTrips(stories, 4, 'llama2.c tokenizer (stories260K)');
  stories.dispose();
});
