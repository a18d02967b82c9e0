import { priorityProblem } from '../behaviours/priority.js';
import { OPERATORS } from '../behaviours/strike-list.js';
import { PayloadTooLargeError } from '../errors/payload-too-large.error.js';
import { encodeArgs } from '../execution/codec.js';
import type { AddOptions, DependencyRef } from '../interfaces/execution.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';

/** The largest time a `Date` holds (±8.64e15 ms around the epoch). */
const MAX_TIME = 8.64e15;

/** The epoch ms `options` ask for (`when`, `delay` from now, or now); a TypeError for a bad one. */
export function requestedTime(options: AddOptions): number {
  if (options.when !== undefined && options.delay !== undefined) {
    throw new TypeError('give "when" or "delay", not both');
  }
  if (options.when !== undefined) {
    const ms = options.when instanceof Date ? options.when.getTime() : NaN;
    if (!Number.isFinite(ms)) throw new TypeError('"when" must be a valid Date');
    return ms;
  }
  if (options.delay !== undefined) {
    if (typeof options.delay !== 'number' || !Number.isFinite(options.delay)) {
      throw new TypeError('"delay" must be a finite number of milliseconds');
    }
    const ms = Date.now() + options.delay;
    if (Math.abs(ms) > MAX_TIME) {
      throw new TypeError(`"delay" of ${options.delay} ms is past the last time a Date can hold`);
    }
    return ms;
  }
  return Date.now();
}

/** The priority of an add: its own, else the task's; a TypeError for a bad one. */
export function requestedPriority(options: AddOptions, taskDefault: number): number {
  if (options.priority === undefined) return taskDefault;
  const problem = priorityProblem(options.priority);
  if (problem) throw new TypeError(`"priority" ${problem}`);
  return options.priority;
}

/**
 * The arguments of one call encoded (a TypeError names one that cannot be) and their size in
 * bytes, checked against `maxPayloadBytes` (`PayloadTooLargeError`).
 */
export function encodedArgs(
  args: readonly unknown[],
  taskName: string,
  key: string,
  maxPayloadBytes: number,
): { encoded: string; bytes: number } {
  const encoded = encodeArgs(args);
  const bytes = Buffer.byteLength(encoded);
  if (bytes > maxPayloadBytes) {
    throw new PayloadTooLargeError(
      `arguments of task "${taskName}" (key ${key}) are ${bytes} bytes serialized; ` +
        `maxPayloadBytes is ${maxPayloadBytes}`,
    );
  }
  return { encoded, bytes };
}

/**
 * A TypeError unless `key` is a non-empty string of at most `maxBytes` UTF-8 bytes; `what`
 * names the call for the message.
 */
export function checkKey(key: unknown, maxBytes: number, what: string): string {
  if (typeof key !== 'string' || key === '') {
    throw new TypeError(`${what}: a task key is a non-empty string, not ${describe(key)}`);
  }
  // a UTF-16 unit takes at most 3 bytes in UTF-8: most keys need no counting
  if (key.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(key);
    if (bytes > maxBytes) {
      throw new TypeError(
        `${what}: a task key is at most ${maxBytes} bytes (maxKeyBytes), this one has ${bytes}`,
      );
    }
  }
  return key;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'an empty string';
  if (value === undefined || value === null) return String(value);
  return `a ${typeof value}`;
}

/** A TypeError naming what is wrong with a strike condition (the task already resolved). */
export function checkStrikeCondition(condition: StrikeCondition, task: string): string {
  const operator = condition.operator ?? '==';
  if (!OPERATORS.has(operator)) {
    throw new TypeError(`strike operator "${operator}" is not one of ${[...OPERATORS].join(' ')}`);
  }
  if (!task && !condition.parameter) {
    throw new TypeError('a strike needs a task, a parameter, or both');
  }
  if (operator === 'between' && (!Array.isArray(condition.value) || condition.value.length !== 2)) {
    throw new TypeError('the value of a "between" strike is [low, high]');
  }
  return operator;
}

/**
 * The keys an add waits for (`after`: keys or executions) and what their failure does; none
 * when `after` is absent or empty. A TypeError for a bad key or option.
 */
export function requestedAfter(
  options: AddOptions,
  maxKeyBytes: number,
  what: string,
): { keys: string[]; onFailure: 'fail' | 'run' } | undefined {
  const { after, onDependencyFailure: onFailure = 'fail' } = options;
  if (onFailure !== 'fail' && onFailure !== 'run') {
    throw new TypeError(`"onDependencyFailure" is 'fail' or 'run', not ${String(onFailure)}`);
  }
  if (after === undefined) return undefined;
  const refs: readonly DependencyRef[] = Array.isArray(after) ? after : [after as DependencyRef];
  const keys = refs.map((ref) => {
    const key = typeof ref === 'string' ? ref : (ref as { key?: unknown } | null)?.key;
    if (typeof key !== 'string') {
      throw new TypeError(`${what}: "after" takes keys or executions, not ${String(ref)}`);
    }
    return checkKey(key, maxKeyBytes, what);
  });
  return keys.length > 0 ? { keys, onFailure } : undefined;
}
