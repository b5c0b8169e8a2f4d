// node:test tests of the command line (web/js/cli/lookback.mjs) on a small random-weight bundle written to a
// temporary folder: each command's output, --help, and a non-zero exit with one line on stderr for bad input.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';

const CLI = fileURLToPath(new URL('../../web/js/cli/lookback.mjs', import.meta.url));
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 2, n_heads: 2, n_kv_heads: 1, head_dim: 8, hidden_dim: 24, vocab_size: 258,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });

const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-cli-'));
await writeFile(join(dir, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 3 }));
await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG));
await writeFile(join(dir, 'tokenizer.json'), TOKENIZER);
after(() => rm(dir, { recursive: true, force: true }));

const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
const withModel = (...args) => run(...args, '--model', dir);

test('tokens, next, generate and attend print what they should', () => {
  const tokens = withModel('tokens', 'hi', '--json');
  assert.equal(tokens.status, 0, tokens.stderr);
  assert.deepEqual(JSON.parse(tokens.stdout), [{ id: 0, text: '◆' }, { id: 106, text: 'h' }, { id: 107, text: 'i' }]);
  const next = withModel('next', 'hi', '--top', '3', '--json');
  const top = JSON.parse(next.stdout);
  assert.equal(top.length, 3);
  assert.ok(top[0].p >= top[1].p && top[1].p >= top[2].p);
  const a = withModel('generate', 'ab', '--max-tokens', '5', '--seed', '9', '--json');
  const b = withModel('generate', 'ab', '--max-tokens', '5', '--seed', '9', '--json');
  assert.equal(a.status, 0, a.stderr);
  assert.deepEqual(JSON.parse(a.stdout), JSON.parse(b.stdout));
  const table = withModel('attend', 'abc', '--layer', '1', '--head', '1');
  assert.equal(table.status, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0], /layer 1, head 1/);
  assert.equal(lines.length, 2 + 4);  // title, header, one row per token
  assert.match(lines[2], /1\.000\s+·\s+·\s+·$/);
  const all = JSON.parse(withModel('attend', 'abc', '--json').stdout);
  assert.deepEqual(all.shape, { L: 2, H: 2, T: 4 });
  assert.equal(all.attention[1][0][3].length, 4);
});

test('--help for the program and for each command', () => {
  const main = run('--help');
  assert.equal(main.status, 0);
  for (const c of ['tokens', 'next', 'generate', 'attend']) {
    assert.match(main.stdout, new RegExp(`^  ${c} `, 'm'));
    const help = run(c, '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, new RegExp(`^usage: lookback ${c} `, 'm'));
  }
});

test('bad input: non-zero exit and one line on stderr', () => {
  const cases = [
    [run('nosuch', 'x'), /unknown command "nosuch"/],
    [withModel('next', 'x', '--top', 'many'), /--top must be an integer/],
    [withModel('next', 'x', '--bogus'), /Unknown option '--bogus'/],
    [withModel('attend', 'x', '--layer', '9'), /--layer must be an integer in \[0, 1\]/],
    [withModel('next', 'x'.repeat(20)), /context holds 16; pass --window to keep/],
    [run('next', 'x', '--model', join(dir, 'missing')), /cannot read/],
    [withModel('next', 'x', '--temperature', '0'), /temperature must be a finite positive number/],
  ];
  for (const [r, message] of cases) {
    assert.notEqual(r.status, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^lookback: /);
    assert.match(r.stderr, message);
  }
  assert.equal(withModel('next', 'x'.repeat(20), '--window', '--top', '1').status, 0);
});
