// node:test tests of lookback/figures: the one colour scale (0.47 darker than the stated luminance, 0.1 visible,
// even steps), and every figure from real numbers of the core (a small random-weight model's forward pass, the
// flow computed by the API): the SVG parses, has one cell per number with its value in data-v and in its title,
// draws the tokens as the page does, and names heads from 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLookback } from 'lookback';
import * as F from 'lookback/figures';
import { CONFIG, TOKENIZER } from './tiny-model.mjs';
import { cells, texts, titleOf, descOf, titleNumber, parse } from './figure-cells.mjs';

const lb = await loadLookback({ threads: 1 });
const model = await lb.loadModel(lb.randomWeights(CONFIG, { seed: 5 }), { config: CONFIG, tokenizer: TOKENIZER });

// the forward pass of a short text on the tiny model: { tokens, attention, shape }
async function forwardOf(text) {
  const f = model.forward(text, { attention: true });
  return { tokens: model.tokens(f.ids).map((t) => t.text), attention: f.attention, shape: f.shape };
}

test('colour scale: 0.47 is darker than the stated luminance, 0.1 is visible, and steps of 0.1 look even', () => {
  assert.ok(F.luminance(F.weightColour(0.47)) < F.PALE_LUMINANCE, `luminance of 0.47: ${F.luminance(F.weightColour(0.47))}`);
  assert.equal(F.PALE_LUMINANCE, 0.35);
  // the shading the explorer used before: the accent at 45% × weight over the page, 0.47 -> luminance about 0.7
  const old = [0x2f, 0x5f, 0xd0].map((c, i) => Math.round(c * 0.47 * 0.45 + [0xfd, 0xfc, 0xf8][i] * (1 - 0.47 * 0.45)));
  assert.ok(F.luminance(`#${old.map((c) => c.toString(16).padStart(2, '0')).join('')}`) > F.PALE_LUMINANCE);
  assert.ok(F.deltaE(F.weightLab(0.1), F.weightLab(0)) >= 0.05, '0.1 stands apart from 0 (about 3 just-noticeable differences)');
  const steps = Array.from({ length: 10 }, (_, i) => F.deltaE(F.weightLab((i + 1) / 10), F.weightLab(i / 10)));
  assert.ok(Math.max(...steps) / Math.min(...steps) < 1.15, `steps ${steps.map((s) => s.toFixed(3))}`);
  const lum = Array.from({ length: 11 }, (_, i) => F.luminance(F.weightColour(i / 10)));
  assert.ok(lum.every((l, i) => i === 0 || l < lum[i - 1]), 'darker with every step');
  assert.equal(F.weightColour(-1), F.weightColour(0));
  assert.equal(F.weightColour(2), F.weightColour(1));
});

test('head map: one cell per visible weight, its value in the title, tokens as the page shows them, names from 1', async () => {
  const { tokens, attention, shape } = await forwardOf('ab cd');
  const { T, H } = shape;
  const svg = F.headMap({ tokens, attention, shape, layer: 1, head: 2 });
  assert.ok(parse(svg).width > 0);
  assert.match(titleOf(svg), /head 2\.3/);
  assert.ok(descOf(svg).length > 40);
  const cs = cells(svg);
  assert.equal(cs.length, T * (T + 1) / 2);
  for (const c of cs) {
    const w = attention[((1 * H + 2) * T + c.r) * T + c.c];
    assert.ok(c.c <= c.r);
    assert.ok(Math.abs(c.v - w) < 5e-5, `${c.v} vs ${w}`);
    assert.ok(Math.abs(titleNumber(c.title) - w) < 5e-4, c.title);
    assert.match(c.title, /^head 2\.3: /);
  }
  const shown = tokens.map(F.tokenText);
  assert.ok(shown.includes('␣'), `the space is drawn as ␣: ${shown.join('|')}`);
  for (const t of shown) assert.ok(texts(svg).filter((x) => x === t).length >= 2, `row and column label ${t}`);
  assert.throws(() => F.headMap({ tokens, attention, shape, layer: 2, head: 0 }), /layer index must be in \[0, 1\]/);
});

