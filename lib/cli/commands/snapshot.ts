import type { Command } from 'commander';
import type { DocketSnapshot, FutureTask } from '../../public-api.js';
import { parseWholeNumber } from '../../util/typed-value.js';
import { redactUrl } from '../../store/redis-url.js';
import { targetOf, withDocket, type Target } from '../context.js';
import { clock, color, count, describePaused, plural, relative, table, toJson } from '../format.js';
import { argParser, jsonOption } from '../options.js';

/** Per task, among the listed tasks: how many run, are queued and are scheduled. */
export interface TaskStats {
  task: string;
  total: number;
  running: number;
  queued: number;
  scheduled: number;
  /** The due time of the task's longest-waiting queued task. */
  oldestQueued: Date | null;
  /** The due time of the task's next scheduled task. */
  nextScheduled: Date | null;
}

/** Group the listed tasks of a snapshot by task, most tasks first. */
export function taskStats(snapshot: DocketSnapshot): TaskStats[] {
  const stats = new Map<string, TaskStats>();
  const entry = (task: string) => {
    let s = stats.get(task);
    if (!s) {
      const none = { oldestQueued: null, nextScheduled: null };
      s = { task, total: 0, running: 0, queued: 0, scheduled: 0, ...none };
      stats.set(task, s);
    }
    s.total++;
    return s;
  };
  for (const r of snapshot.running) entry(r.taskName).running++;
  for (const f of snapshot.future) {
    const s = entry(f.taskName);
    if (f.state === 'queued') {
      s.queued++;
      if (!s.oldestQueued || f.when < s.oldestQueued) s.oldestQueued = f.when;
    } else {
      s.scheduled++;
      if (!s.nextScheduled || f.when < s.nextScheduled) s.nextScheduled = f.when;
    }
  }
  return [...stats.values()].sort((a, b) => b.total - a.total || a.task.localeCompare(b.task));
}

/** `Queued (3)`, or `Queued (showing 1 000 of 50 000)` for a list cut short. */
function heading(title: string, shown: number, total: number): string {
  const n = shown < total ? `showing ${count(shown)} of ${count(total)}` : count(total);
  return color.bold(`${title} (${n})`);
}

function waiting(tasks: FutureTask[], now: Date): string {
  return table(
    ['Key', 'Task', 'Due', 'Attempt'],
    tasks.map((f) => [
      f.key,
      f.paused ? `${f.taskName} (paused)` : f.taskName,
      // a task waiting for its dependencies is due when they end (and its time has come)
      f.waitingFor ? `after ${f.waitingFor.join(', ')}` : relative(f.when, now),
      String(f.attempt),
    ]),
  );
}

/** The snapshot as text: a heading with the counts, each list, workers, and stats if asked. */
export function renderSnapshot(snapshot: DocketSnapshot, target: Target, stats: boolean): string {
  const now = snapshot.takenAt;
  const { counts } = snapshot;
  const lines: string[] = [
    `${color.bold(`Docket '${target.name}'`)} on ${redactUrl(target.url)} as of ${clock(now)}`,
    `${plural(snapshot.workers.length, 'worker')}, ${count(counts.running)} running, ` +
      `${count(counts.queued)} queued, ${count(counts.scheduled)} scheduled ` +
      `(${plural(snapshot.totalTasks, 'task')})`,
  ];
  const paused = describePaused(snapshot.paused, counts.held);
  if (paused) {
    // loud, under the counts
    const loud = paused.replace(/^paused/, 'PAUSED');
    lines.push(color.bold(loud) + color.dim(' (docket resume [task] lifts it)'));
  }
  const queued = snapshot.future.filter((f) => f.state === 'queued');
  const scheduled = snapshot.future.filter((f) => f.state === 'scheduled');
  // an empty list is either nothing, or a list cut to nothing by --limit
  const empty = (total: number) => color.dim(total === 0 ? '(none)' : '(none listed: see --limit)');

  lines.push('', heading('Running', snapshot.running.length, counts.running));
  lines.push(
    snapshot.running.length === 0
      ? empty(counts.running)
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
  lines.push('', heading('Queued', queued.length, counts.queued));
  lines.push(queued.length === 0 ? empty(counts.queued) : waiting(queued, now));
  lines.push('', heading('Scheduled', scheduled.length, counts.scheduled));
  lines.push(scheduled.length === 0 ? empty(counts.scheduled) : waiting(scheduled, now));
  lines.push('', heading('Workers', snapshot.workers.length, snapshot.workers.length));
  lines.push(
    snapshot.workers.length === 0
      ? empty(0)
      : table(
          ['Name', 'Last seen', 'Tasks'],
          snapshot.workers.map((w) => [w.name, relative(w.lastSeen, now), w.tasks.join(', ')]),
        ),
  );
  if (stats) {
    const listed = snapshot.running.length + snapshot.future.length;
    lines.push(
      '',
      color.bold('By task') +
        (listed < snapshot.totalTasks
          ? ` (of the ${count(listed)} listed tasks, not all ${count(snapshot.totalTasks)}: --limit lists more)`
          : ''),
    );
    const rows = taskStats(snapshot);
    lines.push(
      rows.length === 0
        ? empty(0)
        : table(
            ['Task', 'Running', 'Queued', 'Scheduled', 'Oldest queued', 'Next scheduled'],
            rows.map((s) => [
              s.task,
              count(s.running),
              count(s.queued),
              count(s.scheduled),
              s.oldestQueued ? relative(s.oldestQueued, now) : '-',
              s.nextScheduled ? relative(s.nextScheduled, now) : '-',
            ]),
          ),
    );
  }
  return lines.join('\n');
}

/** `docket snapshot [--stats] [--limit <n>] [--json]`. */
export function registerSnapshot(program: Command): void {
  program
    .command('snapshot')
    .description(
      'show the counts of running, queued and scheduled tasks, the tasks, and live workers',
    )
    .option('--stats', 'add counts by task (of the listed tasks)')
    // without --limit, the client's own default (DocketClient.snapshot)
    .option(
      '--limit <n>',
      'list at most n running and n waiting tasks (default 1 000; the counts are always in full)',
      argParser((text) => parseWholeNumber(text, 0)),
    )
    .addOption(jsonOption())
    .action(async (flags: { stats?: boolean; json?: boolean; limit?: number }, cmd: Command) => {
      const target = targetOf(cmd);
      const snapshot = await withDocket(target, ({ client }) =>
        client.snapshot({ limit: flags.limit }),
      );
      if (flags.json) {
        const out = flags.stats ? { ...snapshot, stats: taskStats(snapshot) } : snapshot;
        console.log(toJson({ docket: target.name, ...out }));
      } else {
        console.log(renderSnapshot(snapshot, target, flags.stats === true));
      }
    });
}
