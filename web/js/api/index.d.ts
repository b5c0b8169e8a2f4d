// Type declarations of the lookback JS API (web/js/api/index.js). A test checks them against the real exports.
// Shapes use the letters T (queries), S (keys), H (heads), D (head width).
// Sizes and counts must be numbers (the string "4" or true is a TypeError, never converted). Every value must be
// one float32 can carry, and so must every result: a temperature in [1e-30, 1e30], a scale of size at most 1e30,
// and inputs whose scores, products or sums could pass 1e38 are an Error naming the bound (never NaN).

export interface LoadConfig {
  /** the folder that holds build/ (loader and .wasm) and models/, i.e. a served copy of the package's web/
   * (default: the web/ folder beside this file; in Node also a path). Relocates all three together: for bundled
   * pages and CDNs. */
  baseUrl?: string | URL;
  /** the one-thread module's .wasm bytes, if you have them already (loads the one-thread module) */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** where to fetch the one-thread module's .wasm from (default: web/build/lookback-core.wasm beside the API) */
  wasmUrl?: string | URL;
  /** threads the core computes on: 'auto' (default: every core, at most 8) or a count from 1 to 64. Threads need
   * shared memory: always there in Node; in a page only when it is cross-origin isolated (served with COOP/COEP),
   * else the one-thread module loads. Results are the same, bit for bit, on any count. */
  threads?: 'auto' | number;
}

/** A byte mask [T,S]: 1 = the query may look at the key, 0 = hidden; a plain array is converted. */
export type Mask = Uint8Array | readonly (number | boolean)[];
/** Float32Array, or any array-like of numbers (Array, Float64Array, Int8Array, ...; converted to float32). */
export type Floats = Float32Array | ArrayLike<number>;
/** true: 1/sqrt(d); false: 1; or the number to multiply scores by (size at most 1e30). */
export type Scale = boolean | number;

export interface ScoresOptions { T: number; S?: number; heads?: number; d: number; scale?: Scale }
export interface SoftmaxOptions {
  rows?: number;
  cols?: number;
  mask?: Mask | null;
  /** in [1e-30, 1e30] (default 1) */
  temperature?: number;
}
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
  /** in [1e-30, 1e30] (default 1); scale / temperature at most 1e38 */
  temperature?: number;
  /** return every head's weights [H,T,S] (default true) */
  weights?: boolean;
  /** a Float32Array of T·heads·d floats that receives the output (returned as `output`) instead of a new
   * array: reusing one saves an allocation per call */
  out?: Float32Array | null;
}
export interface AttentionResult {
  /** [T, H, D] */
  output: Float32Array;
  /** [H, T, S], or null when not requested */
  weights: Float32Array | null;
  emptyRows: number;
}
export interface AttentionRowOptions extends Omit<AttentionOptions, 'weights'> {
  /** the query head (default 0) */
  head?: number;
  /** the query's row, 0 to T-1 */
  query: number;
}
/** One row of the scalar reference attention (attention_row_ref), every intermediate in float64. */
export interface AttentionRowResult {
  /** [S] scale·q·k / temperature; -Infinity where the key is hidden */
  score: Float64Array;
  max: number;
  /** [S] exp(score - max); 0 where hidden */
  e: Float64Array;
  sum: number;
  /** [S] e / sum */
  weight: Float64Array;
  /** [D] the weighted sum of the values */
  out: Float64Array;
  /** false when the row sees no key (weights and output are then zero) */
  sees: boolean;
}
export interface GemmOptions {
  M: number; N: number; K: number; transB?: boolean;
  /** a Float32Array of M·N floats that receives C (and is returned) instead of a new array */
  out?: Float32Array | null;
}