test('strip: one chip per token up to the query, shaded by its weight; the future hidden; averaged heads', async () => {
  const { tokens, attention, shape } = await forwardOf('the cat sat');
  const { T, H } = shape;
  const q = 5;
  const svg = F.strip({ tokens, attention, shape, layer: 0, head: 1, query: q });
  parse(svg);
  const cs = cells(svg);
  assert.equal(cs.length, q + 1);
  for (const c of cs) assert.ok(Math.abs(c.v - attention[((0 * H + 1) * T + q) * T + c.c]) < 5e-5);
  assert.deepEqual(texts(svg).filter((t) => tokens.map(F.tokenText).includes(t)), tokens.map(F.tokenText));
  const avg = cells(F.strip({ tokens, attention, shape, layer: 1, head: -1, query: q }));
  for (const c of avg) {
    let sum = 0;
    for (let h = 0; h < H; h++) sum += attention[((1 * H + h) * T + q) * T + c.c];
    assert.ok(Math.abs(c.v - sum / H) < 5e-5);
  }
});

test('a layer\'s heads and the heads grid: one cell per visible weight of every head, habit labels', async () => {
  const { tokens, attention, shape } = await forwardOf('abc');
  const { L, H, T } = shape;
  const layer = F.layerHeads({ tokens, attention, shape, layer: 1 });
  parse(layer);
  assert.equal(cells(layer).length, H * T * (T + 1) / 2);
  const grid = F.headsGrid({ tokens, attention, shape, habits: (l, h) => ({ previous_token: l / 10 + h / 100, start_mark: 0.5, induction: null }) });
  parse(grid);
  const cs = cells(grid);
  assert.equal(cs.length, L * H * T * (T + 1) / 2);
  for (const c of cs) {
    const [l, h] = /head (\d+)\.(\d+)/.exec(c.m).slice(1).map((x) => Number(x) - 1);
    assert.ok(Math.abs(c.v - attention[((l * H + h) * T + c.r) * T + c.c]) < 5e-5);
  }
  assert.ok(texts(grid).includes('prev 0.13 · ◆ 0.50'), 'head 2.4\'s label, without the missing induction score');
  assert.ok(texts(grid).includes('2.4'));
});

test('habits: one map per habit, one cell per head with its score, the even spread marked', () => {
  const card = { heads: {
    previous_token: { by_layer: [[0.1, 0.9, 0.2], [0.4, 0.05, 0.3]], even: 0.03 },
    start_mark: { by_layer: [[0.5, 0.6, 0.7], [0.1, 0.2, 0.3]], even: 0.05 },
  } };
  const hb = F.cardHabits(card);
  assert.deepEqual(hb.map((h) => h.key), ['previous_token', 'start_mark']);
  const svg = F.habitsMap({ habits: hb });
  parse(svg);
  const cs = cells(svg);
  assert.equal(cs.length, 12);
  for (const c of cs) {
    const key = c.m === 'previous token' ? 'previous_token' : 'start_mark';
    assert.equal(c.v, card.heads[key].by_layer[c.r][c.c]);
    assert.match(c.title, new RegExp(`^head ${c.r + 1}\\.${c.c + 1}, `));
  }
  assert.ok(texts(svg).includes('even 0.03') && texts(svg).includes('even 0.05'));
  assert.equal((svg.match(/class="mark"/g) || []).length, 2);
});

test('cost plot and units: scores and memory per length on log axes, sizes in units that scale', () => {
  assert.equal(F.bytesText(131072 ** 2 * 2 * 48), '1.6 TB');
  assert.equal(F.bytesText(131072 ** 2 * 2), '34 GB');
  assert.equal(F.bytesText(64 * 64 * 2), '8.2 kB');
  assert.equal(F.bytesText(512), '512 B');
  assert.equal(F.countText(65536), '65,536');
  assert.equal(F.countText(17179869184), '17.2 billion');
  const svg = F.costPlot({ heads: 6, layers: 8, length: 512 });
  parse(svg);
  const points = [...svg.matchAll(/<circle class="point"[^>]*data-x="(\d+)" data-y="([\d.e+]+)"><title>([^<]*)<\/title>/g)];
  assert.equal(points.length, 4 * 12);
  for (const [, x, y] of points) {
    const T = Number(x), v = Number(y);
    assert.ok([T * T, T * T * 48, T * T * 2, T * T * 96].includes(v), `${T}: ${v}`);
  }
  assert.ok(texts(svg).some((t) => /At 512 tokens: 262,144 scores per head/.test(t)));
  assert.ok(texts(svg).includes('1 TB') || texts(svg).includes('10 TB'));
});

