// The model-level rows of `npm run bench` against llama2.c's run.c compiled to WebAssembly (llama2c.mjs): per
// model and weight format, load time, decoding speed (128 greedy steps from position 0 with the KV cache,
// batch 1: lookback's generate, run.c's forward loop) and batched prefill of 128 and 256 prompt tokens
// (lookback: one next() call on the whole prompt, logits of the last position; run.c reads a prompt one
// forward per token, so its prefill rate is its decoding rate). Models: Sprout, stories260K (shared/models) and
// random-weight llama2.c checkpoints of the stories15M/42M/110M shapes, written at bench time by lookback's own
// writer (randomWeights with format 'llama2c'; never committed). Peers run interleaved round by round in this
// process, one thread each. onnxruntime-web runs each llama2.c checkpoint as an ONNX graph built in code
// (onnx-llama.mjs; prefill only: the graph has no cache). Also: greedy-token agreement of run.c, the graph and
// lookback on stories260K, and the
// accuracy cost of the compact formats (max |Δ logit| and greedy agreement over 256 steps against f32).
// Not a test: figures are reported against the targets, never asserted (a wrong peer throws).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadLookback } from '../../web/js/api/index.js';
import { buildRunC, loadRunC } from './llama2c.mjs';
import { betweenCoreSpeeds, describeCores } from './cores.mjs';
import { llamaModel, onnxInputs } from './onnx-llama.mjs';
import { pairedSpeedup } from './paired.mjs';
import { cpuMs, median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const STORIES = `${root}shared/models/stories260K/`;
const FORMATS = ['f32', 'f16', 'q8', 'q4'];
const STEPS = 128;
const PREFILL = [128, 256];
const PAIRS = 11;  // back-to-back pairs of one-thread and threaded prefill 128 (paired.mjs)

// llama2.c shapes (dim, hidden, layers, heads, vocab 32000); context as the released checkpoints.
export const SHAPES = {
  stories15M: { dim: 288, hidden_dim: 768, n_layers: 6, n_heads: 6, max_seq_len: 256 },
  stories42M: { dim: 512, hidden_dim: 1376, n_layers: 8, n_heads: 8, max_seq_len: 1024 },
  stories110M: { dim: 768, hidden_dim: 2048, n_layers: 12, n_heads: 12, max_seq_len: 1024 },
};

export function llamaConfig(s) {
  return {
    arch: 'llama2c', dim: s.dim, n_layers: s.n_layers, n_heads: s.n_heads, n_kv_heads: s.n_heads,
    head_dim: s.dim / s.n_heads, hidden_dim: s.hidden_dim, vocab_size: 32000, max_seq_len: s.max_seq_len,
    norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: false, mlp: 'swiglu',
    tied_embeddings: true, bos_id: 1, eos_id: 2,
  };
}

// A llama2.c tokenizer .bin of V pieces: <unk>, <s>, </s>, the 256 byte pieces, then made-up pieces.
function tokenizerBin(V) {
  const pieces = ['<unk>', '\n<s>\n', '\n</s>\n'];
  for (let b = 0; b < 256; b++) pieces.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  while (pieces.length < V) pieces.push(`p${pieces.length}`);
  const enc = pieces.map((p) => new TextEncoder().encode(p));
  const bytes = new Uint8Array(4 + enc.reduce((n, e) => n + 8 + e.length, 0));
  const dv = new DataView(bytes.buffer);
  dv.setUint32(0, Math.max(...enc.map((e) => e.length)), true);
  let at = 4;
  for (const e of enc) {
    dv.setFloat32(at, 0, true);
    dv.setInt32(at + 4, e.length, true);
    bytes.set(e, at + 8);
    at += 8 + e.length;
  }
  return bytes;
}

// The models: { name, source (for lookback), opts, checkpoint (llama2.c bytes or null), bos, context }.
async function models() {
  const out = [{ name: 'sprout', source: 'sprout', opts: {}, checkpoint: null }];
  const checkpoint = new Uint8Array(readFileSync(`${STORIES}stories260K.bin`));
  out.push({ name: 'stories260K', source: checkpoint, opts: { tokenizer: readFileSync(`${STORIES}tok512.bin`) }, checkpoint });
  for (const [name, shape] of Object.entries(SHAPES)) {
    out.push({ name: `${name} (random)`, make: async () => {
      // a separate module instance writes the file, so that its heap goes away with it
      const writer = await loadLookback({ wasmBinary: readFileSync(`${root}web/build/lookback-core.wasm`) });
      const checkpoint = writer.randomWeights(llamaConfig(shape), { seed: 1, format: 'llama2c' });
      return { source: checkpoint, opts: { tokenizer: tokenizerBin(32000) }, checkpoint };
    } });
  }
  return out;
}

// Prompt ids of length T (first ids alternate so that consecutive calls never share a prefix).
function prompts(V, bos, T) {
  let s = 777 + T;  // each length its own tokens: a longer prompt must not start with a shorter one (the cached prefix)
  const pick = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return 3 + (s >>> 8) % (V - 3);
  };
  const base = [bos, ...Array.from({ length: T - 1 }, pick)];
  return [base, [bos, base[1] === 3 ? 4 : 3, ...base.slice(2)]];
}

