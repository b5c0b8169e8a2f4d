// Recognises model files in formats lookback does not read, before the core parses them, so the error says
// what the files are and what lookback reads instead (rather than "unknown key"). Today: the Hugging Face
// transformers layout (config.json with "architectures"/"model_type", tokenizer.json of the tokenizers
// library). Not a converter.
import { CODES, coded } from './errors.js';

const SUPPORTED = 'lookback reads its own bundle (model.safetensors, a config.json with "n_layers", "n_heads", '
  + '"dim", "rope_layout" ..., and a tokenizer.json with "type": "byte-bpe", as written by `npm run train`) and '
  + 'llama2.c checkpoints (.bin with their tokenizer .bin)';

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;  // not JSON: the core reports it
  }
}

// Throws LOOKBACK_UNSUPPORTED_FORMAT for a Hugging Face config or tokenizer; returns otherwise.
export function detectForeign(configText, tokenizerText) {
  const config = parsed(configText);
  if (config && typeof config === 'object' && (config.architectures || config.model_type)) {
    const arch = [].concat(config.architectures ?? config.model_type).join(', ');
    throw coded(CODES.UNSUPPORTED_FORMAT, `loadModel: config.json is a Hugging Face transformers config (${arch}), `
      + `which lookback does not read; ${SUPPORTED}`);
  }
  const tok = parsed(tokenizerText);
  if (tok && typeof tok === 'object' && tok.model && typeof tok.model === 'object' && !('type' in tok && typeof tok.type === 'string')) {
    throw coded(CODES.UNSUPPORTED_FORMAT, `loadModel: tokenizer.json is a Hugging Face tokenizers file (model `
      + `${tok.model.type ?? 'unknown'}), which lookback does not read; ${SUPPORTED}`);
  }
}
