// node:test tests of loading and streaming like the libraries people know: loadModel's onProgress (bytes
// loaded / total, ending at the files' real size) and AbortSignal (AbortError, code LOOKBACK_ABORTED), the
// `code` (and `cause`) of the API's errors, Hugging Face files it does not read refused with what it reads, every
// format told apart by the core's one loader (modelFormats() its list), baseUrl,
// and Model.stream: the same tokens as generate(), stoppable by a signal or by leaving the loop.
// Not the model's numerics (model.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadLookback } from 'lookback';
import { CONFIG, TOKENIZER } from './tiny-model.mjs';

const lb = await loadLookback();
let dir;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lookback-loading-'));
  await writeFile(join(dir, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 3 }));
  await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG));
  await writeFile(join(dir, 'tokenizer.json'), TOKENIZER);
});
after(() => rm(dir, { recursive: true, force: true }));

test('onProgress reports bytes loaded up to the total of the files', async () => {
  const seen = [];
  const m = await lb.loadModel(dir, { onProgress: (p) => seen.push({ ...p }) });
  let size = 0;
  for (const f of ['model.safetensors', 'config.json', 'tokenizer.json']) size += (await stat(join(dir, f))).size;
  const last = seen.at(-1);
  assert.deepEqual(last, { loaded: size, total: size });
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].loaded >= seen[i - 1].loaded, 'loaded never goes back');
  assert.ok(seen.every((p) => p.total === null || p.total === size), 'a total, once given, is the full size');
  m.dispose();
});

test('an AbortSignal stops loadModel with an AbortError', async () => {
  const ac = new AbortController();
  ac.abort(new Error('reader left'));
  await assert.rejects(lb.loadModel(dir, { signal: ac.signal }), (e) => e.name === 'AbortError'
    && e.code === 'LOOKBACK_ABORTED' && e.cause?.message === 'reader left');
  const late = new AbortController();
  const p = lb.loadModel(dir, { signal: late.signal, onProgress: () => late.abort() });
  await assert.rejects(p, (e) => e.name === 'AbortError' && e.code === 'LOOKBACK_ABORTED');
});

test('errors carry a code and, where there is one, a cause', async () => {
  await assert.rejects(lb.loadModel(join(dir, 'nothing-here')), (e) => e.code === 'LOOKBACK_NOT_FOUND' && e.cause?.code === 'ENOENT');
  await assert.rejects(lb.loadModel(dir, { onProgress: 3 }), (e) => e instanceof TypeError && e.code === 'LOOKBACK_BAD_ARGUMENT');
  await assert.rejects(lb.loadModel(dir, { config: { ...CONFIG, n_heads: 5 } }), (e) => e.code === 'LOOKBACK_BAD_MODEL' && e.cause instanceof Error);
  await assert.rejects(loadLookback({ baseUrl: pathToFileURL(join(dir, 'nowhere/')) }), (e) => e.code === 'LOOKBACK_CORE_MISSING'
    && /npm run build/.test(e.message) && e.cause instanceof Error);
  const corrupt = Uint8Array.of(0, 0x61, 0x73, 0x6d, 9, 9, 9, 9);  // "\0asm" and a version that does not exist
  await assert.rejects(loadLookback({ wasmBinary: corrupt }), (e) => e.code === 'LOOKBACK_CORE_MISSING'
    && /\(the wasmBinary given\) did not start/.test(e.message) && e.cause !== undefined);
});

