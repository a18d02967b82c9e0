import type { Command } from 'commander';
import { targetOf, withDocket } from '../context.js';
import { toJson } from '../format.js';
import { jsonOption } from '../options.js';

/** "docket 'x'" or "task 'y' of docket 'x'". */
function what(docket: string, task: string | undefined): string {
  return task === undefined ? `docket '${docket}'` : `task '${task}' of docket '${docket}'`;
}

/** `docket pause [task]`, `docket resume [task]` and `docket paused`. */
export function registerPause(program: Command): void {
  program
    .command('pause')
    .description('hold the work of the docket (or of one task): nothing of it starts until resume')
    .argument('[task]', 'a task name (none = the whole docket)')
    .action(async (task: string | undefined, _flags: unknown, cmd: Command) => {
      const target = targetOf(cmd);
      await withDocket(target, ({ client }) => client.pause(task), { used: 'warn' });
      console.log(`Paused ${what(target.name, task)}: its work waits, queued, for docket resume`);
    });

  program
    .command('resume')
    .description('lift a pause: held work starts again, in its order')
    .argument('[task]', 'a task name (none = the whole docket)')
    .action(async (task: string | undefined, _flags: unknown, cmd: Command) => {
      const target = targetOf(cmd);
      const still = await withDocket(target, async (docket) => {
        await docket.client.resume(task);
        return docket.client.paused();
      });
      console.log(`Resumed ${what(target.name, task)}`);
      if (still.docket) console.log(`note: the whole docket is still paused (docket resume)`);
      if (still.tasks.length > 0)
        console.log(`note: still paused by name: ${still.tasks.join(', ')}`);
    });

  program
    .command('paused')
    .description('what is paused: the whole docket, and tasks by name')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const paused = await withDocket(target, (docket) => docket.client.paused());
      if (flags.json) console.log(toJson(paused));
      else if (!paused.docket && paused.tasks.length === 0) {
        console.log(`Nothing is paused in docket '${target.name}'`);
      } else {
        if (paused.docket) console.log(`Docket '${target.name}' is paused`);
        if (paused.tasks.length > 0) console.log(`Paused tasks: ${paused.tasks.join(', ')}`);
      }
    });
}
