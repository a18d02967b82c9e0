/** A value that does not parse; its message says what was expected. */
export class InvalidValueError extends Error {
  override name = 'InvalidValueError';
}

function invalid(reason: string): never {
  throw new InvalidValueError(reason);
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration in milliseconds from `1500`, `500ms`, `5s`, `2m`, `1h` or a sum such as `1m30s`;
 * throws `InvalidValueError` otherwise.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed));
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    invalid('use milliseconds (1500) or a duration such as 500ms, 5s, 2m, 1h, 1m30s');
  }
  return Math.round(parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNITS[unit], 0));
}

/** A whole number ≥ `min`. */
export function parseWholeNumber(text: string, min = 0): number {
  const value = Number(text.trim());
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    invalid(`use a whole number ≥ ${min}`);
  }
  return value;
}

/** A finite number ≥ 0 (seconds may have a fraction). */
export function parseNonNegative(text: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) invalid('use a number ≥ 0');
  return value;
}

/** `true`/`false` (also yes/no, on/off, 1/0). */
export function parseBoolean(text: string): boolean {
  const lower = text.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(lower)) return true;
  if (['false', 'no', 'off', '0'].includes(lower)) return false;
  invalid('use true or false');
}

const TYPED: Record<string, (raw: string) => unknown> = {
  int: (raw) => {
    if (!/^[+-]?\d+$/.test(raw)) invalid('int: takes an integer, as in int:42');
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : BigInt(raw);
  },
  float: (raw) => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) invalid('float: takes a number, as in float:1.5');
    return n;
  },
  bool: (raw) => {
    const lower = raw.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    invalid('bool: takes true or false, as in bool:true');
  },
  date: (raw) => {
    const ms = Date.parse(raw);
    if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(ms)) {
      invalid('date: takes an ISO 8601 date, as in date:2026-01-01T00:00:00Z');
    }
    return new Date(ms);
  },
  str: (raw) => raw,
  json: (raw) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return invalid('json: takes JSON, as in json:{"a":1}');
    }
  },
};

/** The type prefixes a strike value accepts. */
export const VALUE_TYPES = Object.keys(TYPED);

/**
 * A strike value from the command line: `int:42`, `float:1.5`, `bool:true`,
 * `date:2026-01-01T00:00:00Z`, `json:{"a":1}`, `str:text`; anything else is a string as given.
 */
export function parseTypedValue(text: string): unknown {
  const match = /^([a-z]+):(.*)$/s.exec(text);
  const parse = match ? TYPED[match[1]] : undefined;
  return parse ? parse(match![2]) : text;
}

/** A value as the CLI echoes it: strings quoted, dates in ISO form, numbers bare. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The type prefix a strike value reads back with (`int`, `float`, `bool`, `date`, `str`,
 * `json`): what `parseTypedValue` would need to give that value again. A number with no
 * fraction reads as `int` (`float:2` and `int:2` store the same number).
 */
export function valueType(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Date) return 'date';
  return 'json';
}
