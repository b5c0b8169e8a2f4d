// node:test tests of GGUF files from Node: a llama GGUF written by the test (tests/js/gguf-writer.mjs) from a
// random lookback bundle loads with lb.loadModel('x.gguf') and gives the bundle's logits and head habits on the
// same ids; the command line's `heads --model x.gguf --json` prints the API's scores; @huggingface/gguf reads the
// same metadata and tensors lookback reports. Not the decoders or the container's refusals (tests/cpp/test_gguf.cpp).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gguf } from '@huggingface/gguf';
import { loadLookback } from 'lookback';
import { ggufName, llamaGguf, llamaVocabulary, quantizeQ4K, readSafetensors } from './gguf-writer.mjs';
import { nameCopies } from '../../web/js/widgets/model-view.js';
import { writeST } from './hf-folders.mjs';

const CLI = fileURLToPath(new URL('../../web/js/cli/lookback.mjs', import.meta.url));
const CONFIG = {
  arch: 'test', dim: 32, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 8, hidden_dim: 48, vocab_size: 300,
  max_seq_len: 64, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 1, eos_id: 2,
};
// the bundle's own tokenizer (42 merges "AA", "BB", ... to fill the 300 ids); the comparisons run on ids
const MERGES = Array.from({ length: 42 }, (_, i) => [2 + 48 + i, 2 + 48 + i]);
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 300, bos_id: 0, eos_id: 1, merges: MERGES });

const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-gguf-'));
after(() => rm(dir, { recursive: true, force: true }));
const weights = lb.randomWeights(CONFIG, { seed: 7 });
const file = join(dir, 'x.gguf');
await writeFile(file, llamaGguf(CONFIG, weights));
const bundle = join(dir, 'bundle');
await mkdir(bundle);
await writeFile(join(bundle, 'model.safetensors'), weights);
await writeFile(join(bundle, 'config.json'), JSON.stringify({ ...CONFIG, bos_id: 0, eos_id: 1 }));  // byte-bpe's marks
await writeFile(join(bundle, 'tokenizer.json'), TOKENIZER);

const IDS = [1, 40, 77, 299, 5, 40, 77, 12, 260, 3, 150, 40];

test('lb.loadModel reads a llama GGUF: the same logits and head habits as the same weights in a lookback bundle', async () => {
  const g = await lb.loadModel(file);
  const b = await lb.loadModel(bundle);
  try {
    assert.equal(g.info.format, 'gguf');
    for (const k of ['dim', 'n_layers', 'n_heads', 'n_kv_heads', 'head_dim', 'hidden_dim', 'vocab_size', 'max_seq_len', 'bos_id', 'eos_id'])
      assert.equal(g.info.config[k], CONFIG[k], k);
    assert.equal(g.info.config.rope_layout, 'adjacent');
    assert.equal(g.info.parameters, b.info.parameters);
    const fg = g.forward(IDS, { attention: true }), fb = b.forward(IDS, { attention: true });
    assert.deepEqual(fg.logits, fb.logits);
    assert.deepEqual(fg.attention, fb.attention);
    assert.deepEqual(g.headScores([IDS], { repeats: 0 }), b.headScores([IDS], { repeats: 0 }));
    // the vocabulary's own pieces after sentencepiece's leading space: " the" is one piece, "é" falls back to its
    // two byte pieces <0xC3> <0xA9>
    const { tokens } = llamaVocabulary(CONFIG.vocab_size);
    const ids = g.encode('the é', { bos: false });
    assert.deepEqual(ids, [tokens.indexOf('▁the'), tokens.indexOf('▁'), tokens.indexOf('<0xC3>'), tokens.indexOf('<0xA9>')]);
    assert.equal(g.decode(ids), ' the é');  // decode keeps the leading space (no start mark before it)
  } finally {
    g.dispose();
    b.dispose();
  }
});

