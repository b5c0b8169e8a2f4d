#!/usr/bin/env node
// The lookback command line: a model's tokens, next-token probabilities, generated text and attention weights,
// from a terminal, through the same JS API the chapter uses; and the chapter's figures of them (SVG, or PNG through
// the resvg rasteriser with the DejaVu fonts, loaded only when PNG is asked for). Bad input exits non-zero with
// one line on stderr. Not here: training or evaluation (the native tools lookback-train, lookback-eval).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadLookback } from '../api/node.js';
import * as figures from '../figures/index.js';
import { AssetsUsageError, assetsCommand } from './assets.mjs';

// The options every command takes; the formats and weight storages are the core's lists (lb.modelFormats()).
function modelHelp(lb) {
  const { formats, weights } = lb.modelFormats();
  const files = [...new Set(formats.map((f) => f.weights))].join(' or ');
  const wrap = (text) => text.replace(/(.{1,90})(?: |$)/g, '\n                   $1').trimStart();
  return `  --model M        ${wrap(`a bundled model name (default: sprout), a bundle folder (model.safetensors, config.json, `
    + `tokenizer.json), or a weights file (${files}) with its tokenizer beside it`)}
  --tokenizer T    the tokenizer file, when it is not beside the weights
  --weights W      how the weights are stored for the products: ${weights.join(', ')} (default ${weights[0]}; a GGUF: as its tensor types suggest)
  --window         keep the start mark and the last tokens of a text longer than the context
  -h, --help       this help
${wrap(lb.modelFormats().supported.replace(/^lookback/, 'Formats: lookback'))}`;
}

const FIGURE_OPTIONS = { svg: { type: 'string' }, png: { type: 'string' }, scale: { type: 'string', default: '2' } };
const FIGURE_HELP = '  --svg FILE       write the figure as SVG (- for stdout)\n  --png FILE       write the figure as PNG (- for stdout)\n'
  + '  --scale S        the PNG\'s pixels per SVG unit (default 2)';

