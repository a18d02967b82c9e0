import type { Command } from 'commander';
import { targetOf, withClient } from '../context.js';
import { plural } from '../format.js';

/** `docket clear`: remove every scheduled and queued task; running ones go on. */
export function registerClear(program: Command): void {
  program
    .command('clear')
    .description('remove every scheduled and queued task (running ones go on)')
    .action(async (_flags: unknown, cmd: Command) => {
      const target = targetOf(cmd);
      const cleared = await withClient(target, (client) => client.clear());
      console.log(`Cleared ${plural(cleared, 'task')} from docket '${target.name}'`);
    });
}
