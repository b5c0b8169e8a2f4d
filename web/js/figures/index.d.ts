// Types of lookback/figures: the chapter's pictures as standalone SVG strings (web/js/figures/index.js).
// Layer, head and query are indexes from 0; every name a figure draws counts from 1 (layer.head).

/** attention as the API's forward() returns it: [L, H, T, T] */
export type Attention = Float32Array | ArrayLike<number>;
export interface AttentionShape { L: number; H: number; T: number }
export interface AttentionFigure { tokens: readonly string[]; attention: Attention; shape: AttentionShape }

/** WCAG relative luminance that the colour of a weight of 0.47 stays below (0.35) */
export const PALE_LUMINANCE: number;
/** '#rrggbb' of a weight in [0, 1] (clamped): the one scale of every attention figure and widget */
export function weightColour(w: number): string;
/** [r, g, b] bytes of a weight in [0, 1] (the same scale in 256 steps, for a canvas) */
export function weightRGB(w: number): [number, number, number];
/** OKLab [L, a, b] of a weight in [0, 1] */
export function weightLab(w: number): [number, number, number];
/** '#rrggbb' of a signed number, scaled by its matrix's largest magnitude */
export function signedColour(x: number, max: number): string;
/** the text colour that reads on a cell of this OKLab colour */
export function inkOn(lab: readonly number[]): string;
/** WCAG relative luminance of '#rrggbb' */
export function luminance(colour: string): number;
/** distance of two OKLab colours */
export function deltaE(a: readonly number[], b: readonly number[]): number;

/** a token's text as the chapter shows it: a space as ␣, a line break as ↵ */
export function tokenText(text: string): string;
/** `"␣cat" (3)` */
export function tokenLabel(text: string, position: number): string;
/** "layer.head" counting from 1, from indexes counting from 0 */
export function headName(layer: number, head: number): string;
/** one head's weights as T rows of T, the future null */
export function headRows(attention: Attention, shape: AttentionShape, layer: number, head: number): (number | null)[][];

/** one head as a heat map over the tokens (rows look, columns are looked at) */
export function headMap(o: AttentionFigure & { layer: number; head: number; cell?: number }): string;
/** the explorer's strip: the tokens shaded by the weight `query` (default: the last) puts on each; head -1: the layer's heads averaged */
export function strip(o: AttentionFigure & { layer: number; head: number; query?: number; width?: number }): string;
/** one head's small map as a standalone SVG (no labels): the heads grid's cells */
export function headThumb(o: { attention: Attention; shape: AttentionShape; layer: number; head: number; size?: number; titles?: boolean }): string;
/** every head of one layer */
export function layerHeads(o: AttentionFigure & { layer: number; size?: number }): string;
export type HabitScores = Partial<Record<'previous_token' | 'start_mark' | 'induction' | 'four_or_more_back', number | null>>;
/** "prev 0.16 · ◆ 0.12 · ind 0.00" */
export function habitLine(scores: HabitScores): string;
/** every head as a grid of small maps, each labelled with its habits */
export function headsGrid(o: AttentionFigure & { order?: { layer: number; head: number }[]; habits?: (layer: number, head: number) => HabitScores; size?: number }): string;

export interface Habit { key: string; label: string; byLayer: number[][]; even: number }
/** the model card's habits as habitsMap takes them */
export function cardHabits(card: unknown, keys?: string[]): Habit[];
/** one heat map per habit (layers × heads), the even spread marked */
export function habitsMap(o: { habits: Habit[]; cell?: number; maxWidth?: number }): string;

/** a loss curve: [step, loss] points per series */
export function lossCurve(o: { series: { name: string; points: [number, number][] }[]; title?: string; width?: number; height?: number }): string;
/** full attention's scores and memory against length, log axes */
export function costPlot(o: { heads: number; layers: number; lengths?: number[]; bytes?: number; length?: number; width?: number }): string;
/** "1.6 TB", "6.3 MB", "512 B" (decimal units) */
export function bytesText(bytes: number): string;
/** "65,536", "17.2 billion" */
export function countText(n: number): string;

export interface FlowInputs {
  words: string[];
  /** [T][C] */
  x: number[][];
  /** [C][H·d] */
  wq: number[][]; wk: number[][]; wv: number[][];
  /** [H·d][C], optional */
  wo?: number[][] | null;
  heads?: number;
  causal?: boolean;
}
export interface Flow extends Required<FlowInputs> {
  d: number;
  Q: number[][]; K: number[][]; V: number[][];
  /** [H][T][T], scaled, before the mask */
  scores: number[][][];
  /** [T][T], 1: may look */
  mask: number[][];
  /** [H][T][T] */
  weights: number[][][];
  /** [T][H·d]: the heads' outputs side by side */
  headsOut: number[][];
  /** [T][C] with wo, else null */
  out: number[][] | null;
}
/** the operations computeFlow runs through: the JS API (lb) or the page's worker; results may be promises */
export interface FlowOps {
  gemm(a: Float32Array, b: Float32Array, o: { M: number; N: number; K: number }): Float32Array | Promise<Float32Array>;
  scores(q: Float32Array, k: Float32Array, o: { T: number; S: number; heads: number; d: number; scale: true }): Float32Array | Promise<Float32Array>;
  softmax(x: Float32Array, o: { rows: number; cols: number; mask: Uint8Array }): { weights: Float32Array } | Promise<{ weights: Float32Array }>;
  blend(w: Float32Array, v: Float32Array, o: { T: number; S: number; heads: number; d: number }): Float32Array | Promise<Float32Array>;
}
/** small readable inputs for a short text (each word's embedding from the word, weights from the seed) */
export function flowInputs(text: string, o?: { C?: number; heads?: number; seed?: number; maxWords?: number }): Required<FlowInputs>;
/** one attention layer, every intermediate, computed by `ops` */
export function computeFlow(ops: FlowOps, inputs: FlowInputs): Promise<Flow>;
/** the flow figure of computeFlow()'s result */
export function flowFigure(flow: Flow, o?: { cell?: number }): string;
/** rows of `cols` numbers from a flat array */
export function rowsOf(flat: ArrayLike<number>, cols: number): number[][];
