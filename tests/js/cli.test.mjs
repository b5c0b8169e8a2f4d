// node:test tests of the command line (web/js/cli/lookback.mjs) on a small random-weight bundle written to a
// temporary folder: each command's output, --help, a non-zero exit with one line on stderr for bad input, and
// pipelines (stdin late, chunked or empty; a reader that closes stdout early; option values with a minus).
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

test('heads prints every head\'s habits measured now, equal to the API\'s headScores, heads named from 1', async () => {
  const text = 'abcab abc';
  const model = await lb.loadModel(join(dir, 'model.safetensors'));
  const want = model.headScores([text]);
  model.dispose();
  const json = withModel('heads', text, '--json');
  assert.equal(json.status, 0, json.stderr);
  const t = JSON.parse(json.stdout);
  assert.equal(t.layers, CONFIG.n_layers);
  assert.equal(t.heads, CONFIG.n_heads);
  const KEYS = { previous_token: 'previousToken', start_mark: 'startMark', induction: 'induction' };
  assert.equal(t.rows.length, CONFIG.n_layers * CONFIG.n_heads);
  for (const r of t.rows) {
    assert.equal(r.head, `${r.layer_index + 1}.${r.head_index + 1}`);
    for (const [k, api] of Object.entries(KEYS)) assert.equal(r[k], want[api].byLayer[r.layer_index][r.head_index], `${r.head} ${k}`);
  }
  for (const [k, api] of Object.entries(KEYS)) assert.equal(t.even[k], want[api].even);
  const csv = withModel('heads', text, '--csv').stdout.trim().split('\n');
  assert.equal(csv[0], 'head,layer_index,head_index,previous_token,start_mark,induction');
  assert.deepEqual(csv.slice(1).map((l) => l.split(',').map(Number).slice(1)),
    t.rows.map((r) => [r.layer_index, r.head_index, r.previous_token, r.start_mark, r.induction]));
  const human = withModel('heads', text, '--sort', 'induction').stdout.trim().split('\n');
  assert.match(human[0], /^2 layers × 2 heads, named layer\.head counting from 1/);
  const best = [...t.rows].sort((a, b) => b.induction - a.induction)[0];
  assert.equal(human[2].split(/\s+/)[0], best.head, 'sorted by induction, the best head first');
  assert.equal(human.length, 2 + 4 + 1);
});

test('tokens, next, generate and attend print what they should', () => {
  const tokens = withModel('tokens', 'hi', '--json');
  assert.equal(tokens.status, 0, tokens.stderr);
  assert.deepEqual(JSON.parse(tokens.stdout), [{ id: 0, text: '◆', start: 0, end: 0 }, { id: 106, text: 'h', start: 0, end: 1 }, { id: 107, text: 'i', start: 1, end: 2 }]);
  const next = withModel('next', 'hi', '--top', '3', '--json');
  const top = JSON.parse(next.stdout);
  assert.equal(top.length, 3);
  assert.ok(top[0].p >= top[1].p && top[1].p >= top[2].p);
  const a = withModel('generate', 'ab', '--max-tokens', '5', '--seed', '9', '--json');
  const b = withModel('generate', 'ab', '--max-tokens', '5', '--seed', '9', '--json');
  assert.equal(a.status, 0, a.stderr);
  assert.deepEqual(JSON.parse(a.stdout), JSON.parse(b.stdout));
  const table = withModel('attend', 'abc', '--layer', '2', '--head', '1');
  assert.equal(table.status, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0], /^head 2\.1 \(layer 2, head 1, counting from 1\)/, 'heads are named layer.head counting from 1');
  const second = JSON.parse(withModel('attend', 'abc', '--json').stdout).attention[1][0];
  assert.deepEqual(lines.slice(2).map((x) => x.trim().split(/\s+/).slice(-4).map((v) => (v === '·' ? null : Number(v)))),
    second.map((row, t) => row.map((w, s) => (s > t ? null : Number(w.toFixed(3))))), 'the table is that of layer index 1, head index 0');
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
  // the formats and weight storages are the core's lists
  const { formats, weights } = lb.modelFormats();
  assert.match(main.stdout, new RegExp(`--weights W .*: ${weights.join(', ')} \\(default ${weights[0]}; a GGUF: as its tensor types suggest\\)`));
  for (const f of formats) assert.ok(main.stdout.replace(/\s+/g, ' ').includes(f.files), f.name);
});

test('--weights picks how the weights are stored, from the core\'s list', () => {
  const q8 = withModel('next', 'hi', '--weights', 'q8', '--top', '3', '--json');
  assert.equal(q8.status, 0, q8.stderr);
  assert.equal(JSON.parse(q8.stdout).length, 3);
  const bad = withModel('next', 'hi', '--weights', 'int4');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^lookback: loadModel: weights must be 'f32', 'f16', 'q8' or 'q4' \(got "int4"\)\n$/);
});

test('bad input: non-zero exit and one line on stderr', () => {
  const cases = [
    [run('nosuch', 'x'), /unknown command "nosuch"/],
    [withModel('next', 'x', '--top', 'many'), /--top must be an integer/],
    [withModel('next', 'x', '--bogus'), /Unknown option '--bogus'/],
    [withModel('attend', 'x', '--layer', '9'), /--layer must be an integer in \[1, 2\]/],
    [withModel('attend', 'x', '--head', '0'), /--head must be an integer in \[1, 2\]/],
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

test('a window model (--model window) answers tokens and next; attend and generate say it has no attention or generation', () => {
  const next = run('next', 'the cat', '--model', 'window', '--top', '2', '--json');
  assert.equal(next.status, 0, next.stderr);
  assert.equal(JSON.parse(next.stdout).length, 2);
  for (const [command, what] of [['attend', 'attention'], ['generate', 'generation']]) {
    const r = run(command, 'the cat', '--model', 'window');
    assert.equal(r.status, 2, command);
    assert.match(r.stderr, new RegExp(`^lookback: ${command}: the model "window" is a window model, which has no ${what}; it answers tokens and next`));
    assert.doesNotMatch(r.stderr, /is not a function/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
});
