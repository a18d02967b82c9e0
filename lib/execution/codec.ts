/**
 * Arguments and results travel as JSON. Values JSON cannot carry are written as tagged objects
 * `{"$t": <type>, "v": <value>}`; a plain object that itself has a `$t` key is wrapped as
 * `{"$t": "Object", "v": {...}}` so that decoding is unambiguous. Decoding only builds data: no
 * code is evaluated.
 */
const TAG = '$t';

/** Set an own data property, also for the key "__proto__" (which `o[k] = v` would not). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

class EncodeError extends TypeError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(reason);
  }
}

function encodeValue(value: unknown, path: string, seen: Set<object>): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : { [TAG]: 'Number', v: String(value) };
    case 'bigint':
      return { [TAG]: 'BigInt', v: value.toString() };
    case 'undefined':
      return { [TAG]: 'undefined' };
    case 'function':
      throw new EncodeError(path, 'is a function');
    case 'symbol':
      throw new EncodeError(path, 'is a symbol');
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) throw new EncodeError(path, 'contains a circular reference');
  seen.add(object);
  try {
    return encodeObject(object, path, seen);
  } finally {
    seen.delete(object);
  }
}

function encodeObject(value: object, path: string, seen: Set<object>): Json {
  if (value instanceof Date) {
    return { [TAG]: 'Date', v: Number.isNaN(value.getTime()) ? null : value.toISOString() };
  }
  if (Buffer.isBuffer(value)) return { [TAG]: 'Buffer', v: value.toString('base64') };
  if (ArrayBuffer.isView(value)) throw new EncodeError(path, 'is a typed array (use a Buffer)');
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (let i = 0; i < value.length; i++) out.push(encodeValue(value[i], `${path}[${i}]`, seen));
    return out;
  }
  if (value instanceof Map) {
    const entries: Json[] = [];
    let i = 0;
    for (const [k, v] of value) {
      entries.push([
        encodeValue(k, `${path}<key ${i}>`, seen),
        encodeValue(v, `${path}<${i}>`, seen),
      ]);
      i++;
    }
    return { [TAG]: 'Map', v: entries };
  }
  if (value instanceof Set) {
    const items: Json[] = [];
    let i = 0;
    for (const v of value) items.push(encodeValue(v, `${path}<${i++}>`, seen));
    return { [TAG]: 'Set', v: items };
  }
  if (value instanceof Promise) throw new EncodeError(path, 'is a Promise (await it first)');
  if (value instanceof RegExp) throw new EncodeError(path, 'is a RegExp (pass its source)');
  if (value instanceof Error) throw new EncodeError(path, 'is an Error (pass its message)');
  if (value instanceof WeakMap || value instanceof WeakSet) {
    throw new EncodeError(path, 'is a WeakMap or WeakSet');
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encodeValue(toJSON.call(value), path, seen);
  const out: { [k: string]: Json } = {};
  for (const k of Object.keys(value)) {
    define(out, k, encodeValue((value as Record<string, unknown>)[k], `${path}.${k}`, seen));
  }
  return TAG in out ? { [TAG]: 'Object', v: out } : out;
}

function decodeValue(value: Json): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const tag = value[TAG];
  if (typeof tag !== 'string') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) define(out, k, decodeValue(value[k]));
    return out;
  }
  const v = value.v;
  switch (tag) {
    case 'undefined':
      return undefined;
    case 'Number':
      return Number(v);
    case 'BigInt':
      return BigInt(v as string);
    case 'Date':
      return new Date(v === null ? NaN : (v as string));
    case 'Buffer':
      return Buffer.from(v as string, 'base64');
    case 'Map':
      return new Map((v as Json[][]).map(([k, x]) => [decodeValue(k), decodeValue(x)]));
    case 'Set':
      return new Set((v as Json[]).map(decodeValue));
    case 'Object': {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v as object))
        define(out, k, decodeValue((v as Record<string, Json>)[k]));
      return out;
    }
    default:
      throw new TypeError(`unknown value tag "${tag}"`);
  }
}

/**
 * Serialize task arguments. Throws a `TypeError` naming the 0-based position of the first
 * argument JSON cannot carry faithfully.
 */
export function encodeArgs(args: readonly unknown[]): string {
  const seen = new Set<object>();
  const out: Json[] = [];
  for (let i = 0; i < args.length; i++) {
    try {
      out.push(encodeValue(args[i], '', seen));
    } catch (error) {
      if (!(error instanceof EncodeError)) throw error;
      throw new TypeError(
        `argument ${i}${error.path} ${error.message}: task arguments must be JSON data ` +
          `(Date, BigInt, Map, Set, Buffer and undefined are kept)`,
      );
    }
  }
  return JSON.stringify(out);
}

/** Parse task arguments; throws a `TypeError` when the text is not an encoded argument list. */
export function decodeArgs(text: string): unknown[] {
  const parsed = JSON.parse(text) as Json;
  if (!Array.isArray(parsed)) throw new TypeError('args is not a JSON array');
  return parsed.map(decodeValue);
}

/** Serialize a task's result; throws a `TypeError` for a value JSON cannot carry. */
export function encodeResult(value: unknown): string {
  try {
    return JSON.stringify(encodeValue(value, '', new Set()));
  } catch (error) {
    if (!(error instanceof EncodeError)) throw error;
    throw new TypeError(`the task's result${error.path} ${error.message}`);
  }
}

export function decodeResult(text: string): unknown {
  return decodeValue(JSON.parse(text) as Json);
}
