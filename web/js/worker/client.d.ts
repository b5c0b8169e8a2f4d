// Type declarations of web/js/worker/client.js (package export "lookback/client").

export interface RequestOptions {
  /** a newer request with the same key makes an older queued one reject with an AbortError */
  key?: string;
  /** what the operation reports on the way (loadModel: { loaded, total } bytes; a streamed generate: tokens) */
  onProgress?: (value: any) => void;
  /** cancels the request in the worker (AbortError, code LOOKBACK_ABORTED) */
  signal?: AbortSignal;
}

/** The page's side of the module worker; the worker starts on the first request. */
export class ComputeClient {
  constructor(workerUrl?: string | URL);
  /** starts the worker now (otherwise the first request does) */
  start(): void;
  request<R = unknown>(op: string, args?: unknown[], options?: RequestOptions): Promise<R>;
  terminate(): void;
}