test('loss curve: one point per step with its loss in the title', () => {
  const svg = F.lossCurve({ series: [{ name: 'train', points: [[0, 5.5], [10, 3.25], [20, 0.5]] }] });
  parse(svg);
  const titles = [...svg.matchAll(/<circle class="point"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);
  assert.deepEqual(titles, ['train, step 0: 5.500 nats', 'train, step 10: 3.250 nats', 'train, step 20: 0.500 nats']);
});

test('flow: every matrix the core computes, one cell per number; the weights equal lb.attention\'s', async () => {
  const inputs = F.flowInputs('the cat sat down the');
  assert.deepEqual(inputs.x[0], inputs.x[4], 'a repeated word gets the same embedding');
  const f = await F.computeFlow(lb, inputs);
  const T = 5, C = 4, H = 2, d = 2;
  const q = Float32Array.from(f.Q.flat()), k = Float32Array.from(f.K.flat()), v = Float32Array.from(f.V.flat());
  const ref = lb.attention(q, k, v, { T, heads: H, d, causal: true });
  // the same arithmetic in separate steps (scores, softmax, blend) as in the fused kernel: equal to float rounding
  const close = (a, b) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < 1e-6);
  assert.ok(close(f.weights.flat(2), ref.weights));
  assert.ok(close(f.headsOut.flat(), ref.output));
  const svg = F.flowFigure(f);
  parse(svg);
  const cs = cells(svg);
  const count = (m) => cs.filter((c) => c.m === m).length;
  assert.equal(count('x'), T * C);
  for (const m of ['W_Q', 'W_K', 'W_V', 'W_O']) assert.equal(count(m), C * C);
  for (const m of ['Q', 'K', 'V']) assert.equal(count(m), T * C);
  for (const m of ['Q₁', 'K₂', 'V₁', 'out₁', 'out₂']) assert.equal(count(m), T * d);
  assert.equal(count('scores₁'), T * T);
  assert.equal(count('weights₂'), T * (T + 1) / 2);
  assert.equal(count('output'), T * C);
  assert.equal(count('concat'), 2 * T * C);   // drawn after the heads and again beside W_O
  for (const c of cs.filter((x) => x.m === 'weights₂')) {
    assert.ok(Math.abs(c.v - f.weights[1][c.r][c.c]) < 5e-5);
    assert.ok(Math.abs(titleNumber(c.title) - f.weights[1][c.r][c.c]) < 5e-4);
  }
  for (const c of cs.filter((x) => x.m === 'output')) assert.ok(Math.abs(c.v - f.out[c.r][c.c]) < 5e-5);
  assert.match(titleOf(svg), /x → Q, K, V → scores → mask → softmax → weights × V → heads concatenated → W_O/);
});

test('flow with one head and no mask: the chapter\'s four words, the "sat" row of weights', async () => {
  const f = await F.computeFlow(lb, { words: ['the', 'cat', 'sat', 'down'], x: [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]],
    wq: [[0, 1], [1, 0], [0, 1]], wk: [[1, 0], [1, 1], [0, 1]], wv: [[1, 0], [0, 1], [1, 1]], heads: 1, causal: false });
  assert.deepEqual(f.weights[0][2].map((w) => w.toFixed(3)), ['0.123', '0.249', '0.505', '0.123']);
  const svg = F.flowFigure(f);
  const cs = cells(svg);
  assert.equal(cs.filter((c) => c.m === 'weights').length, 16);
  assert.equal(cs.filter((c) => c.m === 'mask').length, 0);
  assert.ok(!/W_O/.test(titleOf(svg)));
});

