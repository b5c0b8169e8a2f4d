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
  if (typeof value === 'symbol') return `the symbol ${value.description ?? ''}`.trimEnd();
  if (typeof value === 'bigint') return `the BigInt ${value}`;
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

// Everything handed to the bindings is plain: a number, a string, an object the API made, or a typed array that
// reading runs no code of the caller's (its own class, no own properties shadowing length or set). Anything
// else is converted here, in JS, before the bindings run, so that a getter, a valueOf or a Proxy trap can never
// run while the core is inside a call (once, one disposed the model the call was using). The intrinsic getter
// tells a typed array from a Proxy of one without running the Proxy's traps.
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const typedArraySet = Object.getPrototypeOf(Uint8Array.prototype).set;

export function isPlain(x, Type) {
  return typedArrayName.call(x) === Type.name && Object.getPrototypeOf(x) === Type.prototype
    && !Object.hasOwn(x, 'length') && !Object.hasOwn(x, 'set');
}

// What the bindings get for an argument that cannot be converted: not an array of any kind, so they refuse it
// with the message that names the argument.
const NOT_AN_ARRAY = Object.freeze({});

// A plain Float32Array stays as it is; any other array-like of numbers is copied into one (each element of an
// untyped array-like must be a number: "1" is not; a BigInt64Array's values become numbers); anything else goes on
// as NOT_AN_ARRAY, which the bindings reject with a message naming the argument.
export function f32(x, fn = 'lookback', name = 'input') {
  if (isPlain(x, Float32Array)) return x;
  if (x === undefined || x === null) return x;
  if (!arrayLike(x)) return NOT_AN_ARRAY;
  if (!ArrayBuffer.isView(x)) {
    for (let i = 0; i < x.length; i++) {
      if (typeof x[i] !== 'number') throw bad(`${fn}: ${name}[${i}] must be a number (got ${describe(x[i])})`);
    }
  }
  try {
    return typedArrayName.call(x)?.startsWith('Big') ? Float32Array.from(x, Number) : Float32Array.from(x);
  } catch (e) {
    throw bad(`${fn}: ${name} must hold numbers (${e.message})`);
  }
}

// A mask: a plain Uint8Array as it is; a plain array of numbers or booleans becomes 1 (visible) / 0 (hidden); any
// other Uint8Array (a subclass, a Proxy of one) is copied; anything else (a Float32Array is not a mask) goes on
// as NOT_AN_ARRAY, which the bindings reject naming the argument.
export function u8(x) {
  if (x === undefined || x === null || isPlain(x, Uint8Array)) return x;
  if (Array.isArray(x)) return Uint8Array.from(x, (b) => (b ? 1 : 0));
  return x instanceof Uint8Array ? Uint8Array.from(x) : NOT_AN_ARRAY;
}

// `out`, a caller's Float32Array the result is written into: { value } for the bindings (a plain Float32Array
// itself; for any other, a plain one of its length, copied into it by `finish` through the intrinsic set; for
// anything else NOT_AN_ARRAY, which the bindings refuse) and finish(result) -> the array returned.
export function outArray(out) {
  if (out === undefined || out === null || isPlain(out, Float32Array)) return { value: out, finish: (r) => r };
  if (typedArrayName.call(out) !== 'Float32Array') return { value: NOT_AN_ARRAY, finish: (r) => r };
  const value = new Float32Array(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'length').get.call(out));
  return {
    value,
    finish(r) {
      typedArraySet.call(out, value);
      return r === value ? out : r;
    },
  };
}

// Writes `from` into `to` (a caller's Float32Array) without running any code of the caller's.
export function copyInto(to, from) {
  typedArraySet.call(to, from);
}

// Token ids as a plain Float64Array (what the bindings read): from an Array, a typed array (BigInt64Array too,
// as tokenizers of other libraries return) or any other array-like, each id a number or a BigInt (a BigInt
// beyond 2^53 is refused here; the bindings check the range). A non-array is a TypeError (an object is not an
// empty list of ids), and so is any other element (a string, a Symbol, an object), naming its index.
export function idList(fn, x) {
  if (isPlain(x, Float64Array)) return x;
  if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)) || arrayLike(x))) {
    throw bad(`${fn}: ids must be an array of token ids, or give a text (got ${describe(x)})`);
  }
  const n = x.length;
  if (!Number.isSafeInteger(n) || n < 0) throw bad(`${fn}: ids must be an array of token ids (its length is ${describe(n)})`);
  let ids;
  try {
    ids = new Float64Array(n);
  } catch (e) {
    throw bad(`${fn}: ids must be an array of token ids (${n} of them cannot be held: ${e.message})`);
  }
  for (let i = 0; i < n; i++) {
    const id = x[i];
    if (typeof id === 'number') ids[i] = id;
    else if (typeof id === 'bigint' && id >= BigInt(Number.MIN_SAFE_INTEGER) && id <= BigInt(Number.MAX_SAFE_INTEGER)) ids[i] = Number(id);
    else throw bad(`${fn}: ids[${i}] must be a number or a BigInt token id (got ${describe(id)})`);
  }
  return ids;
}

// scale: true -> 1/sqrt(d), false -> 1, a number -> itself.
export function scaleFor(fn, scale, d) {
  if (scale === true) return 1 / Math.sqrt(d);
  if (scale === false) return 1;
  if (typeof scale === 'number') return scale;
  throw bad(`${fn}: scale must be true (1/sqrt(d)), false (1) or a number`);
}