export interface Lookback {
  /** floats per SIMD vector in this build (4 in WebAssembly) */
  simdWidth(): number;
  /** threads the core computes on (1: the one-thread module) */
  threads(): number;
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
  /** one (head, query) row of the scalar reference attention with its scores, max, exponentials, sum,
   * weights and output */
  attentionRow(q: Floats, k: Floats, v: Floats, options: AttentionRowOptions): AttentionRowResult;
  /** C = A·B ([M,K]·[K,N]) or A·Bᵀ (B is [N,K]) */
  gemm(a: Floats, b: Floats, options: GemmOptions): Float32Array;
  dot(a: Floats, b: Floats): number;
  /** a constant matrix kept in the module (packed once): b [K,N], or [N,K] with transB */
  weight(b: Floats, options: { K: number; N: number; transB?: boolean }): Weight;
  /** bytes of WebAssembly memory (grows, never shrinks) */
  heapBytes(): number;
  /** the formats the core reads and the weight storages (the core's one list of each) */
  modelFormats(): ModelFormats;
  /**
   * A model: a bundled one by name ("sprout"), a URL or (in Node) a path to a bundle folder
   * (model.safetensors + config.json + tokenizer.json), a weights file of any format (modelFormats(): a
   * .safetensors file, a llama2.c .bin checkpoint) with its files beside it, a sharded Hugging Face folder or its
   * model.safetensors.index.json (the shards it names are read from beside it), or bytes. The core tells the
   * format from the files. Corrupt, truncated or mismatched files reject with an Error saying what and where.
   */
  loadModel(source: 'window', options?: LoadModelOptions): Promise<WindowModel>;
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<Model>;
  /**
   * a safetensors file (or, with format 'llama2c', a llama2.c checkpoint .bin) of random weights for a
   * config.json (text or object), for tests, demos and benchmarks
   */
  randomWeights(config: string | ModelConfig, options?: { seed?: number; f16?: boolean; format?: 'safetensors' | 'llama2c' }): Uint8Array;
  /**
   * A live training run of a small Sprout-family model on a generated task, in the training module (loaded on
   * the first call). Step it with step(n), or run() it in chunks that yield to the event loop.
   */
  train(config?: TrainConfig, options?: TrainOptions): Promise<Training>;
}

/** A resident weight matrix (web/js/api/weight.js): gemm copies only a in and C out. */
export interface Weight {
  readonly K: number;
  readonly N: number;
  /** a [M,K] times the matrix -> [M,N] */
  gemm(a: Floats, options: { M: number; out?: Float32Array | null }): Float32Array;
  /** frees the module's copy now (also freed when garbage-collected) */
  dispose(): void;
}

// ---- live training (web/js/api/train.js) ----

/** The model trained: byte-level vocabulary (258), heads of width dim / heads, context seqLen. */
export interface TrainConfig {
  /** 1 to 4 (default 2) */
  layers?: number;
  /** SwiGLU MLPs of width 4·dim (default false: attention only) */
  mlp?: boolean;
  /** d_model, 8 to 256, a multiple of 2·heads (default 64) */
  dim?: number;
  /** heads per layer, 1 to 8 (default 2) */
  heads?: number;
  /** tokens per row, 13 to 128 (default 32) */
  seqLen?: number;
}

export type TrainTask = 'induction' | 'previous' | 'corpus';

export interface TrainStep { step: number; loss: number; evaluation?: TrainEvaluation }

export interface TrainOptions {
  /** induction: random tokens, then the same tokens again; previous: triples (a, b, a); corpus: Sprout stories as bytes */
  task?: TrainTask;
  /** distinct random tokens of the induction and previous tasks, 2 to 256 (default 188: every visible byte) */
  alphabet?: number;
  /** induction: the first copy's shortest and longest length (0, the default: T/2 - 3T/16 and T/2) */
  repeatMin?: number;
  repeatMax?: number;
  /** where run() stops (default 1000) */
  steps?: number;
  /** rows per step (default 16) */
  batch?: number;
  /** Adam's learning rate after the warm-up, then constant (default 0.003) */
  lr?: number;
  /** steps of linear warm-up (default 50) */
  warmup?: number;
  seed?: number;
  /** held-out rows for the losses (default 32) */
  heldOut?: number;
  /** random repeated sequences the head scores average over (default 4) */
  probes?: number;
  /** called by run() after each chunk */
  onStep?: ((s: TrainStep) => void) | null;
  /** run() evaluates every evalEvery steps (0: never; default 50) */
  evalEvery?: number;
  /** steps per chunk in run() (default 10) */
  chunk?: number;
}

export interface TrainEvaluation {
  step: number;
  /** mean loss per target on held-out rows, nats */
  heldOut: number;
  /** the same on the task's own targets (the repeated half, the copies; every target for corpus) */
  task: number;
  /** the last step's training loss (null before the first step) */
  loss: number | null;
  /** the probe: the task's first held-out row, T ids */
  probe: number[];
  /** [L,H,T,T] every head's attention on the probe (absent in Training.evaluations) */
  attention?: Float32Array;
  shape: [number, number, number, number];
  /** [L·H] weight on the previous token, reading random tokens the first time */
  previousTokenOnRandomTokens: number[];
  /** [L·H] induction score on random tokens repeated */
  induction: number[];
}

