import { OPERATORS } from '../behaviours/strike-list.js';
import type { AddOptions } from '../interfaces/execution.interface.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';

/** The epoch ms `options` ask for (`when`, `delay` from now, or now); a TypeError for a bad one. */
export function requestedTime(options: AddOptions): number {
  if (options.when !== undefined) {
    const ms = options.when instanceof Date ? options.when.getTime() : NaN;
    if (!Number.isFinite(ms)) throw new TypeError('"when" must be a valid Date');
    return ms;
  }
  if (options.delay !== undefined) {
    if (typeof options.delay !== 'number' || !Number.isFinite(options.delay)) {
      throw new TypeError('"delay" must be a number of milliseconds');
    }
    return Date.now() + options.delay;
  }
  return Date.now();
}

/** A TypeError unless `key` is undefined or a non-empty string. */
export function checkOptionalKey(key: unknown): void {
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new TypeError(`a task key must be a non-empty string, not ${JSON.stringify(key)}`);
  }
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