const COMMANDS = {
  tokens: {
    summary: 'the tokens of a text: id, text and place in the text (start, end) of each',
    usage: 'lookback tokens "text" [--json]',
    options: { json: { type: 'boolean' } },
    help: '  --json           print [{ id, text, start, end }] as JSON (start, end: where the token sits in the decoded text)',
    run: (m, text, o) => {
      const tokens = m.tokens(text);
      if (o.json) return print(JSON.stringify(tokens));
      for (const [i, t] of tokens.entries()) print(`${String(i).padStart(4)} ${String(t.id).padStart(6)}  ${JSON.stringify(t.text)}`);
    },
  },
  next: {
    summary: 'the most probable next tokens after a text',
    usage: 'lookback next "text" [--top K] [--temperature T] [--json]',
    options: { top: { type: 'string', default: '10' }, temperature: { type: 'string', default: '1' }, json: { type: 'boolean' } },
    help: '  --top K          how many tokens (default 10)\n  --temperature T  softmax temperature, > 0 (default 1)\n  --json           print [{ token, id, p }] as JSON',
    run: (m, text, o) => {
      // (--window only when given: a window model's next() always reads only its window and takes no such option)
      const top = m.next(text, { topK: int('--top', o.top, 1), temperature: num('--temperature', o.temperature), ...(o.window && { window: true }) });
      if (o.json) return print(JSON.stringify(top));
      for (const t of top) print(`${(100 * t.p).toFixed(2).padStart(6)}%  ${String(t.id).padStart(6)}  ${JSON.stringify(t.token)}`);
    },
  },
  generate: {
    summary: 'continue a text',
    needs: 'generate',
    usage: 'lookback generate "prompt" [--max-tokens N] [--temperature T] [--top-p P] [--seed S] [--json]',
    options: {
      'max-tokens': { type: 'string', default: '64' }, temperature: { type: 'string', default: '0.8' },
      'top-p': { type: 'string', default: '0.95' }, seed: { type: 'string', default: '1' }, json: { type: 'boolean' },
    },
    help: '  --max-tokens N   at most N new tokens (default 64)\n  --temperature T  0 = always the most probable token (default 0.8)\n'
      + '  --top-p P        sample only from the most probable tokens holding mass P (default 0.95)\n'
      + '  --seed S         the same seed gives the same text (default 1)\n  --json           print { ids, text, stop } as JSON',
    run: (m, text, o) => {
      const g = m.generate(text, {
        maxTokens: int('--max-tokens', o['max-tokens'], 0), temperature: num('--temperature', o.temperature),
        topP: num('--top-p', o['top-p']), seed: int('--seed', o.seed, 0), window: !!o.window,
      });
      if (o.json) return print(JSON.stringify(g));
      print(text + g.text);
    },
  },
  attend: {
    summary: 'attention weights: one layer and head as a table, or everything as JSON',
    needs: 'forward',
    usage: 'lookback attend "text" [--layer L] [--head H] [--no-positions] [--json] [--query Q] [--svg FILE] [--png FILE] [--scale S]',
    options: { layer: { type: 'string', default: '1' }, head: { type: 'string', default: '1' }, json: { type: 'boolean' }, 'no-positions': { type: 'boolean' },
      query: { type: 'string' }, ...FIGURE_OPTIONS },
    help: '  --layer L        layer, counting from 1 (default 1)\n  --head H         head in that layer, counting from 1 (default 1); with a figure, "all": every head of the layer\n'
      + '  --no-positions   run without rotary positions (the model sees no word order)\n'
      + '  --json           print { tokens, shape, attention[L][H][T][T] } as JSON (all layers and heads; array indexes from 0)\n'
      + '  --query Q        with a figure: the strip of where token Q looks (Q as "lookback tokens" numbers them, from 0)\n'
      + `${FIGURE_HELP}\n                   (the head's weights as a heat map; with --query, the tokens shaded by one query's weights)`,
    run: (m, text, o) => {
      const r = m.forward(text, { attention: true, positions: !o['no-positions'], window: !!o.window });
      const { T, L, H } = r.shape;
      const tokens = m.tokens(r.ids).map((t) => t.text);
      const w = r.attention;  // [L, H, T, T]
      if (o.json) {
        const nested = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => Array.from({ length: T }, (_, t) => Array.from(w.subarray(((l * H + h) * T + t) * T, ((l * H + h) * T + t + 1) * T)))));
        return print(JSON.stringify({ tokens, shape: { L, H, T }, attention: nested }));
      }
      const l = int('--layer', o.layer, 1, L) - 1;   // l, h: indexes from 0
      if (wantsFigure(o)) {
        const all = o.head === 'all';
        const h = all ? -1 : int('--head', o.head, 1, H) - 1;
        const input = { tokens, attention: w, shape: r.shape, layer: l };
        if (o.query !== undefined) return writeFigure(figures.strip({ ...input, head: h, query: int('--query', o.query, 0, T - 1) }), o);
        return writeFigure(all ? figures.layerHeads(input) : figures.headMap({ ...input, head: h }), o);
      }
      if (o.query !== undefined) throw new UsageError('--query draws a figure: give --svg FILE or --png FILE');
      const h = int('--head', o.head, 1, H) - 1;
      const label = (s) => JSON.stringify(s).slice(1, -1).slice(0, 10).padEnd(10);
      print(`head ${l + 1}.${h + 1} (layer ${l + 1}, head ${h + 1}, counting from 1): row = the token looking, column = the token looked at`);
      print(`${''.padEnd(11)}${tokens.map((s) => label(s).slice(0, 6).padStart(7)).join('')}`);
      for (let t = 0; t < T; t++) {
        const row = w.subarray(((l * H + h) * T + t) * T, ((l * H + h) * T + t + 1) * T);
        print(`${label(tokens[t])} ${Array.from(row, (x, s) => (s > t ? '      ·' : x.toFixed(3).padStart(7))).join('')}`);
      }
    },
  },
  heads: {
    summary: 'every head\'s habits (previous token, start mark, induction) measured now, as a table; or every head\'s attention as a figure',
    needs: 'forward',
    usage: 'lookback heads "text" [--json | --csv | --svg FILE | --png FILE] [--habits] [--sort KEY] [--scale S]',
    options: { habits: { type: 'boolean' }, sort: { type: 'string', default: 'layer' }, json: { type: 'boolean' }, csv: { type: 'boolean' },
      ...FIGURE_OPTIONS },
    help: '  (no option)      print the table of every head\'s habits, measured now on the text and on random tokens repeated\n'
      + '                   twice (the model\'s headScores): weight on the previous token, on the start mark, induction score\n'
      + '  --json           print the table as JSON (layer_index and head_index count from 0; "head" is layer.head from 1)\n'
      + '  --csv            print the table as CSV\n'
      + '  --habits         draw the card\'s measured habits instead: one heat map per habit, layers × heads\n'
      + '  --sort KEY       order the heads by layer (default) or by a habit: previous_token, start_mark, induction\n'
      + '                   (the figure labels heads with the model card\'s habits, or with the measured ones when there is no card)\n'
      + `${FIGURE_HELP}`,
    run: (m, text, o, { card }) => {
      const KEYS = ['previous_token', 'start_mark', 'induction'];
      if (o.sort !== 'layer' && !KEYS.includes(o.sort)) throw new UsageError(`--sort must be layer, ${KEYS.join(', ')} (got ${o.sort})`);
      if (o.habits) {
        if (!wantsFigure(o)) throw new UsageError('--habits draws a figure: give --svg FILE or --png FILE');
        const habits = figures.cardHabits(card);
        if (habits.length === 0) throw new UsageError('--habits needs a model card (card.json beside the model) with measured habits');
        return writeFigure(figures.habitsMap({ habits }), o);
      }
      const table = !wantsFigure(o) || !card?.heads ? headTable(m, text) : null;
      const score = table ? (key, l, h) => table.scores[key][l][h] : (key, l, h) => card?.heads?.[key]?.by_layer?.[l]?.[h] ?? null;
      const { L, H } = table ?? { L: m.info.config.n_layers, H: m.info.config.n_heads };
      const order = Array.from({ length: L * H }, (_, i) => ({ layer: Math.floor(i / H), head: i % H }));
      if (o.sort !== 'layer') order.sort((a, b) => (score(o.sort, b.layer, b.head) ?? -1) - (score(o.sort, a.layer, a.head) ?? -1));
      if (!wantsFigure(o)) return printHeadTable(table, order, o);
      const r = m.forward(text, { attention: true, window: !!o.window });
      return writeFigure(figures.headsGrid({ tokens: m.tokens(r.ids).map((t) => t.text), attention: r.attention, shape: r.shape, order,
        habits: (l, h) => Object.fromEntries(KEYS.map((k) => [k, score(k, l, h)])) }), o);
    },
  },
  flow: {
    summary: 'one attention layer drawn step by step for a short text (x -> Q, K, V -> scores -> mask -> weights -> output)',
    usage: 'lookback flow "the cat sat down" (--svg FILE | --png FILE | --json) [--heads H] [--dim C] [--seed S] [--no-mask]',
    model: false,
    options: { heads: { type: 'string', default: '2' }, dim: { type: 'string', default: '4' }, seed: { type: 'string', default: '1' },
      'no-mask': { type: 'boolean' }, json: { type: 'boolean' }, ...FIGURE_OPTIONS },
    help: '  --heads H        heads (default 2)\n  --dim C          numbers per token, a multiple of H (default 4)\n'
      + '  --seed S         the weights\' seed (default 1); each word\'s numbers come from the word itself\n'
      + '  --no-mask        let every token see every other (no causal mask)\n  --json           print every matrix as JSON\n'
      + `${FIGURE_HELP}\n(no model: small made-up numbers, one decimal each, that the core computes with; at most 8 words)`,
    run: async (lb, text, o) => {
      const H = int('--heads', o.heads, 1, 8), C = int('--dim', o.dim, 1, 16);
      if (C % H !== 0) throw new UsageError(`--dim (${C}) must be a multiple of --heads (${H})`);
      const inputs = { ...figures.flowInputs(text, { C, heads: H, seed: int('--seed', o.seed, 0) }), causal: !o['no-mask'] };
      const f = await figures.computeFlow(lb, inputs);
      if (o.json) print(JSON.stringify(f));
      if (wantsFigure(o)) writeFigure(figures.flowFigure(f), o);
      else if (!o.json) throw new UsageError('flow draws a figure: give --svg FILE, --png FILE or --json');
    },
  },
};

