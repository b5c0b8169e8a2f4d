// The lookback side of the wllama comparison's page (wllama.bench.mjs): a module Worker running lookback's public
// API on the threads asked for, as wllama runs llama.cpp in its own Worker, so both pay one message per call.
// Answers [op, arg] with { ok } or { error }. Not a widget worker (web/js/worker/) and not a test.
import { loadLookback } from '../js/api/index.js';

let lb = null, model = null;

// A GGUF the bench serves in parts (?part=i; x-parts says how many), as one Blob.
export async function fetchParts(url) {
  const first = await fetch(`${url}?part=0`);
  const parts = [await first.blob()];
  for (let i = 1; i < Number(first.headers.get('x-parts')); i++) parts.push(await (await fetch(`${url}?part=${i}`)).blob());
  return new Blob(parts);
}

const OPS = {
  // threads: 1 (the one-thread module) or more; url: a GGUF file of the page's origin
  async load({ threads, url }) {
    lb = await loadLookback({ threads, baseUrl: new URL('/', location.href) });
    const bytes = new Uint8Array(await (await fetchParts(url)).arrayBuffer());
    model = await lb.loadModel(bytes);
    return { threads: lb.threads(), weights: model.info.weights, parameters: model.info.parameters, context: model.context };
  },
  // greedy steps after the prompt: the ids and how many forward passes ran after the prompt's
  decode({ prompt, steps }) {
    const g = model.generate(prompt, { maxTokens: steps, temperature: 0 });
    return { ids: Array.from(g.ids), passes: Math.max(1, g.ids.length + (g.stop === 'end' ? 1 : 0)) };
  },
  // one call on the whole prompt, the last position's top tokens
  prefill({ ids, top = 1 }) {
    return model.next(ids, { topK: top }).map((t) => ({ id: t.id, p: t.p }));
  },
  dispose() {
    model?.dispose();
    model = null;
  },
};

// (the page imports fetchParts from here too; only the Worker answers messages)
if (typeof WorkerGlobalScope !== 'undefined') {
  onmessage = async ({ data: [op, arg] }) => {
    try {
      postMessage({ ok: await OPS[op](arg) });
    } catch (e) {
      postMessage({ error: String(e?.stack ?? e) });
    }
  };
}
