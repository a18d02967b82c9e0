import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { targetOf, withDocket } from '../context.js';
import { clock, relative, toJson } from '../format.js';
import { jsonOption } from '../options.js';
import { unknownTask } from '../../util/unknown-task.js';

/** `docket explain <key>`: why a task is where it is. */
export function registerExplain(program: Command): void {
  program
    .command('explain')
    .description(
      'why a task is where it is: scheduled, queued behind N, paused, waiting for a slot, …',
    )
    .argument('<key>', 'the task key')
    .addOption(jsonOption())
    .action(async (key: string, flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const why = await withDocket(target, async ({ inspector }) => {
        const explanation = await inspector.explain(key);
        if (explanation.state === 'missing') {
          throw new CliError(unknownTask(key, `docket '${target.name}'`));
        }
        return explanation;
      });
      if (flags.json) {
        console.log(toJson(why));
        return;
      }
      const now = new Date();
      const times = [
        why.since ? `since ${clock(why.since)} (${relative(why.since, now)})` : '',
        why.until ? `until ${clock(why.until)} (${relative(why.until, now)})` : '',
      ].filter(Boolean);
      console.log(
        `${key}: ${why.state}, ${why.reason}${times.length ? ` ${times.join(' ')}` : ''}`,
      );
      console.log(`  ${why.detail}`);
    });
}
