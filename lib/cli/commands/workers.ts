import type { Command } from 'commander';
import type { LiveWorker } from '../../public-api.js';
import { targetOf, withDocket } from '../context.js';
import { color, formatDuration, relative, table, toJson } from '../format.js';
import { jsonOption } from '../options.js';

/** How long a worker has run; '-' when it did not say, or its clock is ahead of this one. */
function uptime(startedAt: Date | null, now: Date): string {
  const ms = startedAt ? now.getTime() - startedAt.getTime() : NaN;
  return Number.isFinite(ms) && ms >= 0 ? formatDuration(ms) : '-';
}

/** Live workers as a table; `highlight` is shown in bold among each worker's tasks. */
export function renderWorkers(workers: LiveWorker[], highlight?: string): string {
  const now = new Date();
  const told = (value: string | number | null) => (value === null ? '-' : String(value));
  return table(
    ['Name', 'Last seen', 'Host', 'PID', 'Version', 'Up', 'Slots', 'Tasks'],
    workers.map((w) => [
      w.name,
      relative(w.lastSeen, now),
      told(w.host),
      told(w.pid),
      told(w.version),
      uptime(w.startedAt, now),
      told(w.concurrency),
      w.tasks.length === 0
        ? color.dim('(none)')
        : w.tasks.map((t) => (t === highlight ? color.bold(t) : t)).join(', '),
    ]),
  );
}

function print(
  workers: LiveWorker[],
  json: boolean | undefined,
  empty: string,
  highlight?: string,
): void {
  if (json) console.log(toJson(workers));
  else console.log(workers.length === 0 ? empty : renderWorkers(workers, highlight));
}

/** `docket workers [ls]` and `docket workers for-task <task>`. */
export function registerWorkers(program: Command): void {
  const workers = program
    .command('workers')
    .description('list live workers (workers ls), or those of one task (workers for-task)');
  workers
    .command('ls', { isDefault: true })
    .description('list live workers and the tasks they run (the default)')
    .addOption(jsonOption())
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const list = await withDocket(target, ({ client }) => client.workers());
      print(list, flags.json, `No live workers in docket '${target.name}'`);
    });
  workers
    .command('for-task')
    .description('list live workers that run <task>')
    .argument('<task>', 'task name')
    .addOption(jsonOption())
    .action(async (task: string, flags: { json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const list = await withDocket(target, ({ client }) => client.taskWorkers(task));
      print(list, flags.json, `No live worker runs ${task} in docket '${target.name}'`, task);
    });
}
