// Option handling for the JS API: defaults, unknown-key detection and array conversion, with errors that
// name the function and the option (TypeErrors with code LOOKBACK_BAD_ARGUMENT). Not validation of shapes or
// values: the WebAssembly bindings do that.
import { CODES, coded } from './errors.js';

const bad = (message) => coded(CODES.BAD_ARGUMENT, message, { type: TypeError });

export function options(fn, given, defaults) {
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    throw bad(`${fn}: options must be an object`);
  }
  const out = { ...defaults };
  for (const [key, value] of Object.entries(given || {})) {
    if (!(key in defaults)) {
      throw bad(`${fn}: unknown option "${key}" (known: ${Object.keys(defaults).join(', ')})`);
    }
    if (value !== undefined) out[key] = value;
  }
  for (const [key, value] of Object.entries(out)) {
    if (value === REQUIRED) throw bad(`${fn}: option "${key}" is required`);
  }
  return out;
}

// Marks an option without a default.
export const REQUIRED = Symbol('required');

// Float32Array stays as it is; a plain array of numbers becomes one; anything else goes on to the bindings,
// which reject it with a message naming the argument.
export function f32(x) {
  return Array.isArray(x) ? Float32Array.from(x) : x;
}

export function u8(x) {
  return Array.isArray(x) ? Uint8Array.from(x, (b) => (b ? 1 : 0)) : x;
}

// scale: true -> 1/sqrt(d), false -> 1, a number -> itself.
export function scaleFor(fn, scale, d) {
  if (scale === true) return 1 / Math.sqrt(d);
  if (scale === false) return 1;
  if (typeof scale === 'number') return scale;
  throw bad(`${fn}: scale must be true (1/sqrt(d)), false (1) or a number`);
}
