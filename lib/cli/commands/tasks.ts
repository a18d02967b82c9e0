import type { Command } from 'commander';
import type { DocketClient } from '../../public-api.js';
import { targetOf, withDocket, type Target } from '../context.js';
import { formatDuration } from '../format.js';
import { argParser } from '../options.js';
import { parseDuration, parseNonNegative } from '../../util/typed-value.js';

interface AddFlags {
  delay?: number;
  key?: string;
}

/** Add the built-in task `task` with `args` and say what became of it. */
async function addBuiltin(
  client: DocketClient,
  target: Target,
  task: string,
  args: unknown[],
  flags: AddFlags,
): Promise<string> {
  const execution = await client.add(task, { key: flags.key, delay: flags.delay })(...args);
  const where = `docket '${target.name}'`;
  switch (execution.disposition) {
    case 'struck':
      return `Struck: ${task} task '${execution.key}' matches a strike in ${where} and was not added`;
    case 'already_scheduled':
      return `Task key '${execution.key}' is already ${execution.state} in ${where}; nothing added`;
    default: {
      const due = flags.delay ? ` (due in ${formatDuration(flags.delay)})` : '';
      return `Added ${task} task '${execution.key}' to ${where}${due}`;
    }
  }
}

function builtin(
  tasks: Command,
  name: string,
  description: string,
  argument: [string, string, unknown, ((text: string) => unknown)?],
): void {
  const [flags, help, fallback, parse] = argument;
  const command = tasks.command(name).description(description);
  if (parse) command.argument(flags, help, argParser(parse), fallback);
  else command.argument(flags, help, fallback);
  command
    .option(
      '--delay <duration>',
      'run after this long (ms, or 500ms, 5s, 2m, 1h)',
      argParser(parseDuration),
    )
    .option('--key <key>', 'task key (default: a fresh UUIDv7)')
    .action(async (value: unknown, flags: AddFlags, cmd: Command) => {
      const target = targetOf(cmd);
      // adding to a docket never used is how a docket starts
      const message = await withDocket(
        target,
        ({ client }) => addBuiltin(client, target, name, [value], flags),
        { used: false },
      );
      console.log(message);
    });
}

/** `docket tasks trace|fail|sleep`: add a built-in task, for smoke tests. */
export function registerTasks(program: Command): void {
  const tasks = program.command('tasks').description('add a built-in task (smoke tests)');
  builtin(tasks, 'trace', 'add trace(message): logs the message on the worker', [
    '[message]',
    'message to log',
    'Howdy!',
  ]);
  builtin(tasks, 'fail', 'add fail(message): throws an Error with the message', [
    '[message]',
    'error message',
    'Alas!',
  ]);
  builtin(tasks, 'sleep', 'add sleep(seconds): waits that long', [
    '[seconds]',
    'seconds to sleep',
    1,
    parseNonNegative,
  ]);
}
