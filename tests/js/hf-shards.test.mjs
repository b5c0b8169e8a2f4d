// Sharded Hugging Face checkpoints (model.safetensors.index.json and the shards its weight_map names): a folder
// split into 2 or 3 shards gives the same logits as the unsplit folder, loaded from the folder's path, the
// index's path, an object of bytes, and the page picker's files (model-files.js), also as Files read in parts with
// one progress over every shard; and the shards' refusals.
// Not the architectures' numbers (tests/js/hf-reference.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { modelSource } from '../../web/js/widgets/model-files.js';
import { writeHfFolder, writeST, randomTensors } from './hf-folders.mjs';

const lb = await loadLookback();
const TEXT = 'the cat sat on the mat, then the end';

let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-shards-')); });
after(() => rm(dir, { recursive: true, force: true }));

async function logitsOf(source) {
  const model = await lb.loadModel(source);
  const { logits } = model.forward(TEXT);
  model.dispose();
  return logits;
}

// every file of a folder as the page's picker gives them: { name, bytes }
const pickedFiles = async (folder) => Promise.all((await readdir(folder)).map(async (name) => ({ name, bytes: new Uint8Array(await readFile(join(folder, name))) })));

for (const [arch, shards] of [['qwen3', 3], ['gpt2', 2]]) {
  test(`${arch} split into ${shards} shards gives the unsplit folder's logits, from a path, the index, bytes and the picker`, async () => {
    const whole = await writeHfFolder(join(dir, `${arch}-whole`), arch, { seed: 3 });
    const split = await writeHfFolder(join(dir, `${arch}-split`), arch, { seed: 3, shards });
    const files = await readdir(split);
    assert.equal(files.filter((f) => f.endsWith('.safetensors')).length, shards);
    assert.ok(!files.includes('model.safetensors'));
    const expected = await logitsOf(whole);
    assert.deepEqual(await logitsOf(split), expected, 'the folder');
    assert.deepEqual(await logitsOf(join(split, 'model.safetensors.index.json')), expected, 'the index file');
    const picked = await pickedFiles(split);
    picked.push({ name: 'tokenizer_config.json', bytes: new TextEncoder().encode('{"model_max_length": 64}') });
    const { source, label } = modelSource(picked, lb.modelFormats().formats);
    assert.equal(source.shards.length, shards);
    assert.match(label, new RegExp(`${shards} shards`));
    assert.deepEqual(await logitsOf(source), expected, 'the picked files');
    // shards given as bytes are read from them in parts (subarray is how a reader of bytes answers), about once each
    // (the first shard's start twice more: the 64 KiB that tell the format, and the safetensors header)
    const read = new Map();
    const counted = (name, bytes) => Object.assign(new (class extends Uint8Array {
      subarray(begin, end) {
        read.set(name, (read.get(name) ?? 0) + end - begin);
        return super.subarray(begin, end);
      }
    })(bytes));
    const countedShards = source.shards.map((sh) => ({ ...sh, bytes: counted(sh.name, sh.bytes) }));
    assert.deepEqual(await logitsOf({ ...source, shards: countedShards }), expected, 'shards as bytes');
    for (const sh of source.shards) {
      const n = read.get(sh.name) ?? 0;
      assert.ok(n >= sh.bytes.length * 0.9 && n <= sh.bytes.length + 2 * (1 << 16), `${sh.name}: ${n} bytes read of ${sh.bytes.length}`);
    }
    // the picker hands the loader Files: the shards are read in parts, their progress reported as one
    const blobs = modelSource(picked.map((f) => ({ name: f.name, bytes: new Blob([f.bytes]) })), lb.modelFormats().formats).source;
    const reports = [];
    const model = await lb.loadModel(blobs, { onProgress: (p) => reports.push(p) });
    assert.deepEqual(model.forward(TEXT).logits, expected, 'the picked Files');
    model.dispose();
    const sizes = picked.filter((f) => f.name.endsWith('.safetensors')).reduce((n, f) => n + f.bytes.length, 0);
    assert.deepEqual(reports.at(-1), { loaded: sizes, total: sizes }, 'one progress over every shard');
    for (let i = 1; i < reports.length; ++i) assert.ok(reports[i].loaded >= reports[i - 1].loaded, 'progress never goes back');
  });
}

test('shards that do not agree with the index are refused, naming the file and tensor', async () => {
  const folder = await writeHfFolder(join(dir, 'bad'), 'qwen2', { seed: 4, shards: 2 });
  const indexText = await readFile(join(folder, 'model.safetensors.index.json'), 'utf8');
  const index = JSON.parse(indexText);
  const names = [...new Set(Object.values(index.weight_map))];
  const shard = async (name) => ({ name, bytes: new Uint8Array(await readFile(join(folder, name))) });
  const base = { config: await readFile(join(folder, 'config.json'), 'utf8'), tokenizer: await readFile(join(folder, 'tokenizer.json'), 'utf8') };
  const refused = (source, pattern) => assert.rejects(lb.loadModel({ ...base, ...source }), (e) => e.code === 'LOOKBACK_BAD_MODEL' && pattern.test(e.message), String(pattern));
  const both = await Promise.all(names.map(shard));
  // a shard left out
  await refused({ index: indexText, shards: [both[0]] }, new RegExp(`is in "${names[1]}", which was not given`));
  // the index puts a tensor in the other shard
  const moved = { ...index, weight_map: { ...index.weight_map, 'model.norm.weight': index.weight_map['model.norm.weight'] === names[0] ? names[1] : names[0] } };
  await refused({ index: JSON.stringify(moved), shards: both }, /tensor "model\.norm\.weight" is here but model\.safetensors\.index\.json puts it in/);
  // a tensor in two shards
  const t = randomTensors('qwen2', 4);
  const twice = { name: 'extra.safetensors', bytes: writeST({ 'model.norm.weight': t['model.norm.weight'] }) };
  const twiceIndex = { weight_map: { ...index.weight_map } };
  await refused({ index: JSON.stringify(twiceIndex), shards: [...both, twice] }, /extra\.safetensors: tensor "model\.norm\.weight" is here but/);
  // the index's shard names are plain file names beside it
  await writeFile(join(folder, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { 'model.norm.weight': '../x.safetensors' } }));
  await assert.rejects(lb.loadModel(folder), (e) => e.code === 'LOOKBACK_BAD_MODEL' && /shard "\.\.\/x\.safetensors"; shards are file names beside it/.test(e.message));
  // a lookback bundle is one file
  const lookbackConfig = { arch: 'test', dim: 32, n_layers: 2, n_heads: 4 };
  await refused({ index: indexText, shards: both, config: lookbackConfig }, /model\.safetensors\.index\.json came with a lookback bundle's config\.json/);
});