test('the command line\'s heads --model x.gguf --json prints the API\'s head scores for the GGUF', async () => {
  const text = 'the cat the cat';
  const g = await lb.loadModel(file);
  const want = g.headScores([text]);
  g.dispose();
  const r = spawnSync(process.execPath, [CLI, 'heads', text, '--model', file, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.layers, CONFIG.n_layers);
  assert.equal(t.heads, CONFIG.n_heads);
  assert.equal(t.rows.length, CONFIG.n_layers * CONFIG.n_heads);
  for (const row of t.rows)
    assert.equal(row.induction, want.induction.byLayer[row.layer_index][row.head_index], row.head);
});

test('@huggingface/gguf reads the metadata and tensors lookback reports for the same file', async () => {
  const theirs = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
  const g = await lb.loadModel(file);
  try {
    const m = theirs.metadata, c = g.info.config;
    assert.equal(m['general.architecture'], 'llama');
    assert.equal(Number(m.version), 3);
    assert.equal(m['llama.block_count'], c.n_layers);
    assert.equal(m['llama.embedding_length'], c.dim);
    assert.equal(m['llama.feed_forward_length'], c.hidden_dim);
    assert.equal(m['llama.attention.head_count'], c.n_heads);
    assert.equal(m['llama.attention.head_count_kv'], c.n_kv_heads);
    assert.equal(m['llama.attention.key_length'], c.head_dim);
    assert.equal(m['llama.context_length'], c.max_seq_len);
    assert.equal(m['llama.rope.freq_base'], c.rope_theta);
    assert.equal(m['llama.attention.layer_norm_rms_epsilon'], Math.fround(c.norm_eps));
    assert.equal(m['tokenizer.ggml.tokens'].length, c.vocab_size);
    assert.equal(m['tokenizer.ggml.bos_token_id'], c.bos_id);
    assert.equal(m['tokenizer.ggml.eos_token_id'], c.eos_id);
    assert.equal(theirs.parameterCount, g.info.parameters);
    for (let id = 259; id < c.vocab_size; id += 7)
      assert.equal(g.decode([id]), m['tokenizer.ggml.tokens'][id].replaceAll('▁', ' '), `piece ${id}`);
    const ours = readSafetensors(weights);
    assert.deepEqual(theirs.tensorInfos.map((t) => t.name).sort(), ours.map((t) => ggufName(t.name)).sort());
    for (const t of ours) {
      const info = theirs.tensorInfos.find((x) => x.name === ggufName(t.name));
      assert.deepEqual(info.shape.map(Number), [...t.shape].reverse(), info.name);
      assert.equal(info.dtype, 0, info.name);
    }
  } finally {
    g.dispose();
  }
});

test('GGUF bytes load without { tokenizer }; the matrices are held as their type suggests unless the caller chooses', async () => {
  // rows of 32 values or more in every matrix (ggml's quantised blocks are 32 wide)
  const config = { ...CONFIG, hidden_dim: 64 };
  const random = lb.randomWeights(config, { seed: 8 });
  const plain = await lb.loadModel(llamaGguf(config, random));
  const want = plain.forward(IDS).logits;
  plain.dispose();
  for (const [type, held, id] of [['F32', 'f32', 0], ['F16', 'f16', 1], ['Q8_0', 'q8', 8], ['Q4_0', 'q4', 2]]) {
    const bytes = llamaGguf(config, random, type);
    const path = join(dir, `${type}.gguf`);
    await writeFile(path, bytes);
    // @huggingface/gguf reads the writer's tensor types and layout
    const theirs = await gguf(path, { allowLocalFile: true });
    for (const t of theirs.tensorInfos) assert.equal(t.dtype, t.shape.length === 2 ? id : 0, `${type} ${t.name}`);
    const m = await lb.loadModel(bytes);
    const f32 = await lb.loadModel(path, { weights: 'f32' });
    try {
      assert.equal(m.info.format, 'gguf');
      assert.equal(m.info.weights, held, type);
      assert.equal(f32.info.weights, 'f32', `${type}: the caller's choice wins`);
      // the file's weights, as quantised: near the F32 file's logits, never equal once quantised
      const got = f32.forward(IDS).logits, scale = Math.max(...want.map(Math.abs));
      const err = Math.max(...got.map((x, i) => Math.abs(x - want[i])));
      assert.ok(type === 'F32' ? err === 0 : err > 0 && err < 0.25 * scale, `${type}: max |logit error| ${err} of ${scale}`);
    } finally {
      m.dispose();
      f32.dispose();
    }
  }
});

// safetensors bytes of F32 tensors [{ name, shape, data }] (readSafetensors' inverse)
const safetensors = (tensors) => writeST(Object.fromEntries(tensors.map((t) => [t.name,
  { dtype: 'F32', shape: t.shape, bytes: new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength) }])));