const wantsFigure = (o) => o.svg !== undefined || o.png !== undefined;

// Every head's habits measured now (the model's headScores over the text and its random repeated sequences, the
// API's defaults): { L, H, scores: { previous_token, start_mark, induction: [L][H] }, even: { same keys } }.
function headTable(m, text) {
  const r = m.headScores([text]);
  const habits = { previous_token: r.previousToken, start_mark: r.startMark, induction: r.induction };
  return { L: r.layers, H: r.heads, scores: Object.fromEntries(Object.entries(habits).map(([k, v]) => [k, v.byLayer])),
    even: Object.fromEntries(Object.entries(habits).map(([k, v]) => [k, v.even])) };
}

function printHeadTable(t, order, o) {
  const KEYS = Object.keys(t.scores);
  const rows = order.map(({ layer, head }) => ({ head: `${layer + 1}.${head + 1}`, layer_index: layer, head_index: head,
    ...Object.fromEntries(KEYS.map((k) => [k, t.scores[k][layer][head]])) }));
  if (o.json) return print(JSON.stringify({ layers: t.L, heads: t.H, even: t.even, rows }));
  if (o.csv) return print([['head', 'layer_index', 'head_index', ...KEYS], ...rows.map((r) => [r.head, r.layer_index, r.head_index, ...KEYS.map((k) => r[k])])]
    .map((r) => r.join(',')).join('\n'));
  print(`${t.L} layers × ${t.H} heads, named layer.head counting from 1; measured now on the text and on random tokens repeated twice`);
  print(`head     ${KEYS.map((k) => k.replace(/_/g, ' ').padStart(15)).join('')}`);
  for (const r of rows) print(`${r.head.padEnd(8)} ${KEYS.map((k) => r[k].toFixed(3).padStart(15)).join('')}`);
  print(`even     ${KEYS.map((k) => t.even[k].toFixed(3).padStart(15)).join('')}`);
}

