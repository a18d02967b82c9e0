import { argumentPath, describeParameters } from '../explorer/arguments.js';
import type {
  ArgumentPath,
  RuleKind,
  RuleTemplate,
  TaskDefinition,
} from '../explorer/task-definition.js';

/** What a behaviour's compile step needs: the task, and how to fail the boot naming it. */
export interface PlanContext {
  definition: Omit<TaskDefinition, 'plan'>;
  fail(problem: string): never;
}

/** A value as an error message shows it: `"5s"` for a string, `missing`, `an object`… */
export function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return String(value);
}

/** The options `@DocketTask` takes, and the fields of each object option. */
const TASK_OPTIONS: Record<string, readonly string[] | null> = {
  name: null,
  retry: ['attempts', 'delay', 'backoff', 'maxDelay'],
  timeout: null,
  perpetual: ['every', 'automatic'],
  cron: ['expression', 'tz', 'automatic'],
  concurrency: ['max', 'argument', 'scope'],
  rateLimit: ['limit', 'per', 'argument', 'drop', 'scope'],
  debounce: ['settle', 'argument', 'scope'],
  cooldown: ['window', 'argument', 'scope'],
  priority: null,
  batch: ['size', 'lingerMs'],
};

/** Options that may be a list of objects. */
const LISTS = new Set(['rateLimit', 'cooldown']);

/**
 * Every option is one `@DocketTask` knows, and every object option is an object (or a list of
 * them where allowed; a string for `cron`) with known fields: a boot error names the option.
 */
export function checkShapes(context: PlanContext, options: object): void {
  const known = Object.keys(TASK_OPTIONS);
  for (const [option, value] of Object.entries(options)) {
    if (!(option in TASK_OPTIONS)) {
      context.fail(`unknown option "${option}" (@DocketTask takes ${known.join(', ')})`);
    }
    const fields = TASK_OPTIONS[option];
    if (fields === null || value === undefined) continue;
    if (option === 'cron' && typeof value === 'string') continue;
    const items = LISTS.has(option) && Array.isArray(value) ? (value as unknown[]) : [value];
    for (const item of items) {
      const form = `{ ${fields.join(', ')} }`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        const alternatives =
          option === 'cron'
            ? `a cron expression or ${form}`
            : LISTS.has(option)
              ? `${form} or a list of them`
              : form;
        context.fail(`${option} must be ${alternatives}, not ${shown(item)}`);
      }
      for (const field of Object.keys(item)) {
        if (!fields.includes(field)) {
          context.fail(`${option} has no field "${field}" (it takes ${fields.join(', ')})`);
        }
      }
    }
  }
}

/** A number > 0 (a whole one when `integer`), else a boot error naming the option. */
export function positive(
  context: PlanContext,
  option: string,
  value: unknown,
  integer = false,
): number {
  const ok =
    typeof value === 'number' &&
    value > 0 &&
    (integer ? Number.isInteger(value) : Number.isFinite(value));
  if (!ok)
    context.fail(`${option} must be a ${integer ? 'whole ' : ''}number > 0, not ${shown(value)}`);
  return value as number;
}

const LABELS: Record<RuleKind, string> = {
  conc: 'concurrency',
  rate: 'rateLimit',
  debounce: 'debounce',
  cooldown: 'cooldown',
};

/**
 * A rule of `kind`: its key names the behaviour, the scope (or the task), the window when
 * one task has several of one kind, and the argument whose value completes it.
 */
export function ruleTemplate(
  context: PlanContext,
  kind: RuleKind,
  options: { argument?: string; scope?: string },
  params: RuleTemplate['params'],
  window?: number,
): RuleTemplate {
  const label = LABELS[kind];
  let at: ArgumentPath | undefined;
  if (options.argument !== undefined) {
    // only a batch task names arguments by position (its items' arguments have no names)
    const positional = context.definition.options.batch !== undefined;
    at = argumentPath(context.definition.parameters, options.argument, positional);
    if (!at) {
      context.fail(
        `${label}.argument "${options.argument}" is not a parameter of ${describeParameters(context.definition)}`,
      );
    }
  }
  const span = window === undefined ? '' : `:${window}ms`;
  const scope = options.scope ?? context.definition.name;
  return {
    kind,
    base: `${label}:${scope}${span}${at ? `:${at.name}` : ''}`,
    argument: at,
    params,
  };
}

/** `value` as a list (an option may be one rule or several). */
export function list<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
