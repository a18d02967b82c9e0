import type { Command } from 'commander';
import type { DocketSnapshot } from '../../public-api.js';
import { redactUrl } from '../../store/redis-url.js';
import { targetOf, withClient, type Target } from '../context.js';
import { clock, color, plural, relative, table, toJson } from '../format.js';
import { jsonOption } from '../options.js';

/** Per task: how many there are, run, wait, and when the oldest waiting one was due. */
export interface TaskStats {
  task: string;
  total: number;
  running: number;
  queued: number;
  oldestQueued: Date | null;
}

/** Group a snapshot by task, most tasks first. */
export function taskStats(snapshot: DocketSnapshot): TaskStats[] {
  const stats = new Map<string, TaskStats>();
  const entry = (task: string) => {
    let s = stats.get(task);
    if (!s) stats.set(task, (s = { task, total: 0, running: 0, queued: 0, oldestQueued: null }));
    s.total++;
    return s;
  };
  for (const r of snapshot.running) entry(r.taskName).running++;
  for (const f of snapshot.future) {
    const s = entry(f.taskName);
    s.queued++;
    if (!s.oldestQueued || f.when < s.oldestQueued) s.oldestQueued = f.when;
  }
  return [...stats.values()].sort((a, b) => b.total - a.total || a.task.localeCompare(b.task));
}

/** The snapshot as text: a heading, running and future tasks, workers, and stats if asked. */
export function renderSnapshot(snapshot: DocketSnapshot, target: Target, stats: boolean): string {
  const now = snapshot.takenAt;
  const lines: string[] = [
    `${color.bold(`Docket '${target.name}'`)} on ${redactUrl(target.url)} as of ${clock(now)}`,
    `${plural(snapshot.workers.length, 'worker')}, ${snapshot.running.length} running, ` +
      `${snapshot.future.length} waiting, ${snapshot.totalTasks} in total`,
  ];
  lines.push('', color.bold('Running'));
  lines.push(
    snapshot.running.length === 0
      ? color.dim('(none)')
      : table(
          ['Key', 'Task', 'Worker', 'Started', 'Attempt'],
          snapshot.running.map((r) => [
            r.key,
            r.taskName,
            r.worker,
            relative(r.startedAt, now),
            String(r.attempt),
          ]),
        ),
  );
  lines.push('', color.bold('Future'));
  lines.push(
    snapshot.future.length === 0
      ? color.dim('(none)')
      : table(
          ['Key', 'Task', 'When', 'Attempt'],
          snapshot.future.map((f) => [f.key, f.taskName, relative(f.when, now), String(f.attempt)]),
        ),
  );
  lines.push('', color.bold('Workers'));
  lines.push(
    snapshot.workers.length === 0
      ? color.dim('(none)')
      : table(
          ['Name', 'Last seen', 'Tasks'],
          snapshot.workers.map((w) => [w.name, relative(w.lastSeen, now), w.tasks.join(', ')]),
        ),
  );
  if (stats) {
    lines.push('', color.bold('By task'));
    const rows = taskStats(snapshot);
    lines.push(
      rows.length === 0
        ? color.dim('(none)')
        : table(
            ['Task', 'Total', 'Running', 'Queued', 'Oldest due'],
            rows.map((s) => [
              s.task,
              String(s.total),
              String(s.running),
              String(s.queued),
              s.oldestQueued ? relative(s.oldestQueued, now) : '-',
            ]),
          ),
    );
  }
  return lines.join('\n');
}

/** `docket snapshot [--stats] [--json]`. */
export function registerSnapshot(program: Command): void {
  program
    .command('snapshot')
    .description('show running and future tasks and live workers')
    .option('--stats', 'add counts by task')
    .addOption(jsonOption())
    .action(async (flags: { stats?: boolean; json?: boolean }, cmd: Command) => {
      const target = targetOf(cmd);
      const snapshot = await withClient(target, (client) => client.snapshot());
      if (flags.json) {
        const out = flags.stats ? { ...snapshot, stats: taskStats(snapshot) } : snapshot;
        console.log(toJson({ docket: target.name, ...out }));
      } else {
        console.log(renderSnapshot(snapshot, target, flags.stats === true));
      }
    });
}
