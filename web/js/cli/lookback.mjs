#!/usr/bin/env node
// The lookback command line: a model's tokens, next-token probabilities, generated text and attention weights,
// from a terminal, through the same JS API the chapter uses. Bad input exits non-zero with one line on stderr.
// Not here: training or evaluation (the native tools lookback-train, lookback-eval).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadLookback } from '../api/node.js';

const MODEL_HELP = `  --model M        a bundled model name (default: sprout), a bundle folder (model.safetensors,
                   config.json, tokenizer.json), a .safetensors file, or a llama2.c .bin checkpoint
  --tokenizer T    the tokenizer .bin of a llama2.c checkpoint (or a tokenizer.json)
  --window         keep the start mark and the last tokens of a text longer than the context
  -h, --help       this help`;

const COMMANDS = {
  tokens: {
    summary: 'the tokens of a text: id and text of each',
    usage: 'lookback tokens "text" [--json]',
    options: { json: { type: 'boolean' } },
    help: '  --json           print [{ id, text }] as JSON',
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
      const top = m.next(text, { topK: int('--top', o.top, 1), temperature: num('--temperature', o.temperature), window: !!o.window });
      if (o.json) return print(JSON.stringify(top));
      for (const t of top) print(`${(100 * t.p).toFixed(2).padStart(6)}%  ${String(t.id).padStart(6)}  ${JSON.stringify(t.token)}`);
    },
  },
  generate: {
    summary: 'continue a text',
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
    usage: 'lookback attend "text" [--layer L] [--head H] [--no-positions] [--json]',
    options: { layer: { type: 'string', default: '0' }, head: { type: 'string', default: '0' }, json: { type: 'boolean' }, 'no-positions': { type: 'boolean' } },
    help: '  --layer L        layer, from 0 (default 0)\n  --head H         head, from 0 (default 0)\n'
      + '  --no-positions   run without rotary positions (the model sees no word order)\n'
      + '  --json           print { tokens, shape, attention[L][H][T][T] } as JSON (all layers and heads)',
    run: (m, text, o) => {
      const r = m.forward(text, { attention: true, positions: !o['no-positions'], window: !!o.window });
      const { T, L, H } = r.shape;
      const tokens = m.tokens(r.ids).map((t) => t.text);
      const w = r.attention;  // [L, H, T, T]
      if (o.json) {
        const nested = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => Array.from({ length: T }, (_, t) => Array.from(w.subarray(((l * H + h) * T + t) * T, ((l * H + h) * T + t + 1) * T)))));
        return print(JSON.stringify({ tokens, shape: { L, H, T }, attention: nested }));
      }
      const l = int('--layer', o.layer, 0, L - 1), h = int('--head', o.head, 0, H - 1);
      const label = (s) => JSON.stringify(s).slice(1, -1).slice(0, 10).padEnd(10);
      print(`layer ${l}, head ${h}: row = the token looking, column = the token looked at`);
      print(`${''.padEnd(11)}${tokens.map((s) => label(s).slice(0, 6).padStart(7)).join('')}`);
      for (let t = 0; t < T; t++) {
        const row = w.subarray(((l * H + h) * T + t) * T, ((l * H + h) * T + t + 1) * T);
        print(`${label(tokens[t])} ${Array.from(row, (x, s) => (s > t ? '      ·' : x.toFixed(3).padStart(7))).join('')}`);
      }
    },
  },
};

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

function mainHelp() {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`);
  return `lookback: look inside a small language model\n\nusage: lookback <command> "text" [options]\n\n${lines.join('\n')}\n\n`
    + `options of every command:\n${MODEL_HELP}\n\n"lookback <command> --help" lists a command's own options. Without "text", the text is read from stdin.\n`
    + '"lookback --version" prints the version.';
}

function commandHelp(name) {
  const c = COMMANDS[name];
  return `lookback ${name}: ${c.summary}\n\nusage: ${c.usage} [--model M] [--tokenizer T] [--window]\n\n${c.help}\n${MODEL_HELP}`;
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') return print(mainHelp());
  if (name === '-v' || name === '--version') return print(JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version);
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')}; see lookback --help)`);
  const options = {
    ...command.options, model: { type: 'string', default: 'sprout' }, tokenizer: { type: 'string' },
    window: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  };
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(rest, options), allowPositionals: true, strict: true, options });
  } catch (e) {
    throw new UsageError(`${e.message.split('\n')[0]} (see lookback ${name} --help)`);
  }
  const o = parsed.values;
  if (o.help) return print(commandHelp(name));
  if (parsed.positionals.length > 1) throw new UsageError(`${name} takes one text (quote it); got ${parsed.positionals.length} arguments`);
  const text = parsed.positionals[0] ?? (process.stdin.isTTY ? null : await readStdin());
  if (text === null) throw new UsageError(`${name} needs a text: lookback ${name} "some text" (see lookback ${name} --help)`);
  if (text === '') throw new UsageError(`${name}: stdin was empty; pipe a text in or give it: lookback ${name} "some text"`);
  const lb = await loadLookback();
  const model = await lb.loadModel(o.model, o.tokenizer ? { tokenizer: o.tokenizer } : undefined);
  try {
    command.run(model, text, o);
  } finally {
    model.dispose();
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`lookback: ${inFlags(String(e.message).split('\n')[0].replace(/^lookback: /, ''))}\n`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
