import type { Command } from 'commander';
import type { StrikeCondition, StrikeInEffect, StrikeOperator } from '../../public-api.js';
import { CliError, usageError } from '../cli-error.js';
import { targetOf, withDocket, type Docket, type Target } from '../context.js';
import { color, jsonReplacer, table, toJson } from '../format.js';
import { jsonOption } from '../options.js';
import { describeValue, InvalidValueError, parseTypedValue } from '../../util/typed-value.js';

const OPERATORS: readonly StrikeOperator[] = ['==', '!=', '>', '>=', '<', '<=', 'between'];

const wildcard = (text: string | undefined): string | undefined =>
  text === undefined || text === '' || text === '*' ? undefined : text;

/** A typed value; a number given as plain text is a string, and a note on stderr says so. */
function typedValue(text: string): unknown {
  try {
    const value = parseTypedValue(text);
    if (typeof value === 'string' && /^[+-]?\d+(\.\d+)?$/.test(text)) {
      console.error(
        `note: ${text} is the string "${text}"; write int:${text} or float:${text} for a number`,
      );
    }
    return value;
  } catch (error) {
    if (error instanceof InvalidValueError) throw usageError(`value "${text}": ${error.message}`);
    throw error;
  }
}

/** The condition that `[task] [parameter] [operator] [value...]` describe. */
export function strikeCondition(
  task: string | undefined,
  parameter: string | undefined,
  operator: string | undefined,
  values: unknown[],
): StrikeCondition {
  const condition: StrikeCondition = { task: wildcard(task), parameter: wildcard(parameter) };
  if (!condition.task && !condition.parameter) {
    throw usageError('give a task, a parameter, or both (* stands for any)');
  }
  if (!condition.parameter) {
    if (operator !== undefined) throw usageError('an operator needs a parameter to compare');
    return condition;
  }
  const op = (operator ?? '==') as StrikeOperator;
  if (!OPERATORS.includes(op)) {
    throw usageError(`operator "${operator}" is not one of ${OPERATORS.join(' ')}`);
  }
  if (op === 'between') {
    if (values.length !== 2) throw usageError('between takes two values: low and high');
    return { ...condition, operator: op, value: values };
  }
  if (values.length !== 1) {
    throw usageError(
      `${op} takes one value, as in: ${condition.task ?? '*'} ${condition.parameter} ${op} int:42`,
    );
  }
  return { ...condition, operator: op, value: values[0] };
}

/** `sendWelcome customerId == 7`, `(all tasks) region == "eu"`, `sendWelcome`. */
export function describeCondition(c: StrikeCondition): string {
  const parts = [typeof c.task === 'string' ? c.task : '(all tasks)'];
  if (c.parameter) {
    parts.push(c.parameter, c.operator ?? '==');
    if (c.operator === 'between') {
      const [low, high] = c.value as unknown[];
      parts.push(describeValue(low), 'and', describeValue(high));
    } else {
      parts.push(describeValue(c.value));
    }
  }
  return parts.join(' ');
}

/**
 * `value` as `strike` and `restore` take it: `int:7`, `float:1.5`, `bool:true`, `date:…`,
 * `json:…`, or a string as it is (`str:…` when it would read as something else).
 */
function typedArgument(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value !== '' && parseTypedValue(value) === value && !/^[+-]?\d+(\.\d+)?$/.test(value)
        ? value
        : `str:${value}`;
    case 'number':
      return Number.isSafeInteger(value) ? `int:${value}` : `float:${value}`;
    case 'bigint':
      return `int:${value}`;
    case 'boolean':
      return `bool:${value}`;
    default:
      if (value instanceof Date) return `date:${value.toISOString()}`;
      return `json:${JSON.stringify(value, jsonReplacer) ?? 'null'}`;
  }
}

/** The arguments of `docket restore` that lift the strike given with `c`. */
function conditionArguments(c: StrikeCondition): string[] {
  const task = typeof c.task === 'string' ? c.task : '*';
  if (!c.parameter) return [task];
  const values = c.operator === 'between' ? (c.value as unknown[]) : [c.value];
  return [task, c.parameter, c.operator ?? '==', ...values.map(typedArgument)];
}

