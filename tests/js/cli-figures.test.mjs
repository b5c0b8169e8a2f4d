// node:test tests of the command line's figures (lookback attend/heads/flow with --svg, --png): each file holds the
// figure the figures module draws for the numbers the core computes (attend --json's, one cell per weight), PNGs
// have the SVG's size times --scale and drawn pixels, and "-" writes to stdout. On a small random-weight bundle.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLookback } from 'lookback';
import * as F from 'lookback/figures';
import { cells, texts, titleOf, parse, decodePNG } from './figure-cells.mjs';

const CLI = fileURLToPath(new URL('../../web/js/cli/lookback.mjs', import.meta.url));
const CONFIG = {
  arch: 'test', dim: 16, n_layers: 2, n_heads: 2, n_kv_heads: 1, head_dim: 8, hidden_dim: 24, vocab_size: 258,
  max_seq_len: 16, rope_layout: 'half', qk_norm: false, mlp: 'gelu', tied_embeddings: true,
};
const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
const CARD = { heads: { previous_token: { by_layer: [[0.5, 0.25], [0.125, 1]], even: 0.3 }, start_mark: { by_layer: [[0.1, 0.2], [0.3, 0.4]], even: 0.3 },
  induction: { by_layer: [[0, 0.9], [0.05, 0]], even: 0.02 } } };

const lb = await loadLookback({ threads: 1 });
const dir = await mkdtemp(join(tmpdir(), 'lookback-cli-figures-'));
await writeFile(join(dir, 'model.safetensors'), lb.randomWeights(CONFIG, { seed: 3 }));
await writeFile(join(dir, 'config.json'), JSON.stringify(CONFIG));
await writeFile(join(dir, 'tokenizer.json'), TOKENIZER);
await writeFile(join(dir, 'card.json'), JSON.stringify(CARD));
after(() => rm(dir, { recursive: true, force: true }));

const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const withModel = (...args) => run(...args, '--model', dir);
const attention = (text) => JSON.parse(withModel('attend', text, '--json').stdout);

test('attend --svg: head 2.1 counted from 1, one cell per weight with attend --json\'s numbers, tokens as the page shows them', async () => {
  const file = join(dir, 'head.svg');
  const r = withModel('attend', 'a b', '--layer', '2', '--head', '1', '--svg', file);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  const svg = await readFile(file, 'utf8');
  parse(svg);
  assert.match(titleOf(svg), /head 2\.1/);
  const { tokens, attention: a } = attention('a b');
  const cs = cells(svg);
  assert.equal(cs.length, 4 * 5 / 2);
  for (const c of cs) assert.ok(Math.abs(c.v - a[1][0][c.r][c.c]) < 5e-5, `${c.r},${c.c}`);
  assert.ok(texts(svg).includes('␣'), 'the space token drawn as ␣');
  assert.deepEqual(tokens, ['◆', 'a', ' ', 'b']);
  // the same figure the module draws from the same numbers
  const flat = Float32Array.from(a.flat(3));
  assert.equal(svg, `${F.headMap({ tokens, attention: flat, shape: { L: 2, H: 2, T: 4 }, layer: 1, head: 0 })}\n`);
});

test('attend --query draws the strip, --head all every head of the layer; - writes to stdout', () => {
  const { attention: a } = attention('abc');
  const strip = withModel('attend', 'abc', '--layer', '1', '--head', '2', '--query', '2', '--svg', '-');
  assert.equal(strip.status, 0, strip.stderr);
  const cs = cells(strip.stdout);
  assert.equal(cs.length, 3);
  for (const c of cs) assert.ok(Math.abs(c.v - a[0][1][2][c.c]) < 5e-5);
  const layer = withModel('attend', 'abc', '--layer', '2', '--head', 'all', '--svg', '-');
  assert.equal(cells(layer.stdout).length, 2 * 10);
  assert.match(titleOf(layer.stdout), /heads of layer 2/);
});

