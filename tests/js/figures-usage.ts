// Type-checked (not run) by figures.test.mjs: what a script writer writes with lookback/figures.
import { headMap, strip, headsGrid, costPlot, computeFlow, flowFigure, flowInputs, weightColour, cardHabits, habitsMap, lossCurve, type FlowOps } from '../../web/js/figures/index.js';

declare const attention: Float32Array;
declare const ops: FlowOps;
const shape = { L: 2, H: 2, T: 3 };
const tokens = ['◆', 'a', ' b'];
const svgs: string[] = [
  headMap({ tokens, attention, shape, layer: 0, head: 1 }),
  strip({ tokens, attention, shape, layer: 1, head: -1, query: 2 }),
  headsGrid({ tokens, attention, shape, habits: () => ({ previous_token: 0.5, induction: null }) }),
  costPlot({ heads: 6, layers: 8, length: 512 }),
  habitsMap({ habits: cardHabits({}) }),
  lossCurve({ series: [{ name: 'train', points: [[0, 1]] }] }),
];
const colour: string = weightColour(0.47);
async function flow(): Promise<string> {
  return flowFigure(await computeFlow(ops, flowInputs('the cat sat down', { heads: 2 })));
}
export { svgs, colour, flow };
