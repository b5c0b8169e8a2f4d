// The command line in pipelines: stdin that arrives late or in many chunks, stdin that is empty, a reader that
// closes stdout early (`| head`), option values that start with a minus, and errors worded for the command line.
// Runs on a small random-weight bundle in a temporary folder. Not the commands' output (cli.test.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';

const CLI = fileURLToPath(new URL('../../web/js/cli/lookback.mjs', import.meta.url));
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 1, n_heads: 2, n_kv_heads: 1, head_dim: 8, hidden_dim: 24, vocab_size: 258,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });

const lb = await loadLookback();
const dir = await mkdtemp(join(tmpdir(), 'lookback-cli-pipes-'));
await writeFile(join(dir, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 3 }));
await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG));
await writeFile(join(dir, 'tokenizer.json'), TOKENIZER);
after(() => rm(dir, { recursive: true, force: true }));

// Runs the CLI through `sh -c` so that real pipes (not files) are its stdin and stdout.
function shell(script) {
  return spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { ...process.env, CLI, MODEL: dir } });
}
const cli = `"${process.execPath}" "$CLI"`;

test('stdin that arrives late, through a pipe, is read whole', () => {
  const r = shell(`(sleep 1; printf hi) | ${cli} tokens --json --model "$MODEL"`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).map((t) => t.text), ['◆', 'h', 'i']);
});

test('a long text piped in chunks reaches --window', () => {
  const r = shell(`(printf 'abc '; sleep 0.3; head -c 200000 /dev/zero | tr '\\0' 'x') | ${cli} next --window --top 2 --json --model "$MODEL"`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).length, 2);
});

test('a reader that closes stdout early ends the command quietly with status 0', () => {
  const s = spawnSync('bash', ['-c', `set -o pipefail; ${cli} tokens "${'ab '.repeat(3000)}" --model "$MODEL" | head -n 1 >/dev/null`],
    { encoding: 'utf8', env: { ...process.env, CLI, MODEL: dir } });
  assert.equal(s.stderr, '');
  assert.equal(s.status, 0);
});

test('empty stdin that is not a terminal is an error, not a prediction from ""', () => {
  for (const command of ['tokens', 'next']) {
    const r = shell(`${cli} ${command} --model "$MODEL" < /dev/null`);
    assert.equal(r.status, 2, `${command}: ${r.stdout}`);
    assert.match(r.stderr, /^lookback: .*stdin was empty/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
});

test('an option value that starts with a minus is taken as the value', () => {
  const r = shell(`${cli} next hi --temperature -1 --model "$MODEL"`);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /temperature must be a finite positive number.*\(got -1\)/);
});

test('the context error names --window, not the API option', () => {
  const r = shell(`${cli} next "${'ab '.repeat(20)}" --model "$MODEL"`);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--window/);
  assert.doesNotMatch(r.stderr, /\{ window: true \}/);
});

test('NaN never reaches the printed table: a temperature float32 cannot carry is an error', () => {
  const r = shell(`${cli} next hi --temperature 1e-50 --model "$MODEL"`);
  assert.notEqual(r.status, 0);
  assert.doesNotMatch(r.stdout, /NaN/);
  assert.match(r.stderr, /temperature/);
});