/** A strike in effect for `--json`: its condition, and the arguments that restore it. */
function strikeJson({ condition: c }: StrikeInEffect) {
  return {
    task: typeof c.task === 'string' ? c.task : null,
    parameter: c.parameter ?? null,
    operator: c.parameter ? (c.operator ?? '==') : null,
    value: c.parameter ? c.value : null,
    arguments: conditionArguments(c),
  };
}

/** The strikes in effect as a table whose cells are the arguments that restore each one. */
function renderStrikes(strikes: StrikeInEffect[]): string {
  return table(
    ['Task', 'Parameter', 'Operator', 'Value'],
    strikes.map(({ condition }) => {
      const [task, parameter = '', operator = '', ...values] = conditionArguments(condition);
      return [task, parameter, operator, values.join(' ')];
    }),
  );
}

/** `docket strikes [--json]`: the strikes in effect. */
function registerList(program: Command): void {
  program
    .command('strikes')
    .description('list the strikes in effect')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const strikes = await withDocket(target, ({ inspector }) => inspector.strikes());
      if (flags.json) console.log(toJson(strikes.map(strikeJson)));
      else if (strikes.length === 0) console.log(`No strikes in effect in docket '${target.name}'`);
      else {
        console.log(`Strikes in effect in docket '${target.name}' (* = any task)`);
        console.log(renderStrikes(strikes));
        console.log(color.dim('Lift one with docket restore and the same arguments.'));
      }
    });
}

/** Lift the strike given with `condition`; an error when no strike in effect has it. */
async function restore(docket: Docket, target: Target, condition: StrikeCondition): Promise<void> {
  const wanted = describeCondition(condition);
  const before = await docket.inspector.strikes();
  const inEffect = () =>
    before.length === 0
      ? 'no strike is in effect'
      : `in effect: ${before.map((s) => conditionArguments(s.condition).join(' ')).join('; ')}`;
  const fail = () =>
    new CliError(`no strike ${wanted} is in effect in docket '${target.name}' (${inEffect()})`);
  // the description tells apart what the strike log does, except in corner cases of values:
  // the list read after the restore decides
  if (!before.some((s) => describeCondition(s.condition) === wanted)) throw fail();
  await docket.client.restore(condition);
  const after = new Set((await docket.inspector.strikes()).map((s) => s.id));
  if (before.every((s) => after.has(s.id))) throw fail();
}

function register(program: Command, verb: 'strike' | 'restore'): void {
  const summary =
    verb === 'strike'
      ? 'block adds and queued tasks that match, in every process of the docket'
      : 'lift a strike given with the same condition (docket strikes lists them)';
  program
    .command(verb)
    .description(summary)
    .argument('[task]', 'task name, or * for any task')
    .argument('[parameter]', 'parameter name or dotted path, or * for none')
    .argument('[operator]', `one of ${OPERATORS.join(' ')} (default ==)`)
    .argument(
      '[value...]',
      'int:42 float:1.5 bool:true date:2026-01-01T00:00:00Z json:{…} str:text, or text',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  docket ${verb} sendWelcome\n  docket ${verb} sendWelcome customerId == int:7\n` +
        `  docket ${verb} '*' region == eu\n  docket ${verb} report amount between float:10 float:99.5`,
    )
    .action(
      async (
        task: string | undefined,
        parameter: string | undefined,
        operator: string | undefined,
        values: string[] | undefined,
        _flags: unknown,
        cmd: Command,
      ) => {
        const condition = strikeCondition(
          task,
          parameter,
          operator,
          (values ?? []).map(typedValue),
        );
        const target = targetOf(cmd);
        if (verb === 'restore') {
          await withDocket(target, (docket) => restore(docket, target, condition));
          console.log(`Restored ${describeCondition(condition)}`);
          return;
        }
        console.log(`Striking ${describeCondition(condition)}`);
        // a strike on a docket nobody uses is legal (it waits for it), but often a typo
        await withDocket(target, ({ client }) => client.strike(condition), { used: 'warn' });
      },
    );
}

/** `docket strikes`, `docket strike` and `docket restore`. */
export function registerStrikes(program: Command): void {
  registerList(program);
  register(program, 'strike');
  register(program, 'restore');
}