export interface Training {
  readonly info: { config: Required<TrainConfig>; options: Omit<Required<TrainOptions>, 'onStep'>; parameters: number };
  readonly steps: number;
  /** every step's training loss */
  readonly losses: Float64Array;
  readonly evaluations: TrainEvaluation[];
  readonly running: boolean;
  /** n steps now (blocking); their losses */
  step(n?: number): Float64Array;
  evaluate(): TrainEvaluation;
  /** the current weights as files loadModel reads */
  bundle(): { weights: Uint8Array; config: string; tokenizer: string };
  /** a Model of the current weights */
  model(): Promise<Model>;
  /** trains to options.steps (or until) in chunks; resolves to the Model it stopped at */
  run(options?: { until?: number }): Promise<Model>;
  /** stops run() after the chunk in progress */
  pause(): void;
  dispose(): void;
}

// ---- models (web/js/api/model.js) ----
// Shapes use L (layers), H (heads), T (tokens), V (vocabulary), C (model width).

/** The fields of a model's config.json. */
export interface ModelConfig {
  arch: string;
  dim: number;
  n_layers: number;
  n_heads: number;
  n_kv_heads: number;
  head_dim: number;
  hidden_dim: number;
  vocab_size: number;
  max_seq_len: number;
  norm_eps: number;
  rope_theta: number;
  rope_layout: 'adjacent' | 'half';
  qk_norm: boolean;
  mlp: 'swiglu' | 'gelu' | 'gelu_tanh';
  tied_embeddings: boolean;
  bos_id: number;
  eos_id: number;
  /** present when not 'rms' */
  norm?: 'rms' | 'layer';
  /** present when not 'rope' */
  positions?: 'rope' | 'learned';
  /** present when the rotary frequencies are scaled */
  rope_scaling?: { type: 'llama3'; factor: number; low_freq_factor: number; high_freq_factor: number; original_context: number };
  /** each present (true) when the model has those biases */
  qkv_bias?: boolean;
  out_bias?: boolean;
  mlp_bias?: boolean;
}

export type Bytes = Uint8Array | ArrayBuffer;
/** a file's bytes, or a Blob/File: GGUF and Hugging Face safetensors weights given as a Blob are read in parts,
 * never whole; a Blob for any other file is read whole */
export type FileBytes = Bytes | Blob;
export type ModelSource =
  | string
  | URL
  | FileBytes
  | { weights: FileBytes; config: string | ModelConfig | FileBytes; tokenizer: string | object | FileBytes }
  /** a sharded checkpoint: model.safetensors.index.json and the shards its weight_map names, by file name */
  | { index: string | object | FileBytes; shards: { name: string; bytes: FileBytes }[] | Record<string, FileBytes>; config: string | object | FileBytes; tokenizer: string | object | FileBytes }
  | { checkpoint: FileBytes; tokenizer: FileBytes };
/** What modelFormats() lists. */
export interface ModelFormats {
  /** in the order the core tries them */
  formats: {
    /** "window", "hf", "lookback", "gguf", "llama2c", ... */
    name: string;
    /** its files, in words */
    files: string;
    /** the weights file's extension (".safetensors", ".bin") */
    weights: string;
    /** whether config.json is one of its files */
    config: boolean;
    /** whether its weights are read in parts (a path in Node, or a Blob): GGUF and Hugging Face folders */
    streams: boolean;
    /** the tokenizer's file name beside the weights ("" when the weights file holds it) */
    tokenizer: string;
  }[];
  /** the weight storages loadModel's `weights` option takes */
  weights: WeightStorage[];
  /** every format's files in one sentence, for messages */
  supported: string;
}
export type WeightStorage = 'f32' | 'f16' | 'q8' | 'q4';
export interface LoadModelOptions {
  /** tokenizer.json (bundles) or the tokenizer .bin (llama2.c): location, text/object or bytes */
  tokenizer?: string | URL | FileBytes | object;
  /** config.json for safetensors bytes or a lone .safetensors file: location, text or object */
  config?: string | URL | ModelConfig | Blob;
  /**
   * how the weight matrices are held for the products: 'f32' (as read), 'f16' (IEEE half, half the bytes) or
   * 'q8' (blocks of 32 int8 with a scale each, about a quarter) or 'q4' (blocks of 32 4-bit weights with a scale
   * and a min each, about a fifth); chosen once at load. Default: 'f32', except for a GGUF, held as its matrices'
   * types suggest ('q4' when one is Q4_0 or Q4_K; else 'q8' for Q8_0, Q5_K, Q6_K; 'f16' for F16)
   */
  weights?: WeightStorage;
  /** called as the files arrive: bytes loaded so far and their total (null until every file's size is known,
   * or when it cannot be, e.g. a compressed response) */
  onProgress?: (progress: { loaded: number; total: number | null }) => void;
  /** stops the loading: the promise rejects with an AbortError (code LOOKBACK_ABORTED) */
  signal?: AbortSignal;
}

