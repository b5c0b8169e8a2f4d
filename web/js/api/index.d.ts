// Type declarations of the lookback JS API (web/js/api/index.js). A test checks them against the real exports.
// Shapes use the letters T (queries), S (keys), H (heads), D (head width).

export interface LoadConfig {
  /** the module's .wasm bytes, if you have them already */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** where to fetch the .wasm from (default: web/build/lookback-core.wasm beside the API) */
  wasmUrl?: string | URL;
}

/** A byte mask [T,S]: 1 = the query may look at the key, 0 = hidden. */
export type Mask = Uint8Array | ArrayLike<number | boolean>;
/** Float32Array, or a plain array of numbers (converted). */
export type Floats = Float32Array | ArrayLike<number>;
/** true: 1/sqrt(d); false: 1; or the number to multiply scores by. */
export type Scale = boolean | number;

export interface ScoresOptions { T: number; S?: number; heads?: number; d: number; scale?: Scale }
export interface SoftmaxOptions { rows?: number; cols?: number; mask?: Mask | null; temperature?: number }
export interface SoftmaxResult {
  /** [rows, cols]; each row sums to 1, or is all zeros when fully masked */
  weights: Float32Array;
  /** rows with no visible entry (returned as zeros, never NaN) */
  emptyRows: number;
}
export interface BlendOptions { T: number; S?: number; heads?: number; d: number }
export interface AttentionOptions {
  T: number;
  /** keys (default T); with causal, the queries are the last T of S positions */
  S?: number;
  heads?: number;
  /** key/value heads for grouped-query attention (default: heads) */
  kvHeads?: number;
  d: number;
  causal?: boolean;
  mask?: Mask | null;
  scale?: Scale;
  temperature?: number;
  /** return every head's weights [H,T,S] (default true) */
  weights?: boolean;
}
export interface AttentionResult {
  /** [T, H, D] */
  output: Float32Array;
  /** [H, T, S], or null when not requested */
  weights: Float32Array | null;
  emptyRows: number;
}
export interface GemmOptions { M: number; N: number; K: number; transB?: boolean }

export interface Lookback {
  /** floats per SIMD vector in this build (4 in WebAssembly) */
  simdWidth(): number;
  /** scale · q·kᵀ for every head: q [T,H,D], k [S,H,D] -> [H,T,S] */
  scores(q: Floats, k: Floats, options: ScoresOptions): Float32Array;
  /** [T,S] bytes: query t (at position t + S - T) sees keys s <= its position */
  causalMask(T: number, S?: number): Uint8Array;
  /** [T,S] bytes: keys s >= valid are hidden */
  paddingMask(T: number, S: number, valid: number): Uint8Array;
  /** row softmax; masked entries and -Infinity give exact zeros */
  softmax(x: Floats, options?: SoftmaxOptions): SoftmaxResult;
  /** weights [H,T,S] times v [S,H,D] -> [T,H,D] */
  blend(weights: Floats, v: Floats, options: BlendOptions): Float32Array;
  /** multi-head attention on projected q [T,H,D], k and v [S,Hkv,D] */
  attention(q: Floats, k: Floats, v: Floats, options: AttentionOptions): AttentionResult;
  /** C = A·B ([M,K]·[K,N]) or A·Bᵀ (B is [N,K]) */
  gemm(a: Floats, b: Floats, options: GemmOptions): Float32Array;
  dot(a: Floats, b: Floats): number;
  /** bytes of WebAssembly memory (grows, never shrinks) */
  heapBytes(): number;
}

/** Loads the WebAssembly core (once per realm) in Node, a page or a module worker. */
export function loadLookback(config?: LoadConfig): Promise<Lookback>;
