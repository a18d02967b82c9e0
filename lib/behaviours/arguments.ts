import type { TaskDefinition } from '../explorer/task-definition.js';

/** Where an argument named by a task option lives: parameter position and path inside it. */
export interface ArgumentPath {
  name: string;
  index: number;
  path: string[];
}

/**
 * Resolve an argument name (`'customerId'` or a dotted path `'order.customerId'`) against a
 * task's parameters; undefined when the first segment is not a parameter.
 */
export function argumentPath(
  parameters: readonly (string | null)[],
  name: string,
): ArgumentPath | undefined {
  const [head, ...path] = name.split('.');
  const index = parameters.indexOf(head);
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
export function describeParameters(definition: TaskDefinition): string {
  return `${definition.name}(${definition.parameters.map((p) => p ?? '<destructured>').join(', ')})`;
}
