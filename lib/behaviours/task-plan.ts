import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { encodeResult } from '../execution/codec.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import {
  argumentPath,
  argumentValue,
  describeParameters,
  type ArgumentPath,
} from '../explorer/arguments.js';
import { CronSchedule, cronOptions } from './cron.js';

type RuleKind = 'conc' | 'rate' | 'debounce' | 'cooldown';

/** One admission rule of a task, ready to be turned into the JSON the claim script reads. */
interface Rule {
  kind: RuleKind;
  /** Key without the argument part. */
  base: string;
  argument?: ArgumentPath;
  params: Record<string, number | boolean>;
}

/** What a task's options mean for the engine, checked once at boot. */
export interface TaskPlan {
  perpetual?: { every: number; automatic: boolean };
  cron?: { schedule: CronSchedule; automatic: boolean };
  rules: Rule[];
}

const LABELS: Record<RuleKind, string> = {
  conc: 'concurrency',
  rate: 'rateLimit',
  debounce: 'debounce',
  cooldown: 'cooldown',
};

function positive(
  definition: TaskDefinition,
  option: string,
  value: unknown,
  integer = false,
): number {
  const ok =
    typeof value === 'number' &&
    value > 0 &&
    (integer ? Number.isInteger(value) : Number.isFinite(value));
  if (!ok) {
    throw new DocketConfigurationError(
      `task "${definition.name}" (${definition.source}): ${option} must be a ${integer ? 'whole ' : ''}number > 0, not ${String(value)}`,
    );
  }
  return value as number;
}

/** Check a task's options and compile them; throws a boot error naming the task. */
export function compilePlan(definition: TaskDefinition, prefix: string): TaskPlan {
  const { options, name, source } = definition;
  const fail = (problem: string): never => {
    throw new DocketConfigurationError(`task "${name}" (${source}): ${problem}`);
  };
  if (options.perpetual && options.cron) fail('perpetual and cron cannot be combined; choose one');
  const plan: TaskPlan = { rules: [] };
  if (options.retry) {
    const { attempts, delay, maxDelay, backoff } = options.retry;
    if (!(attempts === Infinity || (Number.isInteger(attempts) && attempts >= 1))) {
      fail(`retry.attempts must be a whole number ≥ 1 or Infinity, not ${String(attempts)}`);
    }
    if (delay !== undefined && !(delay >= 0)) fail(`retry.delay must be ≥ 0 ms`);
    if (maxDelay !== undefined && !(maxDelay >= 0)) fail(`retry.maxDelay must be ≥ 0 ms`);
    if (backoff !== undefined && backoff !== 'fixed' && backoff !== 'exponential') {
      fail(`retry.backoff must be 'fixed' or 'exponential'`);
    }
  }
  if (options.timeout !== undefined) positive(definition, 'timeout', options.timeout);
  if (options.perpetual) {
    plan.perpetual = {
      every: positive(definition, 'perpetual.every', options.perpetual.every),
      automatic: options.perpetual.automatic ?? false,
    };
  }
  if (options.cron) {
    const cron = cronOptions(options.cron);
    try {
      plan.cron = { schedule: new CronSchedule(cron), automatic: cron.automatic };
    } catch (error) {
      fail(`cron: ${(error as Error).message}`);
    }
  }
  const ctxCounted = definition.ctxIndex >= 0 && definition.ctxIndex < definition.arity;
  const required = definition.arity - (ctxCounted ? 1 : 0);
  if ((plan.perpetual?.automatic || plan.cron?.automatic) && required > 0) {
    fail(
      `an automatic task is started without arguments, but ${describeParameters(definition)} requires some; give them defaults or set automatic: false`,
    );
  }
  const argument = (option: string, value: string | undefined): ArgumentPath | undefined => {
    if (value === undefined) return undefined;
    const at = argumentPath(definition.parameters, value);
    if (!at) {
      fail(`${option}.argument "${value}" is not a parameter of ${describeParameters(definition)}`);
    }
    return at;
  };
  // `window` tells apart several windows of one kind on one argument (their keys differ).
  const rule = (
    kind: RuleKind,
    arg: string | undefined,
    scope: string | undefined,
    params: Rule['params'],
    window?: number,
  ) => {
    const at = argument(LABELS[kind], arg);
    const span = window === undefined ? '' : `:${window}ms`;
    plan.rules.push({
      kind,
      base: `${prefix}${LABELS[kind]}:${scope ?? name}${span}${at ? `:${at.name}` : ''}`,
      argument: at,
      params,
    });
  };
  const list = <T>(value: T | T[] | undefined): T[] =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];

  for (const c of list(options.cooldown)) {
    const w = positive(definition, 'cooldown.window', c.window);
    rule('cooldown', c.argument, c.scope, { w }, w);
  }
  if (options.debounce) {
    const d = options.debounce;
    rule('debounce', d.argument, d.scope, { s: positive(definition, 'debounce.settle', d.settle) });
  }
  for (const r of list(options.rateLimit)) {
    const p = positive(definition, 'rateLimit.per', r.per);
    rule(
      'rate',
      r.argument,
      r.scope,
      { l: positive(definition, 'rateLimit.limit', r.limit, true), p, d: r.drop === true },
      p,
    );
  }
  if (Array.isArray(options.concurrency) || Array.isArray(options.debounce)) {
    fail('only one concurrency and one debounce option are allowed');
  }
  if (options.concurrency) {
    const c = options.concurrency;
    rule('conc', c.argument, c.scope, { m: positive(definition, 'concurrency.max', c.max, true) });
  }
  return plan;
}

/** The admission JSON of one message for the claim script ('' when the task has no rules). */
export function admissionFor(plan: TaskPlan, args: readonly unknown[], staleAfter: number): string {
  if (plan.rules.length === 0) return '';
  return JSON.stringify(
    plan.rules.map((rule) => {
      let k = rule.base;
      if (rule.argument) {
        let text: string;
        try {
          text = encodeResult(argumentValue(args, rule.argument));
        } catch {
          text = 'unencodable';
        }
        k += `=${text}`;
      }
      return rule.kind === 'conc'
        ? { t: rule.kind, k, ...rule.params, s: staleAfter }
        : { t: rule.kind, k, ...rule.params };
    }),
  );
}
