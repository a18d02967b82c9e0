import { Logger } from '@nestjs/common';
import type { DocketClient } from '../producer/docket.client.js';
import type { DocketRuntime } from '../docket.runtime.js';
import type { Execution } from '../execution/execution.js';
import type {
  TaskContext,
  TaskProgress,
  TaskTimeout,
} from '../interfaces/task-context.interface.js';
import { runScript } from '../store/scripts.js';
import { ForcedRetry } from './forced-retry.js';
import type { TaskMessage } from './message.js';

/** What the handler asked for its chain (perpetual and cron tasks). */
export interface PerpetualIntent {
  cancelled: boolean;
  args?: unknown[];
  at?: number;
  after?: number;
}

/** The deadline of a running task, movable by `ctx.timeout.extend()`. */
export class Deadline implements TaskTimeout {
  private at: number;
  constructor(
    private readonly timeout: number | undefined,
    private readonly onChange: () => void,
  ) {
    this.at = timeout === undefined ? Infinity : Date.now() + timeout;
  }
  get time(): number {
    return this.at;
  }
  remaining(): number {
    return Math.max(0, this.at - Date.now());
  }
  extend(ms?: number): void {
    if (this.timeout === undefined && ms === undefined) return;
    this.at = Math.max(this.at, Date.now()) + (ms ?? this.timeout ?? 0);
    this.onChange();
  }
}

function progressOf(runtime: DocketRuntime, message: TaskMessage): TaskProgress {
  const { keys, connection } = runtime;
  const write = async (op: string, operand: string | number): Promise<void> => {
    await runScript(
      connection.commands,
      'progress',
      [keys.progress(message.key), keys.runs(message.key)],
      [message.key, message.generation, op, operand, Date.now(), keys.progressChannel(message.key)],
    );
  };
  const whole = (n: number, what: string): void => {
    if (!Number.isInteger(n) || n < 1)
      throw new RangeError(`${what} must be a whole number ≥ 1, not ${n}`);
  };
  return {
    setTotal: (total) => (whole(total, 'progress total'), write('total', total)),
    increment: (by = 1) => (whole(by, 'progress increment'), write('increment', by)),
    setMessage: (text) => write('message', text ?? ''),
  };
}

/** Build the `TaskContext` of one execution; the costlier members are made on first use. */
export function createTaskContext(init: {
  runtime: DocketRuntime;
  client: DocketClient;
  message: TaskMessage;
  execution: () => Execution;
  worker: string;
  signal: AbortSignal;
  attempts: number;
  deadline: Deadline;
  perpetual: PerpetualIntent;
}): TaskContext {
  const { message, perpetual } = init;
  let execution: Execution | undefined;
  let logger: Logger | undefined;
  let progress: TaskProgress | undefined;
  return {
    key: message.key,
    attempt: message.attempt,
    get execution() {
      return (execution ??= init.execution());
    },
    docket: init.client,
    worker: init.worker,
    get logger() {
      return (logger ??= new Logger(`${message.taskName}[${message.key}]`));
    },
    signal: init.signal,
    get progress() {
      return (progress ??= progressOf(init.runtime, message));
    },
    retry: {
      attempt: message.attempt,
      attempts: init.attempts,
      in: (ms: number) => {
        throw new ForcedRetry(Date.now() + finiteMs(ms, 'ctx.retry.in(ms)'));
      },
      at: (date: Date) => {
        throw new ForcedRetry(epochOf(date, 'ctx.retry.at(date)'));
      },
    },
    perpetual: {
      cancel: () => {
        perpetual.cancelled = true;
      },
      perpetuate: (...args: unknown[]) => {
        perpetual.args = args;
      },
      in: (ms: number) => {
        perpetual.after = finiteMs(ms, 'ctx.perpetual.in(ms)');
        perpetual.at = undefined;
      },
      at: (date: Date) => {
        perpetual.at = epochOf(date, 'ctx.perpetual.at(date)');
        perpetual.after = undefined;
      },
    },
    timeout: init.deadline,
  };
}

/** `ms` when it is a finite number of milliseconds; a TypeError naming `call` otherwise. */
function finiteMs(ms: number, call: string): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new TypeError(`${call}: ms must be a finite number of milliseconds, not ${String(ms)}`);
  }
  return ms;
}

/** The epoch ms of a valid Date; a TypeError naming `call` otherwise. */
function epochOf(date: Date, call: string): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`${call}: date must be a valid Date`);
  return ms;
}
