// node:test tests of the widgets' content modules (.scripts/widget-content.mjs): each JSON file in
// web/js/widgets/content is the one source of its words; the .js beside it, which the widgets import, is what the
// build writes from it (a hand edit or a stale copy fails here), and it exports exactly the JSON's data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CONTENT, contentModules } from '../../.scripts/widget-content.mjs';

test('every content module is the build\'s copy of its JSON, and exports the same data', async () => {
  const modules = contentModules();
  assert.deepEqual(modules.map((m) => m.json), ['counterfactual-stories.json', 'examples.json', 'quiz-sets.json', 'review-decks.json']);
  for (const m of modules) {
    assert.equal(m.text, m.wanted, `web/js/widgets/content/${m.js} is what \`node .scripts/widget-content.mjs\` writes`);
    const { default: data } = await import(pathToFileURL(`${CONTENT}${m.js}`).href);
    assert.deepEqual(data, JSON.parse(readFileSync(`${CONTENT}${m.json}`, 'utf8')), m.js);
  }
});

test('the widgets keep no content of their own: the sets, decks and texts come from the content modules', async () => {
  const { EXAMPLES } = await import('../../web/js/widgets/examples.js');
  const cf = await import('../../web/js/widgets/counterfactual-examples.js');
  assert.deepEqual(EXAMPLES, JSON.parse(readFileSync(`${CONTENT}examples.json`, 'utf8')));
  assert.deepEqual(cf.EXAMPLES, JSON.parse(readFileSync(`${CONTENT}counterfactual-stories.json`, 'utf8')));
  for (const [file, json] of [['quiz.js', 'quiz-sets'], ['review-cards.js', 'review-decks']]) {
    const source = readFileSync(new URL(`../../web/js/widgets/${file}`, import.meta.url), 'utf8');
    assert.match(source, new RegExp(`from './content/${json}\\.js'`), `${file} imports its content`);
    const data = JSON.parse(readFileSync(`${CONTENT}${json}.json`, 'utf8'));
    for (const set of Object.values(data)) assert.ok(!source.includes(set.title), `${file} does not repeat "${set.title}"`);
  }
});