// The decoding prompt: the start mark and one ordinary token. (A random-weight model with tied embeddings
// predicts its input token again; after the start mark alone that is the start mark, which ends generate.)
const decodePrompt = (c) => [c.bos_id, Math.min(c.vocab_size - 1, 300)];

// Timed entries of lookback in the given formats: one per (backend, measure); run() returns the number of
// tokens it processed. Also the load time of each and the models (to dispose).
// `tag` names the module ('' for the one-thread module, ' threads' for the threaded one).
async function lookbackEntries(lb, m, formats, tag = '') {
  const entries = [], load = {}, handles = [];
  for (const weights of formats) {
    const t0 = performance.now();
    const model = await lb.loadModel(m.source, { ...m.opts, weights });
    const backend = `lookback ${weights}${tag}`;
    load[backend] = performance.now() - t0;
    handles.push(model);
    const c = model.info.config;
    entries.push({ backend, measure: 'decode', run: () => {
      const g = model.generate(decodePrompt(c), { maxTokens: STEPS, temperature: 0 });
      return Math.max(1, g.ids.length + (g.stop === 'end' ? 1 : 0));  // forward passes after the prompt's
    } });
    for (const T of PREFILL) {
      if (T > model.context) continue;
      const p = prompts(c.vocab_size, c.bos_id, T);
      let i = 0;
      entries.push({ backend, measure: `prefill ${T}`, run: () => {
        model.next(p[i++ % 2], { topK: 1 });
        return T;
      } });
    }
  }
  return { entries, load, handles };
}

// Rounds over the entries, the order rotating; adds each entry's per-token samples (wall, cpu) to `samples`
// under "backend|measure", each tagged with `phase` (the weight formats loaded meanwhile: a peer that runs in
// several phases is compared with each lookback format on the samples of that format's phase).
async function interleave(entries, rounds, samples, phase) {
  for (const e of entries) await e.run();  // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < entries.length; i++) {
      const e = entries[(i + r) % entries.length];
      const c0 = cpuMs(), t0 = performance.now();
      const n = await e.run();
      const key = `${e.backend}|${e.measure}`;
      samples[key] ??= { backend: e.backend, measure: e.measure, wall: [], cpu: [], phase: [] };
      samples[key].wall.push((performance.now() - t0) / n);
      samples[key].cpu.push((cpuMs() - c0) / n);
      samples[key].phase.push(phase);
    }
  }
}

