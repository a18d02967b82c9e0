import type { Command } from 'commander';
import { describeTarget, targetOf, withDocket, type Target } from '../context.js';
import { describePaused, toJson } from '../format.js';
import { jsonOption } from '../options.js';

/**
 * Pause (`on`) or resume the docket (no `task`) or one task, and say so; a resume says what is
 * still paused.
 */
async function setPaused(target: Target, task: string | undefined, on: boolean): Promise<void> {
  const still = await withDocket(
    target,
    async ({ client }) => {
      await (on ? client.pause(task) : client.resume(task));
      return on ? undefined : client.paused();
    },
    // a pause of a docket nobody uses is legal (its work waits for it), but often a typo
    { used: on ? 'warn' : 'require' },
  );
  const what =
    task === undefined ? describeTarget(target) : `task '${task}' of ${describeTarget(target)}`;
  if (on) console.log(`Paused ${what}: its work waits, queued, for docket resume`);
  else console.log(`Resumed ${what}`);
  const paused = still && describePaused(still);
  if (paused) console.log(`note: still ${paused}`);
}

/** `docket pause [task]`, `docket resume [task]` and `docket paused`. */
export function registerPause(program: Command): void {
  const verbs = {
    pause: 'hold the work of the docket (or of one task): nothing of it starts until resume',
    resume: 'lift a pause: held work starts again, in its order',
  };
  for (const [verb, description] of Object.entries(verbs)) {
    program
      .command(verb)
      .description(description)
      .argument('[task]', 'a task name (none = the whole docket)')
      .action((task: string | undefined, _flags: unknown, cmd: Command) =>
        setPaused(targetOf(cmd), task, verb === 'pause'),
      );
  }

  program
    .command('paused')
    .description('what is paused: the whole docket, and tasks by name')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const paused = await withDocket(target, (docket) => docket.client.paused());
      const text = describePaused(paused);
      if (flags.json) console.log(toJson(paused));
      else if (text) console.log(`Docket '${target.name}' ${text}`);
      else console.log(`Nothing is paused in docket '${target.name}'`);
    });
}
