import type { Command } from 'commander';
import { confirm, yesOption } from '../confirm.js';
import { describeTarget, targetOf, withDocket } from '../context.js';
import { count, plural } from '../format.js';

/**
 * `docket clear [--yes]`: remove every queued and scheduled task; running ones go on. It says
 * first what it would remove, and asks (see `confirm`).
 */
export function registerClear(program: Command): void {
  program
    .command('clear')
    .description('remove every queued and scheduled task (running ones go on); asks first')
    .addOption(yesOption())
    .action(async (flags: { yes?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      await withDocket(target, async ({ client, inspector }) => {
        const { queued, scheduled, running } = await inspector.counts();
        const where = describeTarget(target);
        const goOn =
          running > 0 ? `; ${count(running)} running ${running === 1 ? 'goes' : 'go'} on` : '';
        const go = await confirm(
          {
            count: queued + scheduled,
            plan:
              `Clearing ${where} removes ${plural(queued + scheduled, 'task')} ` +
              `(${count(queued)} queued, ${count(scheduled)} scheduled)${goOn}`,
            nothing: `Nothing to clear in ${where}: no queued or scheduled task${goOn}`,
          },
          flags.yes,
        );
        if (!go) return;
        const cleared = await client.clear();
        console.log(`Cleared ${plural(cleared, 'task')} from docket '${target.name}'`);
      });
    });
}
