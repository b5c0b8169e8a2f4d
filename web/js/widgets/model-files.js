// Which files the reader dropped or picked make a model, by the core's list of formats (the API's
// modelFormats().formats: each format's weights extension, whether config.json comes with it, its tokenizer's
// file name). modelSource(files, formats) returns the source loadModel takes and a label, or throws an Error that
// says what is missing; hint(formats) says what to pick. Pure: files are { name, bytes } (bytes: a Uint8Array or a
// File/Blob, passed on as they are; no API), so it runs in Node too. A sharded checkpoint is its shards with model.safetensors.index.json. Not the loader
// (web/js/api/model.js), which tells the formats apart by content.

// The most bytes of one model file the core reads (as web/js/api/files.js; widgets do not import the API).
export const MAX_FILE_BYTES = 2 ** 30;

const ext = (name) => name.toLowerCase().match(/(\.[a-z0-9]+)$/)?.[1] ?? '';
const base = (name) => name.toLowerCase().replace(/^.*[\\/]/, '');
const capital = (s) => s[0].toUpperCase() + s.slice(1);

// The file layouts: formats with the same weights extension (Hugging Face and lookback bundles) share their files.
const layoutsOf = (formats) => [...new Map(formats.map((f) => [f.weights, f])).values()];

// A tokenizer with the weights' own extension (llama2.c's tok512.bin) is told apart by its name.
const pairsByName = (l) => !!l.tokenizer && ext(l.tokenizer) === l.weights;

function describe(l) {
  if (pairsByName(l)) return `a ${l.weights} checkpoint with its tokenizer ${l.weights}`;
  const beside = [l.config && 'config.json', l.tokenizer].filter(Boolean);
  return `a ${l.weights} file${beside.length ? ` with its ${beside.join(' and ')}` : ''}`;
}

/** What to pick, in words: "pick a .bin checkpoint with its tokenizer .bin, or a .safetensors file with ..." */
export function hint(formats) {
  return `pick ${layoutsOf(formats).map(describe).join(', or ')}`;
}

/** The file-picker's accept attribute: every extension a format's files have. */
export function accepted(formats) {
  const exts = layoutsOf(formats).flatMap((l) => [l.weights, l.config && '.json', l.tokenizer && ext(l.tokenizer)]);
  return [...new Set(exts.filter(Boolean))].join(',');
}

// The files of one layout among those picked: { weights: [...], config, tokenizer }.
function rolesIn(files, l) {
  const byName = pairsByName(l);
  const tokExt = l.tokenizer ? ext(l.tokenizer) : '';
  const isTok = (f) => ext(f.name) === tokExt && base(f.name).startsWith('tok');
  const weights = files.filter((f) => ext(f.name) === l.weights && !(byName && isTok(f)));
  const jsons = files.filter((f) => ext(f.name) === '.json');
  const config = l.config ? jsons.find((f) => base(f.name) === 'config.json') ?? jsons.find((f) => base(f.name).includes('config')) : undefined;
  // a sharded checkpoint's index (model.safetensors.index.json) beside its shards
  const index = jsons.find((f) => base(f.name).endsWith(`${l.weights}.index.json`));
  const others = files.filter((f) => ext(f.name) === tokExt && f !== config && f !== index && !weights.includes(f));
  const tokenizer = others.find((f) => base(f.name) === l.tokenizer) ?? others.find((f) => base(f.name).includes('tok')) ?? (!byName && others.length === 1 ? others[0] : undefined);
  return { l, weights, config, tokenizer, index };
}

export function modelSource(files, formats) {
  const how = hint(formats);
  if (!files.length) throw new Error(`No file. To use your own model, ${how}.`);
  const found = layoutsOf(formats).map((l) => rolesIn(files, l)).filter((r) => r.weights.length);
  if (!found.length) throw new Error(`${files.map((f) => f.name).join(', ')}: not a model. ${capital(how)}.`);
  const [{ l, weights, config, tokenizer, index }] = found;
  if (found.length > 1 || (weights.length > 1 && !index)) {
    if (found.length === 1 && pairsByName(l) && !tokenizer) {
      throw new Error(`Cannot tell the checkpoint from the tokenizer among ${weights.map((f) => f.name).join(', ')}: the tokenizer's name starts with "tok", and there is one of each.`);
    }
    throw new Error(`Too many model files. ${capital(how)}.`);
  }
  const w = index ?? weights[0];
  if (l.tokenizer && !tokenizer && pairsByName(l)) {
    throw new Error(`${w.name} needs its tokenizer ${l.weights} (e.g. tok512${l.weights}, a name starting with "tok"): pick both files.`);
  }
  const missing = [l.config && !config && 'config.json', l.tokenizer && !tokenizer && l.tokenizer].filter(Boolean);
  if (missing.length) throw new Error(`${w.name} needs ${missing.join(' and ')} beside it: pick them together.`);
  const source = index
    ? { index: index.bytes, shards: weights.map((f) => ({ name: f.name.replace(/^.*[\\/]/, ''), bytes: f.bytes })) }
    : { weights: w.bytes };
  // no tokenizer for a format whose weights hold it (GGUF): the core reads it from the bytes
  if (tokenizer) source.tokenizer = tokenizer.bytes;
  if (config) source.config = config.bytes;
  return { source, label: index ? `${weights.length} shards of ${base(index.name).replace('.index.json', '')}` : w.name };
}
