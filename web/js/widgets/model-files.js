// Which files the reader dropped or picked make a model: a llama2.c checkpoint .bin with its tokenizer .bin,
// or a safetensors bundle (model .safetensors, config.json, tokenizer.json). modelSource(files) returns the
// source loadModel takes and a label, or throws an Error that says what is missing. Pure: files are
// { name, bytes } (no File objects, no API), so it runs in Node too. Not the loader (web/js/api/model.js).

// The most bytes of one model file the core reads (as web/js/api/files.js; widgets do not import the API).
export const MAX_FILE_BYTES = 2 ** 30;

const ext = (name) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';
const base = (name) => name.toLowerCase().replace(/^.*[\\/]/, '');

const HOW = 'pick a llama2.c checkpoint .bin with its tokenizer .bin, or a .safetensors file with its config.json and tokenizer.json';

export function modelSource(files) {
  if (!files.length) throw new Error(`No file. To use your own model, ${HOW}.`);
  const bins = files.filter((f) => ext(f.name) === 'bin');
  const weights = files.filter((f) => ext(f.name) === 'safetensors');
  const jsons = files.filter((f) => ext(f.name) === 'json');
  if (weights.length > 1 || (weights.length && bins.length)) throw new Error(`Too many model files. ${HOW[0].toUpperCase()}${HOW.slice(1)}.`);
  if (weights.length === 1) {
    const config = jsons.find((f) => base(f.name).includes('config'));
    const tokenizer = jsons.find((f) => f !== config && base(f.name).includes('tok')) ?? (jsons.length === 2 ? jsons.find((f) => f !== config) : undefined);
    if (!config || !tokenizer) {
      const missing = [!config && 'config.json', !tokenizer && 'tokenizer.json'].filter(Boolean).join(' and ');
      throw new Error(`${weights[0].name} needs ${missing} beside it: pick them together.`);
    }
    return { source: { weights: weights[0].bytes, config: config.bytes, tokenizer: tokenizer.bytes }, label: weights[0].name };
  }
  if (bins.length) {
    const tokenizers = bins.filter((f) => base(f.name).startsWith('tok'));
    const checkpoints = bins.filter((f) => !tokenizers.includes(f));
    if (checkpoints.length === 1 && tokenizers.length === 1) {
      return { source: { checkpoint: checkpoints[0].bytes, tokenizer: tokenizers[0].bytes }, label: checkpoints[0].name };
    }
    if (checkpoints.length === 1 && !tokenizers.length) {
      throw new Error(`${checkpoints[0].name} needs its tokenizer .bin (e.g. tok512.bin, a name starting with "tok"): pick both files.`);
    }
    throw new Error(`Cannot tell the checkpoint from the tokenizer among ${bins.map((f) => f.name).join(', ')}: the tokenizer's name starts with "tok", and there is one of each.`);
  }
  throw new Error(`${files.map((f) => f.name).join(', ')}: not a model. ${HOW[0].toUpperCase()}${HOW.slice(1)}.`);
}
