import type { Command } from 'commander';
import type { StrikeCondition, StrikeOperator } from '../../public-api.js';
import { usageError } from '../cli-error.js';
import { targetOf, withClient } from '../context.js';
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

function register(program: Command, verb: 'strike' | 'restore'): void {
  const [gerund, summary] =
    verb === 'strike'
      ? ['Striking', 'block adds and queued tasks that match, in every process of the docket']
      : ['Restoring', 'lift a strike given with the same condition'];
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
        console.log(`${gerund} ${describeCondition(condition)}`);
        await withClient(target, (client) => client[verb](condition));
      },
    );
}

/** `docket strike` and `docket restore`. */
export function registerStrikes(program: Command): void {
  register(program, 'strike');
  register(program, 'restore');
}
