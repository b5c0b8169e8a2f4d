// Option handling for the JS API: defaults, unknown-key detection, types (an option whose default is a number
// must be a number, one whose default is a boolean a boolean: "4" and true are not sizes) and array conversion,
// with errors that name the function and the option (TypeErrors with code LOOKBACK_BAD_ARGUMENT). Not
// validation of ranges or shapes: the WebAssembly bindings do that.
import { CODES, coded } from './errors.js';

const bad = (message) => coded(CODES.BAD_ARGUMENT, message, { type: TypeError });

// `untyped` lists options that take more than one type (checked by their own code).
export function options(fn, given, defaults, untyped = []) {
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
    throw bad(`${fn}: options must be an object`);
  }
  const out = { ...defaults };
  // (for-in over own keys, not Object.entries: no arrays made on calls that run thousands of times a second)
  for (const key in given) {
    if (!Object.hasOwn(given, key)) continue;
    if (!Object.hasOwn(defaults, key)) {
      throw bad(`${fn}: unknown option "${key}" (known: ${Object.keys(defaults).join(', ')})`);
    }
    const value = given[key];
    if (value === undefined) continue;
    const want = kindOf(defaults[key]);
    if (want && typeof value !== want && !untyped.includes(key)) {
      throw bad(`${fn}: option "${key}" must be a ${want} (got ${describe(value)})`);
    }
    out[key] = value;
  }
  for (const key in out) {
    const value = out[key];
    if (value === REQUIRED) throw bad(`${fn}: option "${key}" is required`);
    if (value === NUMBER) out[key] = undefined;
  }
  return out;
}

// Marks a number option without a default: required, or optional (undefined when not given).
export const REQUIRED = Symbol('required');
export const NUMBER = Symbol('number');

function kindOf(d) {
  if (d === REQUIRED || d === NUMBER || typeof d === 'number') return 'number';
  if (typeof d === 'boolean') return 'boolean';
  return null;
}

export function describe(value) {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : `${typeof value} ${String(value)}`;
}

// A number argument that is not an option (causalMask(T), window(ids, size)): must be a number.
export function numberArg(fn, name, value) {
  if (typeof value !== 'number') throw bad(`${fn}: ${name} must be a number (got ${describe(value)})`);
  return value;
}

// Any array-like other than a string (Array, Float64Array, Int8Array, { length, 0: ... }).
function arrayLike(x) {
  return x !== null && typeof x === 'object' && Number.isSafeInteger(x.length) && x.length >= 0
    && !(x instanceof ArrayBuffer) && !(x instanceof DataView);
}

// Float32Array stays as it is; any other array-like of numbers is converted (each element must be a number:
// "1" is not); anything else goes on to the bindings, which reject it with a message naming the argument.
export function f32(x, fn = 'lookback', name = 'input') {
  if (x instanceof Float32Array || !arrayLike(x)) return x;
  if (!ArrayBuffer.isView(x)) {
    for (let i = 0; i < x.length; i++) {
      if (typeof x[i] !== 'number') throw bad(`${fn}: ${name}[${i}] must be a number (got ${describe(x[i])})`);
    }
  }
  try {
    return Float32Array.from(x);
  } catch (e) {
    throw bad(`${fn}: ${name} must hold numbers (${e.message})`);
  }
}

// A mask: a Uint8Array as it is; a plain array of numbers or booleans becomes 1 (visible) / 0 (hidden); anything
// else (a Float32Array is not a mask) goes on to the bindings, which reject it naming the argument.
export function u8(x) {
  return Array.isArray(x) ? Uint8Array.from(x, (b) => (b ? 1 : 0)) : x;
}

// Token ids: an Array or typed array as it is, any other array-like as an Array; a non-array is a TypeError
// (an object is not an empty list of ids).
export function idList(fn, x) {
  if (Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView))) return x;
  if (arrayLike(x)) return Array.from(x);
  throw bad(`${fn}: ids must be an array of token ids, or give a text (got ${describe(x)})`);
}

// scale: true -> 1/sqrt(d), false -> 1, a number -> itself.
export function scaleFor(fn, scale, d) {
  if (scale === true) return 1 / Math.sqrt(d);
  if (scale === false) return 1;
  if (typeof scale === 'number') return scale;
  throw bad(`${fn}: scale must be true (1/sqrt(d)), false (1) or a number`);
}
