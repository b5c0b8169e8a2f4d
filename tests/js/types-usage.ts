// Compiled (not run) by types.test.mjs: typical calls must type-check against web/js/api/index.d.ts,
// and the marked misuse must not.
import { loadLookback } from '../../web/js/api/index.js';

async function main(): Promise<number> {
  const lb = await loadLookback();
  const q = new Float32Array(8);
  const s: Float32Array = lb.scores(q, q, { T: 2, d: 4, scale: true });
  const w = lb.softmax(s, { rows: 2, mask: lb.causalMask(2) });
  const a = lb.attention(q, q, q, { T: 2, d: 4, causal: true, weights: false });
  const out: Float32Array = a.output;
  const b: Float32Array = lb.blend(w.weights, q, { T: 2, d: 4 });
  const c: Float32Array = lb.gemm([1, 2], [3, 4], { M: 1, N: 1, K: 2 });
  // @ts-expect-error: d is required
  lb.attention(q, q, q, { T: 2 });
  const { formats, weights } = lb.modelFormats();
  const m = await lb.loadModel('sprout', { weights: weights[0] });
  const read: string = m.info.format + formats[0].weights + String(formats[0].config);
  const f = m.forward('Mia', { attention: true });
  const hs = m.headScores(['Mia had a kite.', [0, 5, 6]], { repeats: 2, repeatLength: 10, seed: 1 });
  const best: number = hs.induction.best[0].score + hs.previousToken.byLayer[0][0] + hs.startMark.even;
  // @ts-expect-error: texts is an array
  m.headScores('Mia');
  m.dispose();
  const win = await lb.loadModel('window');
  const p: number = win.next('Mia had a', { topK: 3 })[0].p + win.info.config.window;
  // @ts-expect-error: a window model has no forward pass with attention
  win.forward('Mia');
  win.dispose();
  const run = await lb.train({ layers: 2, mlp: false }, { task: 'induction', steps: 100, onStep: (x) => x.loss });
  const e = run.evaluate();
  const trained = await run.run();
  const ind: number = e.induction[0] + e.previousTokenOnRandomTokens[0] + e.task + trained.context + run.step(2)[0];
  // @ts-expect-error: no such task
  lb.train({}, { task: 'sorting' });
  return ind + p + out.length + b.length + c.length + w.emptyRows + lb.dot(q, q) + lb.simdWidth() + lb.heapBytes()
    + lb.paddingMask(1, 2, 1).length + f.shape.T + best;
}
main();
