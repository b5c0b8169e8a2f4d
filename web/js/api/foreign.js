// Recognises a mix of formats lookback does not read, before the core parses it, so the error says what the
// files are and what lookback reads instead (rather than "missing key"): a lookback config.json beside a
// Hugging Face tokenizer.json. (A Hugging Face config.json goes to the core's Llama reader, whose errors say
// what it does not support.) Not a converter.
import { CODES, coded } from './errors.js';

const SUPPORTED = 'lookback reads its own bundle (model.safetensors, a config.json with "n_layers", "n_heads", '
  + '"dim", "rope_layout" ..., and a tokenizer.json with "type": "byte-bpe", as written by `npm run train`), '
  + 'Hugging Face Llama folders (LlamaForCausalLM config.json, model.safetensors, byte-level BPE tokenizer.json) '
  + 'and llama2.c checkpoints (.bin with their tokenizer .bin)';

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;  // not JSON: the core reports it
  }
}

const isHuggingFace = (config) => !!config && typeof config === 'object' && !!(config.architectures || config.model_type);

// Throws LOOKBACK_UNSUPPORTED_FORMAT for a lookback config.json with a Hugging Face tokenizer.json.
export function detectForeign(configText, tokenizerText) {
  if (isHuggingFace(parsed(configText))) return;
  const tok = parsed(tokenizerText);
  if (tok && typeof tok === 'object' && tok.model && typeof tok.model === 'object' && typeof tok.type !== 'string') {
    throw coded(CODES.UNSUPPORTED_FORMAT, `loadModel: tokenizer.json is a Hugging Face tokenizers file (model `
      + `${tok.model.type ?? 'unknown'}) but config.json is lookback's own; ${SUPPORTED}`);
  }
}
