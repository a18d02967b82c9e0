// Helpers of the behaviour tests (test/e2e/behaviours/*.test.ts). They only build on the
// exports of test/utils.ts that every test file uses, and read the docket through the public
// API and the read model.
import assert from 'node:assert/strict';
import type { Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DocketModule } from '../../../lib/index.js';
import type {
  DocketClient,
  DocketModuleOptions,
  Execution,
  ExecutionEvent,
} from '../../../lib/index.js';
import { REDIS_URL, createDocket, uniqueName, type TestDocket } from '../../utils.js';

/** Wait `ms` inside a handler (never as an assertion). The timer does not hold the process. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `promise`, or a rejection naming `what` after `ms`: a hung wait fails fast and clearly. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms: ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Check `condition` until it holds (for state no event announces); fails after `timeout` ms with
 * `what`.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  what: string,
  timeout = 5_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout}ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One run of a handler: when it started and ended (epoch ms) and under which label. */
export interface Interval {
  label: string;
  start: number;
  end: number;
}

/** Records the runs of handlers to check how they overlapped. */
export class Timeline {
  readonly intervals: Interval[] = [];
  readonly started: string[] = [];
  running = 0;
  maxRunning = 0;

  /** Run `body` as one interval labelled `label`. */
  async track<T>(label: string, body: () => Promise<T>): Promise<T> {
    const start = Date.now();
    this.started.push(label);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      return await body();
    } finally {
      this.running--;
      this.intervals.push({ label, start, end: Date.now() });
    }
  }

  /** The intervals whose label passes `filter`, by start time. */
  of(filter: (label: string) => boolean): Interval[] {
    return this.intervals.filter((i) => filter(i.label)).sort((a, b) => a.start - b.start);
  }
}

/** Whether two intervals share some time. */
export function overlap(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Assert that no two of `intervals` share time. */
export function assertSequential(intervals: Interval[], what: string): void {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    assert.ok(
      sorted[i].start >= sorted[i - 1].end,
      `${what}: ${sorted[i].label} started at ${sorted[i].start} while ${sorted[i - 1].label} ran until ${sorted[i - 1].end}`,
    );
  }
}

/** A live subscription to an execution, recording its events. */
export interface Recording {
  /** Every event so far, the current state first. */
  readonly seen: ExecutionEvent[];
  /** Resolves with every event once the execution ended. */
  readonly events: Promise<ExecutionEvent[]>;
  /** Resolves with the first event (seen or to come) that passes `test`. */
  when(test: (event: ExecutionEvent, index: number) => boolean): Promise<ExecutionEvent>;
}

/**
 * Subscribe to an execution and wait until the subscription is live (its first event, the
 * current state, has arrived), so that no later change is missed.
 */
export async function record(execution: Execution): Promise<Recording> {
  const iterator = execution.subscribe()[Symbol.asyncIterator]();
  const seen: ExecutionEvent[] = [];
  const waiters: {
    test: (e: ExecutionEvent, i: number) => boolean;
    resolve: (e: ExecutionEvent) => void;
  }[] = [];
  const push = (event: ExecutionEvent) => {
    const index = seen.push(event) - 1;
    for (const waiter of [...waiters]) {
      if (waiter.test(event, index)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };
  const first = await iterator.next();
  if (!first.done) push(first.value);
  const events = (async () => {
    if (first.done) return seen;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return seen;
      push(next.value);
    }
  })();
  return {
    seen,
    events,
    when: (test) => {
      const index = seen.findIndex(test);
      if (index >= 0) return Promise.resolve(seen[index]);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

/** The states an execution went through, from its recorded events. */
export function states(events: ExecutionEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'state' ? [e.state] : []));
}

/**
 * Boot `count` apps on one docket (same name) at once, each with its own worker named `w<i>`
 * and its own connections, as separate processes would be.
 */
export async function createDockets(
  count: number,
  providers: Provider[],
  options: DocketModuleOptions = {},
): Promise<TestDocket[]> {
  const name = options.name ?? uniqueName();
  const worker = options.worker || {};
  const booted = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      createDocket(providers, { ...options, name, worker: { ...worker, name: `w${i}` } }),
    ),
  );
  const apps = booted.flatMap((b) => (b.status === 'fulfilled' ? [b.value] : []));
  const failed = booted.find((b) => b.status === 'rejected');
  if (failed) {
    await Promise.all(apps.map((app) => app.close()));
    throw failed.reason;
  }
  return apps;
}

/** Close every app (all of them, even when one fails to close). */
export async function closeAll(apps: TestDocket[]): Promise<void> {
  const closed = await Promise.allSettled(apps.map((app) => app.close()));
  const failed = closed.find((c) => c.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Boot a docket that must fail at init; resolves with the error once the module is closed,
 * after checking that the failed boot left nothing in the docket.
 */
export async function bootError(providers: Provider[], name: string): Promise<Error> {
  const module = await Test.createTestingModule({
    imports: [DocketModule.forRoot({ url: REDIS_URL, name, worker: { autoStart: false } })],
    providers,
  }).compile();
  module.useLogger(false);
  let failure: Error | undefined;
  try {
    await module.init();
  } catch (error) {
    failure = error as Error;
  } finally {
    await module.close().catch(() => undefined);
  }
  assert.ok(failure, 'the docket booted, but a boot error was expected');
  // (test/contract/key-lifetimes checks that a failed boot writes no key at all)
  await assertNothingIn(name, 'a failed boot wrote to the docket');
  return failure;
}

/**
 * Assert that docket `name`, read by a producer-only app of its own, shows nothing: no task, no
 * execution of `keys`, no worker, dead letter or strike.
 */
export async function assertNothingIn(name: string, what: string, keys: string[] = []) {
  const observer = await createDocket([], { name, worker: false });
  try {
    const snapshot = await observer.inspector.snapshot();
    assert.equal(snapshot.totalTasks, 0, what);
    assert.deepEqual([...snapshot.running, ...snapshot.future, ...snapshot.workers], [], what);
    const depths = await observer.inspector.depths();
    assert.deepEqual(
      depths,
      { queue: 0, schedule: 0, running: 0, workers: 0, deadLetters: 0, held: 0, strikes: 0 },
      what,
    );
    assert.deepEqual(await observer.inspector.strikes(), [], what);
    for (const key of keys) assert.equal(await observer.client.getExecution(key), null, what);
  } finally {
    await observer.close();
  }
}

/** Where `key` is, as a snapshot shows it: running (its message read), or waiting (future). */
export async function whereIs(
  client: DocketClient,
  key: string,
): Promise<{ running: boolean; future: boolean; totalTasks: number }> {
  const snapshot = await client.snapshot({ limit: Infinity });
  return {
    running: snapshot.running.some((r) => r.key === key),
    future: snapshot.future.some((f) => f.key === key),
    totalTasks: snapshot.totalTasks,
  };
}
