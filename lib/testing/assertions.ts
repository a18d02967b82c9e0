import { AssertionError } from 'node:assert';
import { inspect, isDeepStrictEqual } from 'node:util';
import { taskNameOf, type DocketClient, type FutureTask, type TaskRef } from '../public-api.js';

/** Which scheduled tasks an assertion is about; every given field must match. */
export interface TaskMatch {
  /** The arguments, compared deeply and in full (a trailing TaskContext is never part of them). */
  args?: readonly unknown[];
  /** The task key. */
  key?: string;
}

function nameOf(task: TaskRef): string {
  return taskNameOf(task);
}

function describeCall(name: string, match: TaskMatch): string {
  const args = match.args ? match.args.map((a) => inspect(a, { depth: 4 })).join(', ') : '…';
  return `${name}(${args})${match.key !== undefined ? ` with key ${match.key}` : ''}`;
}

function describeTask(task: FutureTask): string {
  const args = Array.isArray(task.args)
    ? task.args.map((a) => inspect(a, { depth: 4 })).join(', ')
    : `<undecodable ${task.args}>`;
  return `${task.taskName}(${args}) key ${task.key} at ${task.when.toISOString()}`;
}

/** How many scheduled tasks a failure message lists. */
const LISTED = 20;

/** What is scheduled, one line each, or a sentence saying there is nothing. */
function listing(docket: DocketClient, tasks: FutureTask[]): string {
  if (tasks.length === 0) return `no tasks scheduled on docket "${docket.name}"`;
  const lines = tasks.slice(0, LISTED).map((t) => `  - ${describeTask(t)}`);
  if (tasks.length > LISTED) lines.push(`  … and ${tasks.length - LISTED} more`);
  return `scheduled on docket "${docket.name}":\n${lines.join('\n')}`;
}

function matches(task: FutureTask, name: string, match: TaskMatch): boolean {
  if (task.taskName !== name) return false;
  if (match.key !== undefined && task.key !== match.key) return false;
  return match.args === undefined || isDeepStrictEqual(task.args, [...match.args]);
}

/** Tasks scheduled or queued and not yet started (running ones are not included). */
async function waiting(docket: DocketClient): Promise<FutureTask[]> {
  return (await docket.snapshot({ limit: Infinity })).future;
}

/** What is scheduled, and which of it matches `task` and `match`. */
async function search(docket: DocketClient, task: TaskRef, match: TaskMatch) {
  const name = nameOf(task);
  const tasks = await waiting(docket);
  return {
    call: describeCall(name, match),
    tasks,
    found: tasks.filter((t) => matches(t, name, match)),
  };
}

function fail(message: string, from: (...args: any[]) => unknown): never {
  throw new AssertionError({ message, stackStartFn: from });
}

/**
 * Assert that a task is scheduled (due later, or queued and not yet started) on `docket`,
 * optionally with these exact arguments and this key. The failure lists what is scheduled.
 */
export async function assertTaskScheduled(
  docket: DocketClient,
  task: TaskRef,
  match: TaskMatch = {},
): Promise<void> {
  const { call, tasks, found } = await search(docket, task, match);
  if (found.length > 0) return;
  fail(`expected ${call} to be scheduled; ${listing(docket, tasks)}`, assertTaskScheduled);
}

/** Assert that no task matching `task` (and `match`) is scheduled on `docket`. */
export async function assertTaskNotScheduled(
  docket: DocketClient,
  task: TaskRef,
  match: TaskMatch = {},
): Promise<void> {
  const { call, found } = await search(docket, task, match);
  if (found.length === 0) return;
  fail(
    `expected ${call} not to be scheduled, found ${found.length}: ` +
      found.map(describeTask).join('; '),
    assertTaskNotScheduled,
  );
}

/** Assert how many tasks are scheduled on `docket`: all of them, or those of one task. */
export async function assertTaskCount(docket: DocketClient, count: number): Promise<void>;
export async function assertTaskCount(
  docket: DocketClient,
  task: TaskRef,
  count: number,
): Promise<void>;
export async function assertTaskCount(
  docket: DocketClient,
  taskOrCount: TaskRef | number,
  maybeCount?: number,
): Promise<void> {
  const all = typeof taskOrCount === 'number';
  const count = all ? taskOrCount : maybeCount;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new TypeError(`assertTaskCount needs a count (a whole number), not ${String(count)}`);
  }
  const name = all ? undefined : nameOf(taskOrCount);
  const tasks = await waiting(docket);
  const found = name === undefined ? tasks.length : tasks.filter((t) => t.taskName === name).length;
  if (found === count) return;
  const what = name === undefined ? 'scheduled tasks' : `scheduled ${name} tasks`;
  fail(`expected ${count} ${what}, found ${found}; ${listing(docket, tasks)}`, assertTaskCount);
}

/** Assert that nothing is scheduled or queued on `docket`. */
export async function assertNoTasks(docket: DocketClient): Promise<void> {
  const tasks = await waiting(docket);
  if (tasks.length === 0) return;
  fail(`expected no tasks, found ${tasks.length}; ${listing(docket, tasks)}`, assertNoTasks);
}