test('--png: the SVG\'s size times --scale, drawn pixels of the weights\' colours; to a file or stdout', async () => {
  const svgOut = withModel('attend', 'abc', '--svg', '-');
  const { width, height } = parse(svgOut.stdout);
  const file = join(dir, 'head.png');
  const r = withModel('attend', 'abc', '--png', file, '--scale', '1.5');
  assert.equal(r.status, 0, r.stderr);
  const png = decodePNG(await readFile(file));
  assert.ok(Math.abs(png.width - width * 1.5) < 1, `${png.width} for ${width} × 1.5`);
  assert.ok(Math.abs(png.height - height * 1.5) < 1, `${png.height} for ${height} × 1.5`);
  const colours = new Set();
  let dark = 0;
  for (let i = 0; i < png.pixels.length; i += 4) {
    colours.add((png.pixels[i] << 16) | (png.pixels[i + 1] << 8) | png.pixels[i + 2]);
    if (png.pixels[i] + png.pixels[i + 1] + png.pixels[i + 2] < 200) dark++;
  }
  assert.ok(colours.size > 50, `${colours.size} colours`);
  assert.ok(dark > 200, `${dark} dark pixels (text, the darkest cells)`);
  const first = [...cells(svgOut.stdout)].find((c) => c.r === 0 && c.c === 0);   // ◆ looking at itself: weight 1
  const hex = F.weightColour(first.v);
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  const found = [];
  for (let i = 0; i < png.pixels.length; i += 4) if (want.every((v, k) => Math.abs(png.pixels[i + k] - v) <= 2)) found.push(i);
  assert.ok(found.length > 50, `the weight-1 cell's colour ${hex} is drawn (${found.length} pixels)`);
  const stdout = spawnSync(process.execPath, [CLI, 'attend', 'abc', '--model', dir, '--png', '-', '--scale', '1'], { maxBuffer: 1 << 26 });
  assert.equal(stdout.status, 0);
  assert.ok(Math.abs(decodePNG(stdout.stdout).width - width) < 1);
});

test('heads: every head\'s map labelled with the card\'s habits (sorted by a habit on request); --habits: the card\'s heat maps', () => {
  const { attention: a } = attention('ab');
  const grid = withModel('heads', 'ab', '--sort', 'induction', '--svg', '-');
  assert.equal(grid.status, 0, grid.stderr);
  const cs = cells(grid.stdout);
  assert.equal(cs.length, 4 * 6);
  for (const c of cs) {
    const [l, h] = /head (\d)\.(\d)/.exec(c.m).slice(1).map((x) => Number(x) - 1);
    assert.ok(Math.abs(c.v - a[l][h][c.r][c.c]) < 5e-5);
  }
  const names = texts(grid.stdout).filter((t) => /^\d\.\d$/.test(t));
  assert.deepEqual(names, ['1.2', '2.1', '1.1', '2.2'], 'highest induction first');
  assert.ok(texts(grid.stdout).includes('prev 0.25 · ◆ 0.20 · ind 0.90'));
  const habits = withModel('heads', 'ab', '--habits', '--svg', '-');
  assert.equal(cells(habits.stdout).length, 3 * 4);
  assert.ok(texts(habits.stdout).includes('even 0.30'));
});

test('flow: the layer computed by the core for a short text, without a model; --json has every matrix', () => {
  const r = run('flow', 'the cat sat down', '--json', '--svg', join(dir, 'flow.svg'));
  assert.equal(r.status, 0, r.stderr);
  const f = JSON.parse(r.stdout);
  assert.deepEqual(f.words, ['the', 'cat', 'sat', 'down']);
  for (const head of f.weights) head.forEach((row, t) => assert.ok(Math.abs(row.reduce((x, y) => x + y, 0) - 1) < 1e-5 && row.slice(t + 1).every((w) => w === 0)));
  const svg = spawnSync(process.execPath, [CLI, 'flow', 'the cat sat down', '--svg', '-'], { encoding: 'utf8' }).stdout;
  const cs = cells(svg);
  assert.equal(cs.filter((c) => c.m === 'weights₁').length, 10);
  for (const c of cs.filter((x) => x.m === 'weights₂')) assert.ok(Math.abs(c.v - f.weights[1][c.r][c.c]) < 5e-5);
  const one = run('flow', 'a b c', '--heads', '1', '--dim', '2', '--no-mask', '--svg', '-');
  assert.equal(cells(one.stdout).filter((c) => c.m === 'weights').length, 9);
});

test('figure options: bad input exits non-zero with one line on stderr', () => {
  const cases = [
    [withModel('heads', 'ab', '--habits'), /--habits draws a figure: give --svg FILE or --png FILE/],
    [withModel('attend', 'ab', '--query', '1'), /--query draws a figure/],
    [withModel('attend', 'ab', '--query', '9', '--svg', '-'), /--query must be an integer in \[0, 2\]/],
    [withModel('attend', 'ab', '--svg', '-', '--png', '-'), /cannot both write to stdout/],
    [withModel('attend', 'ab', '--png', '-', '--scale', '0'), /--scale must be in \(0, 16\]/],
    [run('flow', 'a b', '--heads', '3', '--svg', '-'), /--dim \(4\) must be a multiple of --heads \(3\)/],
    [withModel('heads', 'ab', '--sort', 'nope', '--svg', '-'), /--sort must be layer/],
  ];
  for (const [r, message] of cases) {
    assert.notEqual(r.status, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, message);
  }
});
