// How far a result after a cached prefix is from a fresh pass (web/docs/api.md, "The cache"):
// three short stories, each cut after every token; for every cut, the full text's logits from a model that
// just ran the cut (the prefix reused) against a fresh pass. Prints the largest absolute difference and the
// largest relative to 1 + |logit|. Run: node tests/bench/cache.bench.mjs
import { loadLookback } from '../../web/js/api/index.js';

const STORIES = [
  'Mia took her doll to the park. She sat on the bench and sang a song. Then Tom came.',
  'Once upon a time, there was a little boy named Ben. He had a red kite. One day, the wind was strong.',
  'At night, Lily put her teddy on the bed. She read a book about the moon and fell asleep.',
];

const lb = await loadLookback();
const cached = await lb.loadModel('sprout'), fresh = await lb.loadModel('sprout');
const bos = cached.info.config.bos_id;
let worst = 0, worstRel = 0, compared = 0;
for (const story of STORIES) {
  const ids = cached.encode(story);
  fresh.forward([bos]);
  const want = fresh.forward(ids).logits;
  for (let cut = 1; cut < ids.length; cut++) {
    cached.forward([bos]);
    cached.forward(ids.slice(0, cut));
    const got = cached.forward(ids);
    if (got.reused !== cut) throw new Error(`expected ${cut} positions reused, got ${got.reused}`);
    for (let i = 0; i < want.length; i++) {
      const d = Math.abs(got.logits[i] - want[i]);
      worst = Math.max(worst, d);
      worstRel = Math.max(worstRel, d / (1 + Math.abs(want[i])));
    }
    compared++;
  }
}
cached.dispose();
fresh.dispose();
console.log(`cache: ${compared} cuts of ${STORIES.length} stories; largest logit difference after a cached prefix `
  + `${worst.toExponential(1)} (relative to 1 + |logit|: ${worstRel.toExponential(1)})`);
