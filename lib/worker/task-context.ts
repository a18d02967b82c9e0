import { Logger } from '@nestjs/common';
import type { PerpetualIntent } from '../behaviours/perpetual.js';
import type { Deadline } from '../behaviours/timeout.js';
import type { Execution } from '../execution/execution.js';
import type { DependencyOutcome } from '../interfaces/execution.interface.js';
import type { TaskContext, TaskProgress } from '../interfaces/task-context.interface.js';
import { decodeResult } from '../execution/codec.js';
import type { DocketClient } from '../producer/docket.client.js';
import type { DocketStore } from '../store/docket-store.js';
import { ForcedRetry } from './forced-retry.js';
import type { TaskMessage } from './message.js';

function progressOf(store: Pick<DocketStore, 'writeProgress'>, message: TaskMessage): TaskProgress {
  const write = (op: 'total' | 'increment' | 'message', operand: string | number) =>
    store.writeProgress(message.key, message.generation, op, operand, Date.now());
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

/** How each key of the execution's `after` ended, read from Redis (empty without `after`). */
async function dependenciesOf(
  store: Pick<DocketStore, 'readDependencies'>,
  key: string,
): Promise<Map<string, DependencyOutcome>> {
  const record = await store.readDependencies(key);
  const outcomes = new Map<string, DependencyOutcome>();
  for (const dep of record?.after ?? []) {
    const o = record?.outcomes.get(dep);
    if (o?.state === 'completed') {
      outcomes.set(dep, {
        state: 'completed',
        result: o.result ? decodeResult(o.result) : undefined,
      });
    } else if (o?.state === 'failed' || o?.state === 'cancelled') {
      outcomes.set(dep, { state: o.state, error: o.error });
    } else {
      // a key that never existed (or whose end could not be read)
      outcomes.set(dep, { state: 'failed', error: `unknown dependency: ${dep}` });
    }
  }
  return outcomes;
}

/** Build the `TaskContext` of one execution; the costlier members are made on first use. */
export function createTaskContext(init: {
  store: Pick<DocketStore, 'writeProgress' | 'readDependencies'>;
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
    taskName: message.taskName,
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
      return (progress ??= progressOf(init.store, message));
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
    dependencies: () => dependenciesOf(init.store, message.key),
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