test('Q4_K written by the writer\'s quantiser reads back through the core\'s decoder as the values it stands for, near the weights', async () => {
  // every matrix's rows are whole Q4_K blocks of 256
  const config = { ...CONFIG, dim: 256, head_dim: 64, n_heads: 4, n_kv_heads: 4, hidden_dim: 256 };
  const tensors = readSafetensors(lb.randomWeights(config, { seed: 9 }));
  // hostile rows in one matrix: all zero, constant, one large outlier, all negative, tiny values
  const wq = tensors.find((t) => t.name === 'layers.0.attention.wq.weight').data;
  wq.subarray(0, 256).fill(0);
  wq.subarray(256, 512).fill(0.5);
  wq[512 + 7] = 100;
  for (let i = 768; i < 1024; i++) wq[i] = -Math.abs(wq[i]) - 0.01;
  for (let i = 1024; i < 1280; i++) wq[i] *= 1e-6;
  const values = tensors.map((t) => (t.shape.length === 2 ? { ...t, data: quantizeQ4K(t.data).values } : t));
  const bytes = llamaGguf(config, safetensors(tensors), 'Q4_K');
  const path = join(dir, 'Q4_K.gguf');
  await writeFile(path, bytes);
  const theirs = await gguf(path, { allowLocalFile: true });
  for (const t of theirs.tensorInfos) assert.equal(t.dtype, t.shape.length === 2 ? 12 : 0, t.name);
  const q = await lb.loadModel(bytes, { weights: 'f32' }), held = await lb.loadModel(llamaGguf(config, safetensors(values)));
  try {
    // the core's decoder gives exactly the values the quantiser says the bytes stand for
    assert.deepEqual(q.forward(IDS, { attention: true }), held.forward(IDS, { attention: true }));
  } finally {
    q.dispose();
    held.dispose();
  }
  // and those values are the weights to within a 4-bit step: each value within its sub-block's range / 15 (half a
  // step for rounding, the rest for the 6-bit scale and min), each matrix to a few per cent; the outlier's block of
  // 256 shares one scale of scales, which leaves its other sub-blocks coarse: there only the outlier is checked
  for (const [i, t] of tensors.entries()) {
    if (t.shape.length !== 2) continue;
    const y = values[i].data, outlier = t.data === wq;
    let e2 = 0, x2 = 0;
    for (let b = 0; b < t.data.length; b += 32) {
      const x = t.data.subarray(b, b + 32), range = Math.max(0, ...x) - Math.min(0, ...x);
      if (outlier && b >= 512 && b < 768) continue;
      for (let j = 0; j < 32; j++) {
        const err = Math.abs(y[b + j] - x[j]);
        assert.ok(err <= range / 15 + 1e-7, `${t.name}[${b + j}]: ${y[b + j]} for ${x[j]} (sub-block range ${range})`);
        e2 += err * err, x2 += x[j] * x[j];
      }
    }
    assert.ok(Math.sqrt(e2 / x2) < 0.1, `${t.name}: relative error ${Math.sqrt(e2 / x2)}`);
  }
  const y = values[tensors.findIndex((t) => t.data === wq)].data;
  assert.deepEqual(Array.from(y.subarray(0, 256)), new Array(256).fill(0));
  assert.ok(Math.abs(y[512 + 7] - 100) < 100 / 15, `the outlier: ${y[512 + 7]}`);
  assert.throws(() => quantizeQ4K(new Float32Array(288)), /288 values are not whole blocks of 256/);
});

