import type { StrikeOperator } from '../interfaces/strike-condition.interface.js';
import { argumentPath, argumentValue } from '../explorer/arguments.js';

/** A strike as stored: `task` and `parameter` null mean "any". */
export interface Strike {
  task: string | null;
  parameter: string | null;
  operator: StrikeOperator;
  value: unknown;
}

export const OPERATORS: ReadonlySet<string> = new Set([
  '==',
  '!=',
  '>',
  '>=',
  '<',
  '<=',
  'between',
]);

type Comparable = number | bigint | string | boolean | Date | null;

function kind(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : 'date';
  const t = typeof value;
  if (t === 'number') return Number.isNaN(value) ? undefined : 'number';
  return t === 'bigint' || t === 'string' || t === 'boolean' ? t : undefined;
}

/** -1, 0, 1, or undefined when the two values are not of one comparable type (no coercion). */
function compare(a: unknown, b: unknown, ordered: boolean): number | undefined {
  const k = kind(a);
  if (k === undefined || k !== kind(b)) return undefined;
  if (ordered && (k === 'null' || k === 'boolean')) return undefined;
  const x = k === 'date' ? (a as Date).getTime() : (a as Comparable);
  const y = k === 'date' ? (b as Date).getTime() : (b as Comparable);
  return x === y ? 0 : (x as number) < (y as number) ? -1 : 1;
}

/** Whether `value` satisfies `operator` against the strike's value; incomparable → false. */
export function satisfies(value: unknown, operator: StrikeOperator, target: unknown): boolean {
  switch (operator) {
    case '==':
      return compare(value, target, false) === 0;
    case '!=': {
      const c = compare(value, target, false);
      return c !== undefined && c !== 0;
    }
    case '>':
      return (compare(value, target, true) ?? 0) > 0;
    case '>=': {
      const c = compare(value, target, true);
      return c !== undefined && c >= 0;
    }
    case '<':
      return (compare(value, target, true) ?? 0) < 0;
    case '<=': {
      const c = compare(value, target, true);
      return c !== undefined && c <= 0;
    }
    case 'between': {
      if (!Array.isArray(target) || target.length !== 2) return false;
      const low = compare(value, target[0], true);
      const high = compare(value, target[1], true);
      return low !== undefined && high !== undefined && low >= 0 && high <= 0;
    }
  }
}

function identity(strike: Strike, encodedValue: string): string {
  return JSON.stringify([strike.task, strike.parameter, strike.operator, encodedValue]);
}

/** The strikes in effect, as replayed from the strike log. */
export class StrikeList {
  private readonly strikes = new Map<string, Strike>();

  get size(): number {
    return this.strikes.size;
  }

  /** Apply one entry of the log. */
  apply(op: string, strike: Strike, encodedValue: string): void {
    const id = identity(strike, encodedValue);
    if (op === 'strike') this.strikes.set(id, strike);
    else this.strikes.delete(id);
  }

  /** The strikes in effect with their identity, oldest first. */
  entries(): { id: string; strike: Strike }[] {
    return [...this.strikes].map(([id, strike]) => ({ id, strike }));
  }

  /** Whether a whole-task strike stops `task` (whatever its arguments). */
  isTaskStruck(task: string): boolean {
    for (const s of this.strikes.values()) {
      if (s.parameter === null && (s.task === null || s.task === task)) return true;
    }
    return false;
  }

  /**
   * Whether a call of `task` with `args` is struck. Parameter strikes need the task's
   * parameter names; without them only whole-task strikes can match.
   */
  matches(
    task: string,
    parameters: readonly (string | null)[] | undefined,
    args: readonly unknown[],
  ): boolean {
    if (this.strikes.size === 0) return false;
    for (const s of this.strikes.values()) {
      if (s.task !== null && s.task !== task) continue;
      if (s.parameter === null) {
        if (s.task !== null) return true;
        continue;
      }
      if (!parameters) continue;
      const at = argumentPath(parameters, s.parameter);
      if (at && satisfies(argumentValue(args, at), s.operator, s.value)) return true;
    }
    return false;
  }
}