// Accuracy of f16, q8 and q4 against f32: max |Δ logit| over a 256-token greedy text of the f32 model
// (teacher-forced), the share of its positions where the argmax agrees, and the first step at which greedy
// generation of 256 tokens departs from f32's.
function accuracy(handles) {
  const [f32, ...others] = handles;
  const c = f32.info.config;
  const steps = Math.min(256, f32.context - 1);
  const gen = (m) => Array.from(m.generate([c.bos_id], { maxTokens: steps, temperature: 0 }).ids);
  const ref = gen(f32);
  const text = [c.bos_id, ...ref].slice(0, f32.context);
  const logits = (m) => m.forward(text).logits;
  const L = logits(f32), V = c.vocab_size, T = text.length;
  const argmax = (x, t) => {
    let b = 0;
    for (let v = 1; v < V; v++) if (x[t * V + v] > x[t * V + b]) b = v;
    return b;
  };
  const out = {};
  for (const m of others) {
    const X = logits(m);
    let maxDiff = 0, agree = 0;
    for (let i = 0; i < L.length; i++) maxDiff = Math.max(maxDiff, Math.abs(X[i] - L[i]));
    for (let t = 0; t < T; t++) agree += argmax(X, t) === argmax(L, t);
    const g = gen(m);
    let first = 0;
    while (first < Math.min(g.length, ref.length) && g[first] === ref[first]) first++;
    out[m.info.weights] = { max_abs_logit_diff: maxDiff, argmax_agreement: agree / T, positions: T,
      greedy_same_steps: first, greedy_steps: ref.length };
  }
  return out;
}

// onnxruntime-web (one thread) on the checkpoint as an ONNX graph built in code (onnx-llama.mjs).
async function ortLlama(checkpoint) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  const { bytes, config } = llamaModel(checkpoint);
  return { ort, config, session: await ort.InferenceSession.create(bytes) };
}

// The graph against lookback f32: max |Δ logit| at the last position of a 64-token prompt, and (when `greedy`)
// how many of 128 greedy steps agree (the graph reruns the whole text for each token: it has no cache).
async function ortCheck({ ort, session, config }, model, greedy) {
  const ids = prompts(config.V, 1, 64)[0];
  const out = (await session.run(onnxInputs(ort, ids, config))).logits.data;
  const f = model.forward(ids).logits.subarray(63 * config.V, 64 * config.V);
  let diff = 0, range = 0;
  for (let v = 0; v < config.V; v++) diff = Math.max(diff, Math.abs(out[v] - f[v])), range = Math.max(range, Math.abs(f[v]));
  const r = { max_abs_logit_diff: diff, logit_range: range };
  if (greedy) {
    const text = [1];
    for (let s = 0; s < STEPS; s++) {
      const l = (await session.run(onnxInputs(ort, text, config))).logits.data;
      let b = 0;
      for (let v = 1; v < config.V; v++) if (l[v] > l[b]) b = v;
      text.push(b);
    }
    const g = Array.from(model.generate([1], { maxTokens: STEPS, temperature: 0 }).ids);
    let same = 0;
    while (same < g.length && g[same] === text[same + 1]) same++;
    Object.assign(r, { greedy_same: same, greedy_steps: g.length });
  }
  return r;
}

// Models above this many parameters load one weight format at a time (all at once would take about 2 GB of the
// module's memory at the 110M shape); run.c then runs in the rounds of each.
const ONE_FORMAT_AT_A_TIME = 50e6;

// The threaded module runs these formats beside the one-thread module's four (its speed-up on this machine).
const THREADED_FORMATS = ['f32', 'q8'];