test('tokens() places each token in the text its ids decode to; a name said twice is found where it sits, also in a sentencepiece text', async () => {
  const template = 'In the forest lived a tiny creature named {name}. Every morning, {name} sang to the birds.';
  const sprout = await lb.loadModel('sprout'), m = await lb.loadModel(file);  // m: the llama GGUF's sentencepiece-style vocabulary
  try {
    for (const [model, what] of [[sprout, 'Sprout'], [m, 'the GGUF']]) {
      for (const name of ['Zibblor', 'Émile', 'the']) {
        const text = template.split('{name}').join(name);
        const tokens = model.tokens(text), decoded = model.decode(tokens.map((t) => t.id));
        assert.equal(decoded, text, `${what}: ${name}`);
        // one after another over the whole text; a token's own text is its place's (a byte of a longer character
        // reaches that character's end)
        tokens.forEach((t, i) => assert.ok(t.start <= t.end && t.start >= (i ? tokens[i - 1].start : 0) && t.start <= (i ? tokens[i - 1].end : 0), `${what} ${name}: token ${i}`));
        assert.equal(tokens.at(-1).end, text.length);
        const c = nameCopies(tokens, decoded, text, template, name);
        assert.ok(!c.split, `${what}: ${name} split ${JSON.stringify(c.split)}`);
        assert.equal(model.decode(c.part).trim(), name, `${what}: the pieces are the name`);
        assert.deepEqual(tokens.slice(c.b, c.b + c.part.length).map((t) => t.id), c.part, `${what}: the second copy`);
        assert.ok(c.b > c.a);
        // the name alone: Sprout's ids of " name" end with those in the text (a space token of its own is not the
        // name's); the GGUF's do not (sentencepiece puts a space before any text), which is why the name is found by
        // its place
        const alone = model.encode(` ${name}`, { bos: false }), end = alone.slice(-c.part.length);
        if (model === sprout) assert.deepEqual(end, c.part, `Sprout: ${name} alone`);
        else assert.ok(alone.length !== c.part.length || JSON.stringify(end) !== JSON.stringify(c.part), `the GGUF: ${name} alone`);
      }
    }
  } finally {
    sprout.dispose();
    m.dispose();
  }
});

// The bytes id stands for after prev in the GGUF's sentencepiece-style vocabulary, from the vocabulary's pieces
// ("▁" a space, <0xXX> a byte, the marks nothing; a piece after the start mark loses its leading space).
function pieceBytes(vocab, prev, id) {
  if (id === CONFIG.bos_id || id === CONFIG.eos_id) return [];
  const byte = /^<0x([0-9A-F]{2})>$/.exec(vocab[id]);
  if (byte) return [parseInt(byte[1], 16)];
  const text = vocab[id].replaceAll('▁', ' ');
  return [...new TextEncoder().encode(prev === CONFIG.bos_id && text.startsWith(' ') ? text.slice(1) : text)];
}

test('tokens() places every token of a long sentencepiece text (2,000 tokens, a start mark before each part) where its bytes sit', async () => {
  const m = await lb.loadModel(file);
  try {
    const { tokens: vocab } = llamaVocabulary(CONFIG.vocab_size);
    // characters of 1 to 4 bytes (one UTF-16 unit or two), U+FFFD itself, the vocabulary's words
    const part = (i) => `the hat ${i}: é at the café, 🙂 the end \uFFFD a ${'at'.repeat(i % 5)} 中文 the`;
    const ids = Array.from({ length: 45 }, (_, i) => m.encode(part(i))).flat();
    assert.ok(ids.length >= 2000, `${ids.length} tokens`);
    const whole = m.decode(ids), got = m.tokens(ids);
    assert.deepEqual(m.decodeTokens(ids), { text: whole, tokens: got }, 'both from one call');
    assert.equal(whole, Array.from({ length: 45 }, (_, i) => part(i)).join(''), 'each part\'s first space dropped after its start mark');
    // each token's bytes in the whole; a place runs from the start of the character its first byte is in to the
    // end of the character its last byte is in (UTF-16 units)
    const bytes = ids.map((id, i) => pieceBytes(vocab, ids[i - 1], id));
    assert.deepEqual(bytes.flat(), [...new TextEncoder().encode(whole)]);
    const at = [];  // byte offset -> [start, end] of the character it falls in ([u, u] where a character starts)
    let u = 0;
    for (const ch of whole) {
      const n = new TextEncoder().encode(ch).length;
      at.push([u, u], ...Array.from({ length: n - 1 }, () => [u, u + ch.length]));
      u += ch.length;
    }
    at.push([u, u]);
    let b = 0;
    got.forEach((t, i) => {
      const want = { start: at[b][0], end: at[b + bytes[i].length][1] };
      assert.deepEqual({ start: t.start, end: t.end }, want, `token ${i} (${t.text}, bytes ${bytes[i]})`);
      b += bytes[i].length;
    });
  } finally {
    m.dispose();
  }
});
