import type { Command } from 'commander';
import type { Execution, ExecutionState, StateEvent } from '../../public-api.js';
import { CliError } from '../cli-error.js';
import { neverUsed, targetOf, withDocket, type Docket, type Target } from '../context.js';
import { clock, color, formatDuration, relative } from '../format.js';
import { ProgressView } from '../progress-view.js';

const TERMINAL: ReadonlySet<ExecutionState> = new Set(['completed', 'failed', 'cancelled']);

/**
 * How often `watch` re-reads the execution while no event comes: a safety net for events lost
 * with a dropped subscriber connection.
 */
const POLL_MS = 2_000;

const STATE_COLORS: Record<ExecutionState, (text: string) => string> = {
  scheduled: color.blue,
  queued: color.cyan,
  running: color.yellow,
  completed: color.green,
  failed: color.red,
  cancelled: color.magenta,
};

type ShownState = Omit<StateEvent, 'type' | 'key'>;

/**
 * When a state began, as far as Redis tells: the start of a run, the end of an execution, and
 * for a queued task read at the start its due time (it was queued then, unless a worker handed
 * it back later). A live event without a time of its own happened as it `arrived`. Undefined
 * when unknown: a scheduled task read at the start.
 */
export function stateTime(state: ShownState, arrived?: Date): Date | undefined {
  switch (state.state) {
    case 'running':
      return state.startedAt ?? arrived;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return state.completedAt ?? arrived;
    case 'queued':
      return arrived ?? (state.when && state.when.getTime() <= Date.now() ? state.when : undefined);
    default:
      return arrived;
  }
}

/**
 * One line for a state at its time (`--:--:--` when unknown):
 * `14:03:05 running on host#42 (attempt 2)`.
 */
export function describeState(event: ShownState, attempt: number, at: Date | undefined): string {
  const parts = [STATE_COLORS[event.state](event.state)];
  switch (event.state) {
    case 'scheduled':
    case 'queued':
      if (event.when) parts.push(`(due ${relative(event.when)})`);
      break;
    case 'running':
      if (event.worker) parts.push(`on ${event.worker}`);
      if (attempt > 1) parts.push(`(attempt ${attempt})`);
      break;
    default:
      if (event.startedAt && event.completedAt) {
        parts.push(
          `after ${formatDuration(event.completedAt.getTime() - event.startedAt.getTime())}`,
        );
      }
      if (event.error) parts.push(`: ${event.error}`);
  }
  const time = at && Number.isFinite(at.getTime()) ? clock(at) : '--:--:--';
  return `${color.dim(time)} ${parts.join(' ').replace(' : ', ': ')}`;
}

function stateOf(execution: Execution): ShownState {
  return {
    state: execution.state,
    when: execution.when,
    worker: execution.worker,
    startedAt: execution.startedAt,
    completedAt: execution.completedAt,
    error: execution.error,
  };
}

const TICK = Symbol('tick');

/** Follow `key` until it ends; resolves with its last state. */
export async function watch(docket: Docket, key: string, target: Target): Promise<ExecutionState> {
  const { client } = docket;
  const execution = await client.getExecution(key);
  if (!execution) {
    throw new CliError(
      (await neverUsed(docket, target)) ??
        `no task with key '${key}' in docket '${target.name}' (never added, or its record expired)`,
    );
  }
  const view = new ProgressView(process.stdout.isTTY === true);
  view.line(`${color.bold(execution.taskName)} ${key} in docket '${target.name}'`);
  let shown = '';
  const show = (state: ShownState, attempt: number, arrived?: Date) => {
    const signature = `${state.state}|${state.worker ?? ''}|${attempt}|${state.when?.getTime() ?? ''}`;
    if (signature !== shown) view.line(describeState(state, attempt, stateTime(state, arrived)));
    shown = signature;
  };
  // the first state is the one read from Redis; the others arrive live
  let initial = true;
  const events = execution.subscribe()[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  try {
    let next = events.next();
    for (;;) {
      const tick = new Promise<typeof TICK>(
        (resolve) => (timer = setTimeout(resolve, POLL_MS, TICK)),
      );
      const result = await Promise.race([next, tick]);
      clearTimeout(timer);
      if (result === TICK) {
        const fresh = await client.getExecution(key);
        if (fresh && TERMINAL.has(fresh.state)) {
          view.stop();
          show(stateOf(fresh), fresh.attempt);
          return fresh.state;
        }
        continue;
      }
      if (result.done) break;
      next = events.next();
      const event = result.value;
      // The execution has taken the event in: it knows the start of a finished run.
      if (event.type === 'progress') {
        view.progress(event);
      } else {
        if (TERMINAL.has(event.state)) view.stop();
        show(stateOf(execution), execution.attempt, initial ? undefined : new Date());
        initial = false;
      }
    }
  } finally {
    clearTimeout(timer);
    view.stop();
    await events.return?.();
  }
  return execution.state;
}

/** `docket watch <key>`: exit 0 when the execution completes, 1 when it fails or is cancelled. */
export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('follow one execution live (state, worker, error, progress) until it ends')
    .argument('<key>', 'task key')
    .action(async (key: string, _flags: unknown, cmd: Command) => {
      const target = targetOf(cmd);
      // an unknown key says whether the docket was ever used (see watch)
      const state = await withDocket(target, (docket) => watch(docket, key, target), {
        used: false,
      });
      if (state !== 'completed') process.exitCode = 1;
    });
}