async function benchModel(lb, lbThreads, m, runcPath, rounds) {
  const load = {}, samples = {};
  let runc = null;
  const peer = [];
  if (m.checkpoint && runcPath) {
    const t0 = performance.now();
    runc = await loadRunC(runcPath, m.checkpoint);
    load['run.c'] = performance.now() - t0;
    // from position 0; run.c reads a prompt one forward per token, as it decodes, so its prefill rate is its
    // decoding rate (and is not timed separately)
    peer.push({ backend: 'run.c', measure: 'decode', run: () => (runc.greedy(1, STEPS), STEPS) });
  }
  let ortSession = null, ortAgreement = null;
  if (m.checkpoint) {
    try {
      const t0 = performance.now();
      ortSession = await ortLlama(m.checkpoint);
      load['ort-web'] = performance.now() - t0;
    } catch (e) {
      ortSession = null;
      load['ort-web (failed)'] = 0;
      console.log(`bench: ${m.name}: the onnxruntime-web graph did not run (${e.message})`);
    }
  }
  if (ortSession) {
    for (const T of PREFILL) {
      if (T > ortSession.config.seqLen) continue;
      const p = prompts(ortSession.config.V, 1, T).map((ids) => onnxInputs(ortSession.ort, ids, ortSession.config));
      let i = 0;
      peer.push({ backend: 'ort-web', measure: `prefill ${T}`, run: async () => {
        await ortSession.session.run(p[i++ % 2]);
        return T;
      } });
    }
  }
  const big = m.checkpoint && m.checkpoint.length / 4 > ONE_FORMAT_AT_A_TIME;
  let info = null, agreement = null, accuracyRows = null, threadsPaired = null;
  for (const formats of big ? FORMATS.map((f) => [f]) : [FORMATS]) {
    const { entries, load: l, handles } = await lookbackEntries(lb, m, formats);
    const threaded = await lookbackEntries(lbThreads, m, formats.filter((f) => THREADED_FORMATS.includes(f)), ' threads');
    entries.push(...threaded.entries);
    Object.assign(load, l, threaded.load);
    info ??= handles[0].info;
    if (runc && m.name === 'stories260K' && !agreement) {
      const r = Array.from(runc.greedy(1, STEPS));
      const g = Array.from(handles[0].generate([1], { maxTokens: STEPS, temperature: 0 }).ids);
      let same = 0;
      while (same < g.length && g[same] === r[same]) same++;
      agreement = { same, lookback_steps: g.length, stop_reason: g.length < STEPS ? 'end mark' : 'max tokens', runc: r.slice(0, 24), lookback: g.slice(0, 24) };
    }
    if ((m.name === 'sprout' || m.name === 'stories260K') && handles.length === FORMATS.length) accuracyRows = accuracy(handles);
    if (ortSession && !ortAgreement) ortAgreement = await ortCheck(ortSession, handles[0], m.name === 'stories260K');
    await interleave([...peer, ...entries], rounds, samples, formats.join(','));
    const one = entries.find((e) => e.backend === 'lookback f32' && e.measure === 'prefill 128');
    const many = entries.find((e) => e.backend === 'lookback f32 threads' && e.measure === 'prefill 128');
    if (one && many) threadsPaired = await betweenCoreSpeeds(() => pairedSpeedup(one, many, { pairs: PAIRS }));
    for (const h of [...handles, ...threaded.handles]) h.dispose();
  }
  runc?.dispose();
  await ortSession?.session.release();
  const rates = (wall, cpu) => ({ ms_per_token: median(wall), tok_s: 1000 / median(wall), cpu_tok_s: 1000 / median(cpu) });
  const cells = Object.values(samples).map((x) => {
    const phases = [...new Set(x.phase)];
    const by_phase = Object.fromEntries(phases.map((ph) => {
      const at = x.phase.flatMap((p, i) => (p === ph ? [i] : []));
      return [ph, rates(at.map((i) => x.wall[i]), at.map((i) => x.cpu[i]))];
    }));
    return { backend: x.backend, measure: x.measure, ...rates(x.wall, x.cpu), phase: phases.length === 1 ? phases[0] : null,
      by_phase, samples_ms_per_token: x.wall, samples_cpu_ms_per_token: x.cpu, samples_phase: x.phase };
  });
  const c = info.config;
  return { name: m.name, config: `${c.n_layers} layers x ${c.n_heads} heads, width ${c.dim}, hidden ${c.hidden_dim}, vocab ${c.vocab_size}`,
    parameters: info.parameters, load_ms: load, one_format_at_a_time: big, cells, agreement, ort: ortAgreement, accuracy: accuracyRows,
    threads_paired: threadsPaired };
}