test('the declarations type-check a script writer\'s use and name exactly the module\'s exports', async () => {
  const { default: ts } = await import('typescript');
  const { fileURLToPath } = await import('node:url');
  const dts = fileURLToPath(new URL('../../web/js/figures/index.d.ts', import.meta.url));
  const usage = fileURLToPath(new URL('./figures-usage.ts', import.meta.url));
  const p = ts.createProgram([usage, dts], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [] });
  assert.deepEqual(ts.getPreEmitDiagnostics(p).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), []);
  const declared = p.getTypeChecker().getExportsOfModule(p.getTypeChecker().getSymbolAtLocation(p.getSourceFile(dts)))
    .filter((s) => s.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)).map((s) => s.name).sort();
  assert.deepEqual(declared, Object.keys(F).sort());
});

test('a long text\'s thumbnail draws blocks of tokens, each its largest weight: at most 64 cells a side', () => {
  const T = 200, H = 1, step = Math.ceil(T / 64), n = Math.ceil(T / step);
  const attention = new Float32Array(T * T);
  for (let t = 0; t < T; t++) for (let s = 0; s <= t; s++) attention[t * T + s] = ((t * 31 + s * 17) % 97) / 97;
  const svg = F.headThumb({ attention, shape: { L: 1, H, T }, layer: 0, head: 0 });
  parse(svg);
  const cs = cells(svg);
  assert.equal(cs.length, n * (n + 1) / 2, 'the blocks on and below the diagonal');
  for (const c of cs) {
    let m = -1;
    for (let t = c.r * step; t < Math.min(T, (c.r + 1) * step); t++) for (let s = c.c * step; s <= Math.min(t, (c.c + 1) * step - 1); s++) m = Math.max(m, attention[t * T + s]);
    assert.ok(Math.abs(c.v - m) < 5e-5, `block ${c.r}, ${c.c}`);
    assert.match(c.title, new RegExp(`^head 1\\.1: tokens ${c.r * step} to \\d+ look at tokens ${c.c * step} to \\d+ with largest weight`));
  }
});

test('the number written in a cell reads on it: WCAG contrast of at least 4.5 on every colour of both scales', async () => {
  const { signedLab, signedColour } = await import('../../web/js/figures/colour.js');
  const contrast = (a, b) => {
    const [x, y] = [F.luminance(a), F.luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  let worst = Infinity;
  for (let i = 0; i <= 200; i++) {
    const w = i / 200, s = 2 * w - 1;
    worst = Math.min(worst, contrast(F.weightColour(w), F.inkOn(F.weightLab(w))), contrast(signedColour(s, 1), F.inkOn(signedLab(s, 1))));
  }
  assert.ok(worst >= 4.5, `the worst cell's ink contrast is ${worst.toFixed(2)}`);
});

test('a map\'s hidden cells are two paths, not elements each; a thumbnail drawn without cell titles has none', () => {
  const T = 26, H = 1;
  const attention = new Float32Array(T * T);
  for (let t = 0; t < T; t++) for (let s = 0; s <= t; s++) attention[t * T + s] = 1 / (t + 1);
  const svg = F.headThumb({ attention, shape: { L: 1, H, T }, layer: 0, head: 0 });
  parse(svg);
  assert.equal(cells(svg).length, T * (T + 1) / 2);
  assert.equal((svg.match(/<g class="hidden">/g) || []).length, 1, 'one group of hidden cells');
  assert.equal((svg.match(/<path /g) || []).length, 2, 'their squares and their hatching');
  assert.equal((svg.match(/z/g) || []).length, T * (T - 1) / 2, 'a square per hidden cell');
  const bare = F.headThumb({ attention, shape: { L: 1, H, T }, layer: 0, head: 0, titles: false });
  parse(bare);
  assert.equal((bare.match(/<rect class="lb-cell"/g) || []).length, T * (T + 1) / 2, 'a cell per visible weight');
  assert.equal((bare.match(/<title>/g) || []).length, 1, 'only the figure\'s own title');
});