/** The `code` of the Errors the API throws on purpose (Error.cause holds the underlying error, if any). */
export type ErrorCode =
  | 'LOOKBACK_BAD_ARGUMENT' | 'LOOKBACK_NOT_FOUND' | 'LOOKBACK_FETCH_FAILED' | 'LOOKBACK_CORE_MISSING'
  | 'LOOKBACK_BAD_MODEL' | 'LOOKBACK_UNSUPPORTED_FORMAT' | 'LOOKBACK_ABORTED' | 'LOOKBACK_WORKER_FAILED'
  | 'LOOKBACK_DISPOSED' | 'LOOKBACK_TOO_LARGE';
export interface LookbackError extends Error { code: ErrorCode; cause?: unknown }
/** Token ids: an array, typed array or other array-like of integers in [0, V), as numbers or BigInts (a
 * BigInt64Array too); anything else is a TypeError (code LOOKBACK_BAD_ARGUMENT). */
export type TokenIds = ArrayLike<number> | ArrayLike<bigint>;
/** Text (encoded with the start mark first) or token ids. */
export type TextOrIds = string | TokenIds;

export interface ModelInfo {
  config: ModelConfig;
  /** also 'hf-byte-bpe', 'hf-sentencepiece-bpe' (tokenizer.json) and a GGUF's tokenizer */
  tokenizer: 'byte-bpe' | 'llama2c' | string;
  /** a Unicode normalization the API applies to text before encoding ('NFC'), '' for none */
  normalize?: string;
  parameters: number;
  /** the weight format chosen at load */
  weights: WeightStorage;
  /** the format the core read the files as (modelFormats().formats[i].name) */
  format: string;
}
export interface ForwardOptions {
  /** return every head's attention weights (default false) */
  attention?: boolean;
  /** rotary positions on (default true); off, the model sees no word order */
  positions?: boolean;
  /** return the residual stream before each layer and after the last (default false) */
  residuals?: boolean;
  /** a text longer than the context keeps the start mark and its last tokens instead of failing */
  window?: boolean;
}
export interface ForwardResult {
  /** the ids that were run (after the window, if any) */
  ids: number[];
  /** [T, V] */
  logits: Float32Array;
  /** [L, H, T, T], zero above the diagonal; null unless asked for */
  attention: Float32Array | null;
  /** [L+1, T, C]; null unless asked for */
  residuals: Float32Array | null;
  shape: { T: number; V: number; L: number; H: number; C: number };
  /** leading positions reused from the previous call's cache (results agree with a fresh pass to float32 rounding, about 1e-5, not to the bit) */
  reused: number;
}
export interface NextOptions {
  topK?: number;
  /** in [1e-30, 1e30] (default 1) */
  temperature?: number;
  positions?: boolean;
  /** a text longer than the context keeps the start mark and its last tokens (only the end of a text is encoded) */
  window?: boolean;
}
export interface NextToken { id: number; token: string; p: number }
export interface GenerateOptions {
  maxTokens?: number;
  /** 0 = always the most probable token; otherwise in [1e-30, 1e30] */
  temperature?: number;
  /** nucleus sampling mass in (0, 1] */
  topP?: number;
  /** the same seed gives the same text (natively and in WebAssembly) */
  seed?: number;
  /** slide past the end of the context instead of stopping */
  window?: boolean;
  positions?: boolean;
}
export interface GenerateResult {
  /** the new tokens */
  ids: number[];
  text: string;
  /** "end" (end mark), "max_tokens" or "context" (context full, no window) */
  stop: 'end' | 'max_tokens' | 'context';
}
export interface StreamOptions extends GenerateOptions {
  /** stops the generation between two tokens (AbortError, code LOOKBACK_ABORTED) */
  signal?: AbortSignal;
}
/** One streamed token: its id, its text, and the text of every token generated so far. */
export interface StreamedToken { id: number; token: string; text: string }

