import Table from 'cli-table3';
import pc from 'picocolors';

/**
 * Colours only on a terminal: off when stdout is piped or NO_COLOR is set, on when
 * FORCE_COLOR asks for them.
 */
export const useColor =
  !process.env.NO_COLOR && (process.stdout.isTTY === true || !!process.env.FORCE_COLOR);

/** picocolors bound to `useColor`. */
export const color = pc.createColors(useColor);

const STEPS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** A span of time in at most two units: `850ms`, `3s`, `2m 5s`, `1h 3m`, `2d 4h`. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(abs)}ms`;
  const rounded = Math.round(abs / 1_000) * 1_000;
  const i = STEPS.findIndex(([, size]) => rounded >= size);
  const [unit, size] = STEPS[i];
  const n = Math.floor(rounded / size);
  const next = STEPS[i + 1];
  const m = next ? Math.floor((rounded - n * size) / next[1]) : 0;
  return m > 0 ? `${n}${unit} ${m}${next[0]}` : `${n}${unit}`;
}

/** `date` relative to `now`: `in 3s`, `2m ago`, `now` (within a second). */
export function relative(date: Date, now: Date = new Date()): string {
  const delta = date.getTime() - now.getTime();
  if (!Number.isFinite(delta)) return '-';
  if (Math.abs(delta) < 1_000) return 'now';
  const span = formatDuration(Math.abs(delta));
  return delta > 0 ? `in ${span}` : `${span} ago`;
}

/** A local wall-clock time, `14:03:05`. */
export function clock(date: Date): string {
  return date.toLocaleTimeString('en-GB', { hour12: false });
}

/** A table with a bold header row; no colour codes unless `useColor`. */
export function table(head: string[], rows: string[][]): string {
  const t = new Table({
    head: head.map((h) => color.bold(h)),
    style: { head: [], border: [] },
  });
  t.push(...rows);
  return t.toString();
}

/** Cut `text` to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Task arguments on one line for a table cell (raw text when they could not be decoded). */
export function formatArgs(args: unknown[] | string, max = 40): string {
  if (typeof args === 'string') return truncate(args, max);
  return truncate(args.map((a) => JSON.stringify(a, jsonReplacer) ?? 'undefined').join(', '), max);
}

/**
 * JSON.stringify replacer for values the codec carries but JSON does not: BigInt as a string,
 * Map as an object of entries, Set as an array. Dates and Buffers serialize themselves.
 */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

/** `value` as indented JSON for scripts. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, jsonReplacer, 2);
}

/** A count with its thousands apart: `950`, `1 000`, `50 000`. */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ' ');
}

/** `n thing` / `n things`. */
export function plural(n: number, thing: string): string {
  return `${count(n)} ${thing}${n === 1 ? '' : 's'}`;
}

/**
 * What is paused, in words, or undefined when nothing is: `paused: the whole docket (and by
 * name: a, b)`, `paused by name: a, b`; with `held` due tasks waiting for a pause,
 * `…; 3 queued task(s) held`.
 */
export function describePaused(
  paused: { docket: boolean; tasks: string[] },
  held = 0,
): string | undefined {
  const names = paused.tasks.join(', ');
  let text: string;
  if (paused.docket) text = `paused: the whole docket${names ? ` (and by name: ${names})` : ''}`;
  else if (names) text = `paused by name: ${names}`;
  else return undefined;
  return held > 0 ? `${text}; ${count(held)} queued task(s) held` : text;
}
