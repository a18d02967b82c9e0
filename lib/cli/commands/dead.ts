import type { Command } from 'commander';
import type { DeadLetter } from '../../public-api.js';
import { CliError, usageError } from '../cli-error.js';
import { confirm, yesOption } from '../confirm.js';
import { describeTarget, targetOf, withDocket } from '../context.js';
import { formatArgs, plural, relative, table, toJson, truncate } from '../format.js';
import { jsonOption } from '../options.js';

/** Dead letters as a table, oldest first. */
export function renderDeadLetters(letters: DeadLetter[]): string {
  const now = new Date();
  return table(
    ['Key', 'Task', 'Args', 'Error', 'Attempt', 'Dead'],
    letters.map((l) => [
      l.key,
      l.taskName,
      formatArgs(l.args),
      truncate(l.error, 60),
      String(l.attempt),
      relative(l.deadAt, now),
    ]),
  );
}

/** `docket dead ls | retry <key> | retry --all | purge`. */
export function registerDead(program: Command): void {
  const dead = program
    .command('dead')
    .description('dead letters: messages that could not run, executions that failed for good');
  dead
    .command('ls')
    .description('list dead letters')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const letters = await withDocket(target, ({ client }) => client.deadLetters());
      if (flags.json) console.log(toJson(letters));
      else if (letters.length === 0) console.log(`No dead letters in docket '${target.name}'`);
      else console.log(renderDeadLetters(letters));
    });
  dead
    .command('retry')
    .description('schedule dead letters again, now, with their key and arguments')
    .argument('[key]', 'key of the dead letter')
    .option('--all', 'retry every dead letter')
    .action(async (key: string | undefined, flags: { all?: boolean }, cmd: Command) => {
      if (!key === !flags.all) throw usageError('give a key or --all (not both)');
      const target = targetOf(cmd);
      const retried = await withDocket(target, ({ client }) =>
        client.retryDeadLetter(key ?? { all: true }),
      );
      if (key !== undefined && retried === 0) {
        throw new CliError(
          `no dead letter with key '${key}' in docket '${target.name}' could be retried`,
        );
      }
      console.log(`Retried ${plural(retried, 'dead letter')} in docket '${target.name}'`);
    });
  dead
    .command('purge')
    .description('delete every dead letter; asks first')
    .addOption(yesOption())
    .action(async (flags: { yes?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      await withDocket(target, async ({ client, inspector }) => {
        const { deadLetters } = await inspector.depths();
        const where = describeTarget(target);
        const go = await confirm(
          {
            count: deadLetters,
            plan: `Purging ${where} deletes ${plural(deadLetters, 'dead letter')}`,
            nothing: `Nothing to purge in ${where}: no dead letters`,
          },
          flags.yes,
        );
        if (!go) return;
        const purged = await client.purgeDeadLetters();
        console.log(`Purged ${plural(purged, 'dead letter')} from docket '${target.name}'`);
      });
    });
}
