import type { ArgumentPath, TaskDefinition } from './task-definition.js';

type Signature = Pick<TaskDefinition, 'name' | 'parameters' | 'rest'>;

/**
 * Resolve an argument name (`'customerId'` or a dotted path `'order.customerId'`) against a
 * task's parameters; undefined when the first segment is not a parameter. With `positional`
 * a position (`'0'`, `'0.customerId'`) names an argument too: a batch task's items have only
 * those, and a strike may use them for any task.
 */
export function argumentPath(
  parameters: readonly (string | null)[],
  name: string,
  positional = true,
): ArgumentPath | undefined {
  const [head, ...path] = name.split('.');
  const index =
    positional && /^(0|[1-9]\d{0,5})$/.test(head) ? Number(head) : parameters.indexOf(head);
  return index < 0 ? undefined : { name, index, path };
}

/** The value of an argument path in a call's arguments (undefined when absent). */
export function argumentValue(args: readonly unknown[], at: ArgumentPath): unknown {
  let value: unknown = args[at.index];
  for (const segment of at.path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** The parameter list of a task for messages: `sendWelcome(userId, locale)`. */
export function describeParameters(definition: Pick<Signature, 'name' | 'parameters'>): string {
  return `${definition.name}(${definition.parameters.map((p) => p ?? '<destructured>').join(', ')})`;
}

/**
 * Why `count` arguments cannot be passed to the task's handler, or undefined when they can.
 * Fewer than declared is a legal call (the missing ones are `undefined`, and TypeScript's
 * optional parameters compile to plain ones); only more than a handler without a rest
 * parameter declares is wrong.
 */
export function argumentCountProblem(definition: Signature, count: number): string | undefined {
  const most = definition.rest ? Infinity : definition.parameters.length;
  if (count <= most) return undefined;
  return `TypeError: ${describeParameters(definition)} takes at most ${most} argument(s), the message has ${count}`;
}
