// The chapter's Python listings (web/listings/*.py): each numpy listing runs under Debian's python3 with numpy
// and prints what the page computes from the numbers read out of its source with the core (listing-runs.js);
// the PyTorch module runs on a numpy stand-in of torch, prints the shapes the page computes, keeps the heads as
// a batch dimension ([B, H, T, d]) and gives the numpy multi-head listing's output from its matrices, and the
// stand-in catches the usual mistakes. Every listing is on the page, and every listing on the page exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLookback } from 'lookback';
import { runListing } from '../../web/js/chapter/listing-runs.js';
import { listingInputs } from '../../web/js/chapter/listing-inputs.js';
import { CHECK_MODULE, listingFiles, listingSource, python, runListingInPython, samePrinted } from './listing-check.mjs';

const lb = await loadLookback({ threads: 1 });
const ask = async (op, args) => lb[op](...args);
const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');

test('every listing file is shown on the page once, and every listing the page shows exists', () => {
  const shown = [...html.matchAll(/data-listing="listings\/([\w.-]+\.py)"/g)].map((m) => m[1]).sort();
  assert.deepEqual(shown, listingFiles());
  assert.ok(shown.length >= 5, `five listings or more (${shown.length})`);
});

for (const file of listingFiles()) {
  test(`${file}: Python prints what the page computes with the core`, { timeout: 180000 }, async () => {
    samePrinted(file, runListingInPython(file), await runListing(file, listingSource(file), ask));
  });
}

test('a listing\'s numbers are read from its source: change one and the page\'s output follows', async () => {
  const src = listingSource('qkv.py');
  assert.deepEqual(listingInputs(src).q, [1.4, 0.7]);
  const moved = src.replace('q = np.array([1.4, 0.7])', 'q = np.array([-1.2, -0.9])');
  assert.notEqual(moved, src);
  const [a, b] = await Promise.all([runListing('qkv.py', src, ask), runListing('qkv.py', moved, ask)]);
  assert.notEqual(a.text, b.text);
  assert.match(b.text, /^scores {2}\[-2\.730 /, 'the first score is now q·k = -1.2·1.6 - 0.9·0.9 = -2.73');
});

test('the PyTorch module keeps the heads as a batch dimension and gives the numpy multi-head output', { timeout: 60000 }, () => {
  const r = python(CHECK_MODULE, { torch: true });
  assert.equal(r.code, 0, r.stderr);
  const shapes = JSON.parse(r.stdout);
  assert.deepEqual(shapes.q, [1, ...shapes.numpy.Q], 'q: [B, H, T, d] against numpy\'s [H, T, d]');
  assert.deepEqual(shapes.out, [1, ...shapes.numpy.Y], 'the output: [B, T, C] against numpy\'s [T, C]');
});

test('the stand-in catches the usual mistakes in the module', { timeout: 60000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lookback-listing-'));
  const src = listingSource('attention_module.py');
  const mistakes = {
    'no causal mask': ['is_causal=True', 'is_causal=False'],
    'heads not moved next to the batch': ['.view(B, T, self.H, self.d).transpose(1, 2)', '.view(B, self.H, T, self.d)'],
    'view without contiguous': ['y.transpose(1, 2).contiguous()', 'y.transpose(1, 2)'],
    'no output projection': ['return self.o(y)', 'return y'],
  };
  for (const [what, [from, to]] of Object.entries(mistakes)) {
    assert.ok(src.includes(from), `the listing has ${from}`);
    const file = join(dir, `${what.replace(/\W+/g, '-')}.py`);
    writeFileSync(file, src.split(from).join(to));
    const r = python(CHECK_MODULE, { args: [file], torch: true });
    assert.notEqual(r.code, 0, `${what}: the check fails`);
  }
});
