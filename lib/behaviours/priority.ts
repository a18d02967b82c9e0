import { shown } from './plan-checks.js';

/**
 * Priority: 0 (first) … 9 (last), 5 by default. Each priority's due messages wait in a lane of
 * their own, read in order (store/lua/includes/lanes.lua); retries, successors, deferrals and
 * redeliveries keep it.
 */
export const DEFAULT_PRIORITY = 5;

/** What is wrong with a priority ('' when nothing). */
export function priorityProblem(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 9) return '';
  return `must be a whole number from 0 (first) to 9 (last), not ${shown(value)}`;
}
