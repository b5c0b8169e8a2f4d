// Type declarations of web/js/worker/remote-model.js (package export "lookback/remote-model"): a model that
// lives in the worker, with the Model's methods returning promises.
import type {
  ForwardOptions, ForwardResult, GenerateOptions, GenerateResult, HeadScoreOptions, HeadScores, LoadModelOptions,
  ModelInfo, ModelSource, NextOptions, NextToken, StreamedToken, TextOrIds, Token, TokenIds,
} from '../api/index.js';
import type { ComputeClient } from './client.js';

export interface RemoteGenerateOptions extends GenerateOptions {
  /** with onToken or signal, the generation streams: onToken gets each token as it arrives */
  onToken?: (token: StreamedToken) => void;
  /** stops the generation in the worker (AbortError, code LOOKBACK_ABORTED) */
  signal?: AbortSignal;
}

export interface RemoteModel {
  readonly info: ModelInfo;
  readonly context: number;
  encode(text: string, options?: { bos?: boolean }): Promise<number[]>;
  decode(ids: TokenIds): Promise<string>;
  tokens(text: TextOrIds, options?: { bos?: boolean }): Promise<Token[]>;
  decodeTokens(text: TextOrIds, options?: { bos?: boolean }): Promise<{ text: string; tokens: Token[] }>;
  window(ids: TokenIds, size?: number): Promise<number[]>;
  forward(text: TextOrIds, options?: ForwardOptions): Promise<ForwardResult>;
  next(text: TextOrIds, options?: NextOptions): Promise<NextToken[]>;
  generate(prompt: TextOrIds, options?: RemoteGenerateOptions): Promise<GenerateResult>;
  headScores(texts: TextOrIds[], options?: HeadScoreOptions): Promise<HeadScores>;
  /** the same model, whose calls supersede older queued calls made with the same key */
  keyed(key: string): RemoteModel;
  dispose(): Promise<null>;
}

export function loadRemoteModel(client: ComputeClient, source: ModelSource, options?: LoadModelOptions): Promise<RemoteModel>;
