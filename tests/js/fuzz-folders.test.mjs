// Random campaigns over Hugging Face folders, run by `npm test`: GPT-2, Qwen2, Qwen3 and Llama 3 folders, one file
// or sharded, with one part spoiled at a time (a config.json field deleted or given a wrong type or an extreme value;
// bytes of a safetensors header changed; the shard index pointing at a missing file or losing a tensor). Each load
// must either give a model whose logits are finite or throw an Error with a lookback code and a message that says
// what; never crash the module, never NaN. Seeded, so a failure repeats; the counts are printed. Not the
// hand-written regressions (hardening.test.mjs, file-bombs.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { ARCHITECTURES, writeHfFolder } from './hf-folders.mjs';
import { mulberry32 } from './reference.mjs';

const lb = await loadLookback();
const CODES = new Set(['LOOKBACK_BAD_MODEL', 'LOOKBACK_BAD_ARGUMENT', 'LOOKBACK_UNSUPPORTED_FORMAT', 'LOOKBACK_TOO_LARGE', 'LOOKBACK_NOT_FOUND']);
const VALUES = [null, -1, 0, 1, 3, 2.5, 1e9, 2 ** 31, 2 ** 53, -(2 ** 31), 1e308, 'x', '', true, [], {}, [1, 2], { rope_type: 'llama3' }];
let dir;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'lookback-fuzz-folders-')); });
after(() => rm(dir, { recursive: true, force: true }));

const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

// One spoiled copy of the folder at `from`, written to `to`: what was spoiled, in words.
async function spoil(r, from, to) {
  await cp(from, to, { recursive: true });
  const files = await readdir(to);
  const kind = pick(r, ['config', 'config', 'header', files.includes('model.safetensors.index.json') ? 'index' : 'header']);
  if (kind === 'config') {
    const config = JSON.parse(await readFile(join(to, 'config.json'), 'utf8'));
    const key = pick(r, Object.keys(config));
    if (r() < 0.25) delete config[key];
    else config[key] = pick(r, VALUES);
    await writeFile(join(to, 'config.json'), JSON.stringify(config));
    return `config.json ${key} = ${JSON.stringify(config[key])}`;
  }
  if (kind === 'header') {
    const file = pick(r, files.filter((f) => f.endsWith('.safetensors')));
    const bytes = new Uint8Array(await readFile(join(to, file)));
    const headerEnd = 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const at = r() < 0.2 ? Math.floor(r() * 8) : 8 + Math.floor(r() * (headerEnd - 8));
    const before = bytes[at];
    bytes[at] = r() < 0.5 ? Math.floor(r() * 256) : pick(r, [0x30, 0x39, 0x22, 0x7d, 0x5b, 0x2c, 0x2d, 0]);
    await writeFile(join(to, file), bytes);
    return `${file} byte ${at}: ${before} -> ${bytes[at]}`;
  }
  const index = JSON.parse(await readFile(join(to, 'model.safetensors.index.json'), 'utf8'));
  const name = pick(r, Object.keys(index.weight_map));
  if (r() < 0.5) delete index.weight_map[name];
  else index.weight_map[name] = pick(r, ['model-00009-of-00009.safetensors', '../config.json', '', 'model.safetensors']);
  await writeFile(join(to, 'model.safetensors.index.json'), JSON.stringify(index));
  return `index: ${name} -> ${JSON.stringify(index.weight_map[name])}`;
}

test('spoiled GPT-2, Qwen and Llama folders, one file or sharded: finite logits or an Error that says what', { timeout: 300000 }, async () => {
  const r = mulberry32(2026);
  const counts = { loaded: 0, refused: 0 };
  const codes = {};
  for (const arch of Object.keys(ARCHITECTURES)) {
    for (const shards of [1, 3]) {
      const clean = await writeHfFolder(join(dir, `${arch}-${shards}`), arch, { seed: 5, shards });
      for (let k = 0; k < 30; k++) {
        const to = join(dir, `${arch}-${shards}-${k}`);
        const what = await spoil(r, clean, to);
        let model;
        try {
          model = await lb.loadModel(to);
        } catch (e) {
          assert.equal(e instanceof Error, true, `${arch} ${what}: threw ${e}`);
          assert.ok(CODES.has(e.code), `${arch} ${what}: ${e.code}: ${e.message}`);
          assert.ok(e.message.length > 20 && !/undefined|NaN|\[object/.test(e.message), `${arch} ${what}: the message says what: ${e.message}`);
          counts.refused += 1;
          codes[e.code] = (codes[e.code] ?? 0) + 1;
          await rm(to, { recursive: true, force: true });
          continue;
        }
        try {
          const { logits } = model.forward('Hello there, world.');
          assert.ok(logits.every(Number.isFinite), `${arch} ${what}: loaded, and its logits are finite`);
          counts.loaded += 1;
        } catch (e) {
          // a model may load and still refuse a text it cannot run (a context of 0): an Error with a code, not a crash
          assert.ok(CODES.has(e.code), `${arch} ${what}: forward: ${e.code}: ${e.message}`);
          counts.refused += 1;
        } finally {
          model.dispose();
          await rm(to, { recursive: true, force: true });
        }
      }
    }
  }
  console.log(`spoiled folders: ${counts.loaded} loaded with finite logits, ${counts.refused} refused (${JSON.stringify(codes)})`);
  assert.ok(counts.refused > 50 && counts.loaded > 10, `both outcomes occur: ${JSON.stringify(counts)}`);
  // the module still works after every refusal
  const clean = await lb.loadModel(join(dir, 'qwen3-1'));
  assert.ok(clean.forward('ok').logits.every(Number.isFinite));
  clean.dispose();
});
