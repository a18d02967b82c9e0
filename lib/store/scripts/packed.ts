import type { StreamEntry } from '../docket-store.js';

/**
 * One ARGV value that carries many: the hot scripts (claim, finish) take their per-message
 * groups as one JSON array of arrays of strings, which their Lua reads with `cjson.decode`.
 * The client cost of a script call grows with its number of arguments far more than with its
 * bytes, so a batch of 50 ends goes as one argument, not 700.
 *
 * Every value is a string (Lua compares the generation and the times as text), and a string
 * with an unpaired surrogate is made well-formed first: JSON.stringify would escape it as
 * `\udXXX`, which Lua's cjson refuses (the ARGV of a plain call carried it as U+FFFD, as here).
 */
type Row = readonly (string | readonly unknown[])[];

/** String.prototype.toWellFormed (Node.js 20), not yet in the ES2023 typings. */
type WellFormed = string & { toWellFormed(): string };

/** Lone surrogates in JSON.stringify's output are escapes `\ud800` … `\udfff`. */
const SURROGATE_ESCAPE = /\\ud[89a-f]/i;

export function packRows(rows: readonly Row[]): string {
  const json = JSON.stringify(rows);
  if (!SURROGATE_ESCAPE.test(json)) return json;
  return JSON.stringify(rows, (_, value: unknown) =>
    typeof value === 'string' ? (value as WellFormed).toWellFormed() : value,
  );
}

/** A row without its trailing empty strings (the Lua side reads a missing value as ''). */
export function trimmed<T>(row: (T | string)[]): (T | string)[] {
  while (row.length > 0 && row[row.length - 1] === '') row.pop();
  return row;
}

/**
 * The reply of a script that answers one JSON text `[statuses, messages read along]` (claim,
 * finish); an empty Lua table encodes as `{}`.
 */
export function unpackStatusesAndRead<S>(reply: unknown): { statuses: S[]; read: StreamEntry[] } {
  const [statuses, read] = JSON.parse(reply as string) as [S[] | object, StreamEntry[] | object];
  return {
    statuses: Array.isArray(statuses) ? statuses : [],
    read: Array.isArray(read) ? read : [],
  };
}
