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
    context.fail(`${option} must be a ${integer ? 'whole ' : ''}number > 0, not ${String(value)}`);
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
    at = argumentPath(context.definition.parameters, options.argument);
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