// The fonts the PNG is drawn with, from the dejavu-fonts-ttf package: the same glyphs on every machine.
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf'];

// PNG bytes of an SVG string: resvg (a maintained rasteriser with prebuilt binaries), only the bundled fonts.
function rasterise(svg, scale) {
  const require = createRequire(import.meta.url);
  let Resvg, fontDir;
  try {
    ({ Resvg } = require('@resvg/resvg-js'));
    fontDir = fileURLToPath(new URL('ttf/', `file://${require.resolve('dejavu-fonts-ttf/package.json')}`));
  } catch {
    throw new UsageError('--png needs the npm packages @resvg/resvg-js and dejavu-fonts-ttf: npm install @resvg/resvg-js dejavu-fonts-ttf');
  }
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background: '#ffffff',
    font: { loadSystemFonts: false, fontFiles: FONT_FILES.map((f) => `${fontDir}${f}`), defaultFontFamily: 'DejaVu Sans', monospaceFamily: 'DejaVu Sans Mono' } });
  return r.render().asPng();
}

function writeFigure(svg, o) {
  if (o.svg === '-' && o.png === '-') throw new UsageError('--svg - and --png - cannot both write to stdout');
  const scale = num('--scale', o.scale);
  if (!(scale > 0 && scale <= 16)) throw new UsageError(`--scale must be in (0, 16] (got ${o.scale})`);
  const put = (file, data) => {
    if (file === '') throw new UsageError('--svg and --png need a file name (or - for stdout)');
    if (file === '-') process.stdout.write(data);
    else writeFileSync(resolve(file), data);
  };
  if (o.svg !== undefined) put(o.svg, `${svg}\n`);
  if (o.png !== undefined) put(o.png, rasterise(svg, scale));
}

// The model card beside a model: a bundled model's (web/models/<name>/, or shared/models/<name>/ in a source
// checkout), or card.json in a bundle folder; null when there is none.
function cardOf(source) {
  const web = fileURLToPath(new URL('../../', import.meta.url));
  const candidates = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source) && !existsSync(source)
    ? [`${web}models/${source}/card.json`, `${web}../shared/models/${source}/card.json`]
    : [resolve(isAbsolute(source) ? source : resolve(source), 'card.json')];
  const found = candidates.find((f) => existsSync(f));
  return found ? JSON.parse(readFileSync(found, 'utf8')) : null;
}

function print(s) {
  process.stdout.write(`${s}\n`);
}

// A reader that closes the pipe early (`lookback tokens ... | head -n 1`) is a normal end, not an error.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});

