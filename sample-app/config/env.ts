/**
 * Typed reads of environment variables. A value that is set but malformed fails the boot with
 * a sentence that names the variable, rather than running with a silent default.
 */

function raw(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function invalid(name: string, value: string, expected: string): never {
  throw new Error(`environment variable ${name}=${JSON.stringify(value)}: expected ${expected}`);
}

/** A text value, or `fallback` when unset or empty. */
export function text(name: string, fallback: string): string;
export function text(name: string): string | undefined;
export function text(name: string, fallback?: string): string | undefined {
  return raw(name) ?? fallback;
}

/** A whole number ≥ `min`, or `fallback` when unset. */
export function wholeNumber(name: string, fallback: number, min?: number): number;
export function wholeNumber(name: string, fallback?: undefined, min?: number): number | undefined;
export function wholeNumber(name: string, fallback?: number, min = 0): number | undefined {
  const value = raw(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
    invalid(name, value, `a whole number ≥ ${min}`);
  }
  return n;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration in milliseconds: `1500`, or with units as the `docket` CLI takes them (`500ms`,
 * `30s`, `5m`, `1m30s`), so one environment serves both; `fallback` when unset.
 */
export function duration(name: string, fallback: number): number;
export function duration(name: string): number | undefined;
export function duration(name: string, fallback?: number): number | undefined {
  const value = raw(name);
  if (value === undefined) return fallback;
  if (/^\d+$/.test(value)) return Number(value);
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) {
    invalid(name, value, 'milliseconds (1500) or a duration such as 500ms, 30s, 5m, 1m30s');
  }
  return Math.round(parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNITS[unit], 0));
}

/** `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`), or `fallback` when unset. */
export function flag(name: string, fallback: boolean): boolean {
  const value = raw(name);
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  return invalid(name, value, 'true or false');
}

/** One of `choices`, or `fallback` when unset. */
export function oneOf<const T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const value = raw(name);
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value)) {
    invalid(name, value, `one of ${choices.join(', ')}`);
  }
  return value as T;
}