export async function benchDecode({ rounds = 3 } = {}) {
  const lb = await loadLookback({ threads: 1 }), lbThreads = await loadLookback({ threads: 'auto' });
  const built = buildRunC();
  if (!built.path) console.log(`bench: run.c peer skipped: ${built.reason}`);
  const rows = [];
  for (const m of await models()) {
    Object.assign(m, m.make ? await m.make() : {});
    const row = await benchModel(lb, lbThreads, m, built.path, rounds);
    delete m.source, delete m.checkpoint;
    rows.push(row);
    console.log(`bench: model ${m.name}: ${row.cells.filter((x) => x.measure === 'decode').map((x) => `${x.backend} ${x.tok_s.toFixed(0)} tok/s`).join(', ')}`);
  }
  return { rows, targets: decodeTargets(rows) };
}

function cell(row, backend, measure) {
  return row.cells?.find((c) => c.backend === backend && c.measure === measure);
}

// The peer's cell to set beside lookback cell `a`: the peer's samples of a's phase (taken in the same rounds)
// when it ran in several, else all of them.
function peerCell(row, peer, measure, a) {
  const b = cell(row, peer, measure);
  return b && a?.phase && b.by_phase[a.phase] ? { ...b, ...b.by_phase[a.phase] } : b;
}

function decodeTargets(rows) {
  const out = [];
  const ratio = (row, backend, measure, peerMeasure = measure, key = 'tok_s') => {
    const a = cell(row, backend, measure), b = peerCell(row, 'run.c', peerMeasure, a);
    return a && b ? a[key] / b[key] : null;
  };
  for (const row of rows) {
    if (!cell(row, 'run.c', 'decode')) continue;
    const big = /stories(15|42|110)M/.test(row.name);
    const add = (name, args, target) => {
      const value = ratio(row, ...args), cpu = ratio(row, ...args.slice(0, 2), args[2] ?? args[1], 'cpu_tok_s');
      if (value !== null) out.push({ name, value, cpu_value: cpu, target, unit: 'x', met: value >= target });
    };
    add(`decode ${row.name}, f32 vs run.c-wasm`, ['lookback f32', 'decode'], 1.0);
    add(`decode ${row.name}, f32 on every core vs run.c-wasm`, ['lookback f32 threads', 'decode'], 1.0);
    if (big) {
      add(`decode ${row.name}, q8 vs run.c-wasm`, ['lookback q8', 'decode'], 1.8);
      add(`decode ${row.name}, f16 vs run.c-wasm`, ['lookback f16', 'decode'], 1.8);
      const q4 = cell(row, 'lookback q4', 'decode'), q8 = cell(row, 'lookback q8', 'decode');
      if (q4 && q8) out.push({ name: `decode ${row.name}, q4 vs own q8`, value: q4.tok_s / q8.tok_s, cpu_value: q4.cpu_tok_s / q8.cpu_tok_s, target: 1.6, unit: 'x', met: q4.tok_s / q8.tok_s >= 1.6 });
      add(`prefill 128 ${row.name}, f32 vs run.c-wasm's 128 steps`, ['lookback f32', 'prefill 128', 'decode'], 4);
      const a = cell(row, 'lookback f32', 'prefill 128'), o = peerCell(row, 'ort-web', 'prefill 128', a);
      if (a && o) out.push({ name: `prefill 128 ${row.name}, f32 vs onnxruntime-web on the same graph`, value: a.tok_s / o.tok_s, cpu_value: a.cpu_tok_s / o.cpu_tok_s, target: 1.5, unit: 'x', met: a.tok_s / o.tok_s >= 1.5 });
    }
  }
  // the threaded module against the one-thread module: prefill 128 at the 15M-110M shapes (wall time), the median
  // of back-to-back pairs' ratios (paired.mjs), the ratio of the rounds' medians beside it
  for (const row of rows) {
    if (!/stories(15|42|110)M/.test(row.name)) continue;
    const a = cell(row, 'lookback f32 threads', 'prefill 128'), b = cell(row, 'lookback f32', 'prefill 128'), p = row.threads_paired;
    if (a && b && p) {
      const medians = a.tok_s / b.tok_s;
      out.push({ name: `prefill 128 ${row.name}, f32 on every core vs one thread (median of ${p.pairs} back-to-back pairs; ratio of the rounds' medians ${medians.toFixed(2)}x; ${describeCores(p.cores.before, p.cores.after)})`,
        value: p.speedup, cpu_value: p.cpu_speedup, target: 1.7, unit: 'x', met: p.speedup >= 1.7, ratio_of_medians: medians });
    }
  }
  return out;
}