// All of stdin as text, read as a stream (a pipe may deliver it late and in many chunks).
async function readStdin() {
  process.stdin.setEncoding('utf8');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

// Error messages of the JS API name its options; on the command line the flags stand for them.
const FLAGS = [[/\{ window: true \}/g, '--window'], [/\btopK\b/g, '--top'], [/\bmaxTokens\b/g, '--max-tokens'], [/\btopP\b/g, '--top-p']];
const inFlags = (message) => FLAGS.reduce((m, [api, flag]) => m.replace(api, flag), message);

// "--temperature -1": a value that looks like a negative number belongs to the option before it
// (parseArgs would call it ambiguous); written as --temperature=-1 for parseArgs.
function joinNegativeValues(args, options) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : null;
    if (name && options[name]?.type === 'string' && /^-(\d|\.\d)/.test(args[i + 1] ?? '')) out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

class UsageError extends Error {}

function int(name, text, lo, hi = Number.MAX_SAFE_INTEGER) {
  const x = Number(text);
  if (!Number.isInteger(x) || x < lo || x > hi) throw new UsageError(`${name} must be an integer in [${lo}, ${hi}] (got ${text})`);
  return x;
}

function num(name, text) {
  const x = Number(text);
  if (text === '' || !Number.isFinite(x)) throw new UsageError(`${name} must be a number (got ${text})`);
  return x;
}

function mainHelp(lb) {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`);
  return `lookback: look inside a small language model\n\nusage: lookback <command> "text" [options]\n\n${lines.join('\n')}\n\n`
    + '  assets    copy the files a page using lookback fetches into a folder of your app (lookback assets --help)\n\n'
    + `options of every command:\n${modelHelp(lb)}\n\n"lookback <command> --help" lists a command's own options. Without "text", the text is read from stdin.\n`
    + '"lookback --version" prints the version.';
}

function commandHelp(name, lb) {
  const c = COMMANDS[name];
  if (c.model === false) return `lookback ${name}: ${c.summary}\n\nusage: ${c.usage}\n\n${c.help}\n  -h, --help       this help`;
  return `lookback ${name}: ${c.summary}\n\nusage: ${c.usage} [--model M] [--tokenizer T] [--weights W] [--window]\n\n${c.help}\n${modelHelp(lb)}`;
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') return print(mainHelp(await loadLookback()));
  if (name === '-v' || name === '--version') return print(JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version);
  if (name === 'assets') return assetsCommand(rest, print);
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')}; see lookback --help)`);
  const options = {
    ...command.options, model: { type: 'string', default: 'sprout' }, tokenizer: { type: 'string' }, weights: { type: 'string' },
    window: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  };
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(rest, options), allowPositionals: true, strict: true, options });
  } catch (e) {
    throw new UsageError(`${e.message.split('\n')[0]} (see lookback ${name} --help)`);
  }
  const o = parsed.values;
  if (o.help) return print(commandHelp(name, await loadLookback()));
  if (parsed.positionals.length > 1) throw new UsageError(`${name} takes one text (quote it); got ${parsed.positionals.length} arguments`);
  const text = parsed.positionals[0] ?? (process.stdin.isTTY ? null : await readStdin());
  if (text === null) throw new UsageError(`${name} needs a text: lookback ${name} "some text" (see lookback ${name} --help)`);
  if (text === '') throw new UsageError(`${name}: stdin was empty; pipe a text in or give it: lookback ${name} "some text"`);
  const lb = await loadLookback();
  if (command.model === false) return command.run(lb, text, o);
  const model = await lb.loadModel(o.model, { tokenizer: o.tokenizer, ...(o.weights !== undefined && { weights: o.weights }) });
  // a window model has no attention and generates nothing: say so, and which commands it does answer
  if (command.needs && typeof model[command.needs] !== 'function') {
    const answers = Object.keys(COMMANDS).filter((c) => COMMANDS[c].model !== false && (!COMMANDS[c].needs || typeof model[COMMANDS[c].needs] === 'function'));
    model.dispose();
    throw new UsageError(`${name}: the model "${o.model}" is a ${model.info.config.arch} model, which has no ${command.needs === 'forward' ? 'attention' : 'generation'}; `
      + `it answers ${answers.join(' and ')} (give a transformer with --model for ${name})`);
  }
  try {
    await command.run(model, text, o, { card: command === COMMANDS.heads ? cardOf(o.model) : null });
  } finally {
    model.dispose();
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`lookback: ${inFlags(String(e.message).split('\n')[0].replace(/^lookback: /, ''))}\n`);
  process.exitCode = e instanceof UsageError || e instanceof AssetsUsageError ? 2 : 1;
});