export interface HeadScoreOptions {
  /** random sequences repeated twice for the induction score (default 4; 0 = none) */
  repeats?: number;
  /** tokens in each random sequence (default 50, or what fits twice in the context) */
  repeatLength?: number;
  seed?: number;
  /** how many best heads to list per habit: an integer in [0, layers × heads] (default 3, or every head of a model with fewer) */
  best?: number;
}
export interface HeadHabit {
  /** [L][H] average weight (induction: on the token after the earlier copy of the current token) */
  byLayer: number[][];
  /** the same average for an even spread over the visible tokens */
  even: number;
  /** query positions averaged over */
  count: number;
  best: { layer: number; head: number; score: number }[];
}
/** Each measure has one name: these keys are the model card's `heads` keys in camelCase. */
export interface HeadScores {
  layers: number;
  heads: number;
  /** on position t-1 */
  previousToken: HeadHabit;
  /** on position 0, the start mark */
  startMark: HeadHabit;
  /** on positions t-4 and earlier */
  fourOrMoreBack: HeadHabit;
  induction: HeadHabit;
  /** on position 0 while reading a random sequence the first time (nothing earlier to copy), queries t >= 2 */
  startMarkOnRandomTokens: HeadHabit;
  /** on position t-1 while reading a random sequence the first time, queries t >= 2 */
  previousTokenOnRandomTokens: HeadHabit;
}

/** A token of a text: its id, display text (start mark "◆") and place [start, end) in the text its ids decode to
 * (UTF-16 units). */
export interface Token {
  id: number;
  text: string;
  start: number;
  end: number;
}

export interface Model {
  readonly info: ModelInfo;
  /** the most tokens one call can look at */
  readonly context: number;
  encode(text: string, options?: { bos?: boolean }): number[];
  decode(ids: TokenIds): string;
  /** each token's id, display text (start mark "◆") and place [start, end) in decode(ids) (UTF-16 units) */
  tokens(text: TextOrIds, options?: { bos?: boolean }): Token[];
  /** decode(ids) and tokens(ids) from one decoding */
  decodeTokens(text: TextOrIds, options?: { bos?: boolean }): { text: string; tokens: Token[] };
  /** the start mark and the last `size` - 1 ids (default: the context) */
  window(ids: TokenIds, size?: number): number[];
  forward(text: TextOrIds, options?: ForwardOptions): ForwardResult;
  /** the topK most probable next tokens at a temperature */
  next(text: TextOrIds, options?: NextOptions): NextToken[];
  generate(prompt: TextOrIds, options?: GenerateOptions): GenerateResult;
  /** the same tokens as generate(), one at a time (a macrotask between them); returns generate()'s result */
  stream(prompt: TextOrIds, options?: StreamOptions): AsyncGenerator<StreamedToken, GenerateResult, undefined>;
  /** every head's measured habits over the texts (each within the context) and random repeats */
  headScores(texts: TextOrIds[], options?: HeadScoreOptions): HeadScores;
  /**
   * frees the model now. Otherwise it is freed only after the JS engine has garbage-collected this object, which
   * it does when it needs JS memory: it cannot see the WebAssembly memory a model holds, and that memory never
   * shrinks (freed memory is reused by later models).
   */
  dispose(): void;
}

/** config.json of the chapter's window model (web/js/api/window-model.js). */
export interface WindowModelConfig {
  arch: 'window';
  /** how many tokens a prediction sees */
  window: number;
  embed_dim: number;
  hidden_dim: number;
  vocab_size: number;
  bos_id: number;
  eos_id: number;
}

/** The chapter's baseline: a bundle whose config.json says "arch": "window" (e.g. loadModel('window')). It sees
 * only the last `window` tokens: their embeddings side by side, one hidden layer, a classifier. */
export interface WindowModel {
  readonly info: { config: WindowModelConfig; tokenizer: 'byte-bpe' | 'llama2c'; parameters: number; format: 'window' };
  /** the window: the most tokens a prediction looks at */
  readonly context: number;
  encode(text: string, options?: { bos?: boolean }): number[];
  decode(ids: TokenIds): string;
  tokens(text: TextOrIds, options?: { bos?: boolean }): Token[];
  decodeTokens(text: TextOrIds, options?: { bos?: boolean }): { text: string; tokens: Token[] };
  /** the topK most probable next tokens after a text of any length (only the last `window` tokens count, and only
   * a text's end is encoded); temperature in [1e-30, 1e30] */
  next(text: TextOrIds, options?: { topK?: number; temperature?: number }): NextToken[];
  /** frees the model now; otherwise only after garbage collection, as Model.dispose says */
  dispose(): void;
}

/** Loads the WebAssembly core (once per realm) in Node, a page or a module worker. */
export function loadLookback(config?: LoadConfig): Promise<Lookback>;