export function printDecode({ rows }) {
  console.log(`\nmodel vs llama2.c run.c-wasm (one thread; tok/s = tokens per second from the median ms per token over rounds;` +
    `\ndecode = ${STEPS} greedy steps (run.c from position 0, lookback after a 2-token prompt); prefill T = one call on T prompt tokens (run.c: one forward per token, its decode rate); load = bytes in memory to ready)`);
  console.log('  model                 backend                load ms   decode tok/s (cpu)   prefill 128 tok/s   prefill 256 tok/s   decode vs run.c (cpu)');
  for (const r of rows) {
    for (const backend of [...new Set(r.cells.map((c) => c.backend))]) {
      const f = (m) => cell(r, backend, m)?.tok_s.toFixed(0) ?? '-';
      const d = cell(r, backend, 'decode');  // none for the graph peer (no cache: it only prefills)
      const peer = peerCell(r, 'run.c', 'decode', d);
      const dec = d ? `${f('decode')} (${d.cpu_tok_s.toFixed(0)})` : '-';
      console.log(`  ${r.name.padEnd(21)} ${backend.padEnd(21)} ${(r.load_ms[backend] ?? 0).toFixed(0).padStart(8)} ${dec.padStart(20)} ` +
        `${f('prefill 128').padStart(19)} ${f('prefill 256').padStart(19)} ${peer && d ? `${(d.tok_s / peer.tok_s).toFixed(2)}x (${(d.cpu_tok_s / peer.cpu_tok_s).toFixed(2)}x)`.padStart(23) : ''}`);
    }
    if (r.ort) console.log(`  ${r.name}: onnxruntime-web graph vs lookback f32: max |Δ logit| ${r.ort.max_abs_logit_diff.toExponential(2)} (logits up to ${r.ort.logit_range.toFixed(1)})` +
      (r.ort.greedy_steps ? `; greedy tokens agree on the first ${r.ort.greedy_same} of ${r.ort.greedy_steps}` : ''));
    if (r.threads_paired) console.log(`  ${r.name}: prefill 128, lookback f32 threads vs lookback f32 in ${r.threads_paired.pairs} back-to-back pairs: median ratio ${r.threads_paired.speedup.toFixed(2)}x (CPU ${r.threads_paired.cpu_speedup.toFixed(2)}x)\n    ${describeCores(r.threads_paired.cores.before, r.threads_paired.cores.after)}`);
    if (r.agreement) console.log(`  ${r.name}: greedy tokens of run.c and lookback f32 agree on the first ${r.agreement.same} of ${r.agreement.lookback_steps} (lookback stopped: ${r.agreement.stop_reason})`);
    for (const [f, a] of Object.entries(r.accuracy ?? {})) {
      console.log(`  ${r.name} ${f} vs f32: max |Δ logit| ${a.max_abs_logit_diff.toExponential(2)}, argmax agreement ${(100 * a.argmax_agreement).toFixed(1)}% of ${a.positions} positions, greedy identical for ${a.greedy_same_steps} of ${a.greedy_steps} steps`);
    }
  }
}
