// The shipped models against their card: every file the card lists is present with the recorded size and
// SHA-256, every acceptance row is a measured number, and the card was made from the files beside it (its f16
// and q8 rows from Sprout loaded in those formats). Sprout ships with the project: a missing card fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checksums } from '../../.scripts/eval.mjs';

const models = fileURLToPath(new URL('../../shared/models/', import.meta.url));
const cardPath = `${models}sprout/card.json`;
const card = JSON.parse(readFileSync(cardPath, 'utf8'));

test('the card lists exactly the shipped files, with matching sizes and checksums', () => {
  assert.deepEqual(checksums(`${models}sprout`), card.files);
  if (card.window_files) assert.deepEqual(checksums(`${models}window`), card.window_files);
});

test('the card holds measured numbers for every acceptance criterion', () => {
  assert.ok(card.acceptance.length >= 7);
  for (const row of card.acceptance) {
    assert.equal(typeof row.value, 'number', row.criterion);
    assert.ok(Number.isFinite(row.value), row.criterion);
    assert.equal(typeof row.pass, 'boolean');
  }
  const h = card.heads;
  for (const key of ['previous_token', 'start_mark', 'four_or_more_back', 'induction', 'start_mark_on_random_tokens', 'previous_token_on_random_tokens', 'pronoun_to_name', 'pronoun_to_every_mention']) {
    assert.equal(h[key].by_layer.length, h.layers, key);
    assert.ok(h[key].by_layer.every((row) => row.length === h.heads), key);
  }
  assert.ok(card.validation.sample.texts.length > 0);
});

test('headScores in the JS API reproduces the card\'s scores on the same random repeats', async () => {
  const { loadLookback } = await import('lookback');
  const lb = await loadLookback();
  const m = await lb.loadModel('sprout');
  const { evaluation, induction_test: it, heads } = card;
  const r = m.headScores([], { repeats: evaluation.repeats, repeatLength: it.half_length, seed: evaluation.seed * 1000003 });
  m.dispose();
  assert.equal(r.induction.count, evaluation.repeats * it.half_length);
  assert.equal(r.startMarkOnRandomTokens.count, evaluation.repeats * (it.half_length - 1));
  assert.equal(r.previousTokenOnRandomTokens.count, evaluation.repeats * (it.half_length - 1));
  for (const [api, key] of [['induction', 'induction'], ['startMarkOnRandomTokens', 'start_mark_on_random_tokens'],
    ['previousTokenOnRandomTokens', 'previous_token_on_random_tokens']]) {
    const got = r[api].byLayer.flat(), want = heads[key].by_layer.flat();
    for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) < 2e-4, `${key} head ${i}: ${got[i]} vs card ${want[i]}`);
  }
});

test('the card\'s compact-format rows come from Sprout loaded in those formats (best induction head, same repeats)',
  async () => {
    const { loadLookback } = await import('lookback');
    const lb = await loadLookback();
    const { evaluation, induction_test: it } = card;
    for (const weights of ['f16', 'q8']) {
      const row = card.weight_formats[weights].criteria.find((c) => c.criterion === 'best induction head');
      assert.ok(row, `${weights}: the card has the best induction head`);
      const m = await lb.loadModel('sprout', { weights });
      const r = m.headScores([], { repeats: evaluation.repeats, repeatLength: it.half_length, seed: evaluation.seed * 1000003 });
      m.dispose();
      const best = Math.max(...r.induction.byLayer.flat());
      assert.ok(Math.abs(best - row.value) < 2e-4, `${weights}: ${best} vs card ${row.value}`);
      assert.equal(card.weight_formats[weights].criteria.length, card.acceptance.length);
    }
  });

test('the card\'s text and card.md name heads as people read them, layer.head counting from 1', async () => {
  const { headLabel, summary } = await import('../../.scripts/eval.mjs');
  assert.match(card.head_numbering, /counting from 0/, 'the card says its head fields are indexes from 0');
  const pronoun = card.handwritten.final.pronoun.head, startMark = card.heads.start_mark_by_position.best_up_to_64.stories.head;
  const named = card.acceptance.map((a) => a.criterion).filter((c) => /head \d+\.\d+/.test(c));
  assert.deepEqual(named.map((c) => c.match(/head (\d+\.\d+)/)[1]), [headLabel(pronoun), headLabel(pronoun), headLabel(startMark)]);
  assert.equal(readFileSync(`${models}sprout/card.md`, 'utf8'), summary(card), 'card.md is the one npm run eval writes from the card');
  const best = card.heads.induction.best[0].head;
  assert.match(summary(card), new RegExp(`^- induction \\([0-9.]+\\): ${headLabel(best).replace('.', '\\.')} `, 'm'));
});

test('the model block of the models page is filled from the card when the pages are built, and typed nowhere', async () => {
  const { readmeBlock } = await import('../../.scripts/eval.mjs');
  const { pages, renderPage, withModelCard } = await import('../../.scripts/docs-site.mjs');
  const readme = readFileSync(new URL('../../web/docs/models.md', import.meta.url), 'utf8');
  const block = readme.match(/<!-- model-card:start -->\n([\s\S]*?)<!-- model-card:end -->/);
  assert.ok(block, 'web/docs/models.md has the model-card markers');
  assert.equal(block[1], '', 'the markdown holds only the markers: the figures come from the card');
  assert.ok(withModelCard(readme).includes(`${readmeBlock(card)}\n`));
  const all = pages();
  const html = renderPage(all.find(([src]) => src.endsWith('models.md')), all);
  for (const a of card.acceptance) {
    const cell = a.value.toFixed(3);
    assert.ok(html.includes(`<td>${cell}</td>`), `the built page shows ${a.criterion}: ${cell}`);
  }
  assert.ok(html.includes(`<td>${card.validation.sprout.loss_nats.toFixed(3)}</td>`), 'and the validation loss');
});

test('the card\'s hand-written recall and the chapter\'s example stories come back from the shipped weights and the probe files', async () => {
  const { loadLookback } = await import('lookback');
  const { handwritten, readProbes, showcase } = await import('../../.scripts/eval-text.mjs');
  const lb = await loadLookback();
  const m = await lb.loadModel('sprout');
  const dev = readProbes(fileURLToPath(new URL('../../shared/probes/handwritten-dev.json', import.meta.url)));
  const got = handwritten(m, dev, card.handwritten.dev.pronoun.head);
  const pool = JSON.parse(readFileSync(new URL(`../../shared/probes/${card.showcase.file}`, import.meta.url), 'utf8'));
  const stories = showcase(m, pool);
  m.dispose();
  assert.deepEqual(stories, card.showcase.stories, 'each example story\'s verdict and top guess as the card has them');
  assert.ok(stories.some((x) => x.hit) && stories.some((x) => !x.hit), 'the chapter has a story of each kind to show');
  assert.equal(got.recall.top1, card.handwritten.dev.recall.top1);
  assert.ok(Math.abs(got.pronoun.on_name - card.handwritten.dev.pronoun.on_name) < 1e-4);
  assert.ok(Math.abs(got.names.drop_nats - card.handwritten.dev.names.drop_nats) < 1e-3);
});