test('the core tells every format from the files: the same loadModel for a bundle, a lone file, bytes and a checkpoint', async () => {
  const { formats, weights, supported } = lb.modelFormats();
  assert.deepEqual(formats.map((f) => f.name), ['window', 'hf', 'lookback', 'gguf', 'llama2c']);
  assert.deepEqual(weights, ['f32', 'f16', 'q8', 'q4']);
  for (const f of formats) assert.ok(supported.includes(f.files), f.name);
  const stories = fileURLToPath(new URL('../../shared/models/stories260K/', import.meta.url));
  const cases = [['sprout', 'lookback'], ['window', 'window'], [join(dir, 'model.safetensors'), 'lookback'],
    [`${stories}stories260K.bin`, 'llama2c']];
  for (const [source, format] of cases) {
    const m = await lb.loadModel(source, format === 'llama2c' ? { tokenizer: `${stories}tok512.bin` } : undefined);
    assert.equal(m.info.format, format, String(source));
    m.dispose();
  }
  const bytes = lb.randomWeights(CONFIG, { seed: 3 });
  // bytes without a file their format needs: the core tells which from the bytes (a GGUF holds its tokenizer:
  // tests/js/gguf.test.mjs), and the caller is told to pass it, an argument error
  const PASS = /\. With model bytes, pass \{ tokenizer \} too \(and \{ config \} when the format has one\)$/;
  await assert.rejects(lb.loadModel(bytes, { tokenizer: TOKENIZER }), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT'
    && /^loadModel: the weights are a safetensors file but no config\.json came with them; lookback reads /.test(e.message) && PASS.test(e.message));
  await assert.rejects(lb.loadModel(bytes), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT' && /no config\.json came with them/.test(e.message) && PASS.test(e.message));
  await assert.rejects(lb.loadModel(await readFile(`${stories}stories260K.bin`)), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT' && e.cause instanceof Error
    && /^loadModel: the weights are llama2c \(llama2\.c checkpoints .*\) but no tokenizer came with them \(its tokenizer\.bin\)\. With model bytes/.test(e.message));
});

test('a Hugging Face tokenizer beside a lookback config, or a Hugging Face architecture lookback does not run, is refused', async () => {
  const hf = join(dir, 'hf');
  await rm(hf, { recursive: true, force: true });
  await mkdir(hf);
  await writeFile(join(hf, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 3 }));
  await writeFile(join(hf, 'config.json'), JSON.stringify(CONFIG));
  await writeFile(join(hf, 'tokenizer.json'), JSON.stringify({ version: '1.0', model: { type: 'BPE', vocab: {}, merges: [] } }));
  await assert.rejects(lb.loadModel(hf), (e) => e.code === 'LOOKBACK_UNSUPPORTED_FORMAT'
    && /tokenizers file \(model BPE\) but config\.json is lookback's own/.test(e.message) && /llama2\.c/.test(e.message));
  await writeFile(join(hf, 'config.json'), JSON.stringify({ architectures: ['BertForMaskedLM'], model_type: 'bert' }));
  await assert.rejects(lb.loadModel(hf), (e) => e.code === 'LOOKBACK_BAD_MODEL'
    && /\["BertForMaskedLM"\].*lookback reads LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GPT2LMHeadModel/.test(e.message));
});

test('baseUrl relocates the loader, the .wasm and the bundled models together', async () => {
  // another folder laid out as web/ is: build/ and models/
  const web = new URL('../../web/', import.meta.url);
  const elsewhere = join(dir, 'elsewhere');
  await mkdir(elsewhere);
  for (const sub of ['build', 'models']) await symlink(fileURLToPath(new URL(sub, web)), join(elsewhere, sub));
  const base = pathToFileURL(`${elsewhere}/`);
  const other = await loadLookback({ baseUrl: base });
  assert.notEqual(other, lb, 'another base is another instance');
  assert.equal(await loadLookback({ baseUrl: base }), other, 'the same base is shared');
  assert.equal(await loadLookback({ baseUrl: relative(process.cwd(), elsewhere) }), other, 'in Node, a path names it too');
  assert.equal(await loadLookback({ baseUrl: web }), lb, 'the default base is web/');
  const m = await other.loadModel('sprout');
  assert.ok(m.next('Once upon a', { topK: 1 })[0].p > 0);
  m.dispose();
  await rm(join(elsewhere, 'models'));
  await assert.rejects(other.loadModel('sprout'), (e) => e.code === 'LOOKBACK_NOT_FOUND' && e.message.includes(elsewhere));
  await assert.rejects(lb.loadModel('sprout', { baseUrl: web }), (e) => e.code === 'LOOKBACK_BAD_ARGUMENT');
});

test('stream gives the tokens of generate one at a time; a signal or a break stops it', async () => {
  const m = await lb.loadModel(dir);
  for (const opts of [{ maxTokens: 12, temperature: 0.9, seed: 5 }, { maxTokens: 40, temperature: 0, window: true }]) {
    const whole = m.generate('ab', opts);
    const tokens = [];
    const it = m.stream('ab', opts);
    let r;
    while (!(r = await it.next()).done) tokens.push(r.value);
    assert.deepEqual(tokens.map((t) => t.id), whole.ids, JSON.stringify(opts));
    assert.deepEqual(r.value, whole);
    if (tokens.length) assert.equal(tokens.at(-1).text, whole.text);
    assert.equal(tokens.map((t) => t.token).length, whole.ids.length);
  }
  const ac = new AbortController();
  const got = [];
  await assert.rejects((async () => {
    for await (const t of m.stream('ab', { maxTokens: 30, temperature: 1, signal: ac.signal })) {
      got.push(t.id);
      if (got.length === 3) ac.abort();
    }
  })(), (e) => e.name === 'AbortError' && e.code === 'LOOKBACK_ABORTED');
  assert.equal(got.length, 3);
  let n = 0;
  for await (const t of m.stream('ab', { maxTokens: 30, temperature: 1 })) if (++n === 2 || !t) break;
  assert.equal(n, 2);
  assert.ok(m.next('ab', { topK: 1 })[0].p > 0, 'the model is usable after a stopped stream');
  m.dispose();
});
