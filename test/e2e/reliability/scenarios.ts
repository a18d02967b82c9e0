// A representative set of docket features, run against another deployment (Cluster, TLS, ACL):
// add/result, future task, replace, cancel (scheduled and running), retry, concurrency limit,
// strike, perpetual with runAtMost and subscribe. Each scenario boots its own docket; every
// error the worker logs or counts as a Redis disruption (a CROSSSLOT or NOPERM in a loop would
// only show up there) fails the scenario.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Injectable, type LoggerService, type Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { RedisOptions } from 'ioredis';
import {
  Ctx,
  DocketClient,
  DocketInspector,
  DocketModule,
  DocketTask,
  DocketWorker,
  ExecutionCancelledError,
  type DocketModuleOptions,
  type Execution,
  type ExecutionEvent,
  type TaskContext,
} from '../../../lib/index.js';
import { deferred, uniqueName, type TestDocket } from '../../utils.js';

@Injectable()
export class ReliabilityTasks {
  values: unknown[] = [];
  running = 0;
  maxRunning = 0;
  blockStarted = deferred();
  ticks: number[] = [];

  @DocketTask({ name: 'rel.echo' })
  async echo(value: unknown): Promise<unknown> {
    this.values.push(value);
    return value;
  }

  @DocketTask({ name: 'rel.flaky', retry: { attempts: 3, delay: 20 } })
  async flaky(failures: number, @Ctx() ctx: TaskContext): Promise<number> {
    if (ctx.attempt <= failures) throw new Error(`attempt ${ctx.attempt} fails`);
    return ctx.attempt;
  }

  /** Runs until its signal is aborted, then throws the reason. */
  @DocketTask({ name: 'rel.block' })
  async block(@Ctx() ctx: TaskContext): Promise<void> {
    this.blockStarted.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw ctx.signal.reason;
  }

  @DocketTask({ name: 'rel.limited', concurrency: { max: 1 } })
  async limited(label: string): Promise<string> {
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((resolve) => setTimeout(resolve, 30));
    this.running--;
    return label;
  }

  /** Holds one of two slots for 300 ms (longer than the lease of the lease scenario). */
  @DocketTask({ name: 'rel.slow', concurrency: { max: 2 } })
  async slow(label: string): Promise<string> {
    this.values.push(label);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return label;
  }

  @DocketTask({ name: 'rel.tick', perpetual: { every: 20 } })
  async tick(n: number, @Ctx() ctx: TaskContext): Promise<number> {
    this.ticks.push(n);
    ctx.perpetual.perpetuate(n + 1);
    return n;
  }
}

/** A Nest logger that keeps the errors and warnings it is given. */
export class CapturingLogger implements LoggerService {
  readonly problems: string[] = [];
  log(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.problems.push(`warn: ${String(message)}`);
  }
  error(message: unknown): void {
    this.problems.push(`error: ${String(message)}`);
  }
}

export interface Target {
  url: string;
  connection?: RedisOptions;
}

export interface ReliabilityDocket extends TestDocket {
  tasks: ReliabilityTasks;
  logger: CapturingLogger;
}

/** Boot a docket with `ReliabilityTasks` on `target`; the worker does not start by itself. */
export async function bootDocket(
  target: Target,
  options: DocketModuleOptions = {},
  namePrefix = 'rel',
  providers: Provider[] = [],
): Promise<ReliabilityDocket> {
  const name = options.name ?? uniqueName(namePrefix);
  const module = await Test.createTestingModule({
    imports: [
      DocketModule.forRoot({
        url: target.url,
        connection: target.connection,
        ...options,
        name,
        worker:
          options.worker === false
            ? false
            : {
                autoStart: false,
                minimumCheckInterval: 100,
                reconnectionDelay: 200,
                ...options.worker,
              },
      }),
    ],
    providers: [ReliabilityTasks, ...providers],
  }).compile();
  const logger = new CapturingLogger();
  module.useLogger(logger);
  try {
    await module.init();
  } catch (error) {
    await module.close().catch(() => undefined);
    throw error;
  }
  return {
    module,
    name,
    client: module.get(DocketClient),
    worker: module.get(DocketWorker),
    inspector: module.get(DocketInspector),
    tasks: module.get(ReliabilityTasks),
    logger,
    close: () => module.close(),
  };
}

/** Log lines about a task's own failure (a retry, a failed last attempt): not problems. */
const TASK_OUTCOME = /^(warn|error): [↫↩✗🗙]/u;

/** Fail on anything the worker logged as a problem or counted as a Redis disruption. */
export function assertQuiet(docket: ReliabilityDocket): void {
  const problems = docket.logger.problems.filter((p) => !TASK_OUTCOME.test(p));
  assert.deepEqual(problems, [], 'the docket logged problems');
  assert.equal(docket.worker.status().disruptions, 0, 'the worker met Redis errors');
}

/** Subscribe and wait for the first event (the subscription is live); `done` gives them all. */
async function collect(execution: Execution): Promise<{ done: Promise<ExecutionEvent[]> }> {
  const events: ExecutionEvent[] = [];
  const iterator = execution.subscribe()[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (!first.done) events.push(first.value);
  const done = (async () => {
    for (;;) {
      const next = await iterator.next();
      if (next.done) return events;
      events.push(next.value);
    }
  })();
  return { done };
}

const states = (events: ExecutionEvent[]) =>
  events.flatMap((e) => (e.type === 'state' ? [e.state] : []));

type Scenario = ((docket: ReliabilityDocket) => Promise<void>) & {
  options?: DocketModuleOptions;
};

function withOptions(options: DocketModuleOptions, scenario: Scenario): Scenario {
  return Object.assign(scenario, { options });
}

/** The scenarios, by title. */
export const SCENARIOS: Record<string, Scenario> = {
  'add → result': async ({ client, worker }) => {
    const value = { n: 1, at: new Date(0), big: 12n, tags: new Set(['a']) };
    const execution = await client.add(ReliabilityTasks.prototype.echo)(value);
    assert.equal(execution.disposition, 'scheduled');
    await worker.runUntilFinished();
    assert.deepEqual(await execution.result({ timeout: 5_000 }), value);
  },

  'a future task starts at its time': async ({ client, worker }) => {
    const execution = await client.add(ReliabilityTasks.prototype.echo, { delay: 300 })('later');
    assert.equal(execution.state, 'scheduled');
    await worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 5_000 }), 'later');
    await execution.sync();
    assert.ok(execution.startedAt!.getTime() >= execution.when.getTime(), 'started early');
  },

  'replace moves a scheduled task and changes its arguments': async ({ client, worker, tasks }) => {
    await client.add(ReliabilityTasks.prototype.echo, { key: 'r', delay: 60_000 })('old');
    const replaced = await client.replace(ReliabilityTasks.prototype.echo, { key: 'r' })('new');
    assert.equal(replaced.state, 'queued');
    await worker.runUntilFinished();
    assert.equal(await replaced.result({ timeout: 5_000 }), 'new');
    assert.deepEqual(tasks.values, ['new']);
  },

  'cancel of a scheduled task': async ({ client, worker, tasks }) => {
    const execution = await client.add(ReliabilityTasks.prototype.echo, { delay: 60_000 })('no');
    await client.cancel(execution.key);
    await worker.runUntilFinished();
    await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
    assert.deepEqual(tasks.values, []);
  },

  'cancel of a running task': async ({ client, worker, tasks }) => {
    const execution = await client.add(ReliabilityTasks.prototype.block)();
    const running = worker.runUntilFinished();
    await tasks.blockStarted.promise;
    await client.cancel(execution.key);
    await running;
    await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
  },

  'retry until an attempt succeeds': async ({ client, worker }) => {
    const execution = await client.add(ReliabilityTasks.prototype.flaky)(2);
    await worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 5_000 }), 3);
  },

  'a concurrency limit of 1': async ({ client, worker, tasks }) => {
    const executions = await Promise.all(
      ['a', 'b', 'c', 'd'].map((label) => client.add(ReliabilityTasks.prototype.limited)(label)),
    );
    await worker.runUntilFinished();
    for (const execution of executions) await execution.result({ timeout: 5_000 });
    assert.equal(tasks.maxRunning, 1);
  },

  'strike and restore': async ({ client, worker, tasks }) => {
    const condition = {
      task: ReliabilityTasks.prototype.echo,
      parameter: 'value',
      operator: '==' as const,
      value: 'bad',
    };
    await client.strike(condition);
    const struck = await client.add(ReliabilityTasks.prototype.echo)('bad');
    assert.equal(struck.disposition, 'struck');
    const good = await client.add(ReliabilityTasks.prototype.echo)('good');
    await client.restore(condition);
    const later = await client.add(ReliabilityTasks.prototype.echo)('bad');
    assert.equal(later.disposition, 'scheduled');
    await worker.runUntilFinished();
    assert.equal(await good.result({ timeout: 5_000 }), 'good');
    assert.equal(await later.result({ timeout: 5_000 }), 'bad');
    assert.deepEqual(tasks.values.sort(), ['bad', 'good']);
  },

  'perpetual with runAtMost': async ({ client, worker, tasks }) => {
    await client.add(ReliabilityTasks.prototype.tick, { key: 'tick' })(0);
    await worker.runAtMost({ tick: 3 });
    assert.deepEqual(tasks.ticks, [0, 1, 2]);
  },

  'leases of running tasks are renewed (no redelivery of live work)': withOptions(
    { worker: { redeliveryTimeout: 200 } },
    async ({ client, worker, tasks }) => {
      const executions = await Promise.all(
        ['a', 'b', 'c'].map((label) => client.add(ReliabilityTasks.prototype.slow)(label)),
      );
      await worker.runUntilFinished();
      for (const execution of executions) await execution.result({ timeout: 5_000 });
      assert.deepEqual(tasks.values.sort(), ['a', 'b', 'c'], 'a task ran twice');
    },
  ),

  'snapshot, workers, clear and dead letters': async ({ client, worker, tasks }) => {
    const blocked = await client.add(ReliabilityTasks.prototype.block)();
    const running = worker.runUntilFinished();
    await tasks.blockStarted.promise;
    await client.add(ReliabilityTasks.prototype.echo, { key: 'later', delay: 60_000 })('x');
    const snapshot = await client.snapshot();
    assert.deepEqual(
      snapshot.running.map((r) => r.key),
      [blocked.key],
    );
    assert.deepEqual(
      snapshot.future.map((f) => f.key),
      ['later'],
    );
    assert.ok((await client.workers()).some((w) => w.name === worker.name));
    assert.ok((await client.taskWorkers('rel.block')).some((w) => w.name === worker.name));
    assert.equal(await client.clear(), 1);
    await client.cancel(blocked.key);
    await running;

    const doomed = await client.add(ReliabilityTasks.prototype.flaky)(9);
    await worker.runUntilFinished();
    await assert.rejects(doomed.result({ timeout: 5_000 }), /attempt 3 fails/);
    const [letter] = await client.deadLetters();
    assert.equal(letter.key, doomed.key);
    assert.equal(await client.retryDeadLetter(doomed.key), 1);
    await worker.runUntilFinished();
    assert.equal(await client.purgeDeadLetters(), 1);
    assert.deepEqual(await client.deadLetters(), []);
  },

  'subscribe() sees every state': async ({ client, worker }) => {
    // due late enough that the subscription's first state is 'scheduled' on a loaded machine
    const execution = await client.add(ReliabilityTasks.prototype.echo, { delay: 1_000 })('s');
    const recording = await collect(execution);
    await worker.runUntilFinished();
    const events = await recording.done;
    assert.deepEqual(states(events), ['scheduled', 'queued', 'running', 'completed']);
  },
};

/** Register one test per scenario against the target `target()` gives (when the suite ran). */
export function itRunsTheRepresentativeSet(
  target: () => Target,
  options: DocketModuleOptions = {},
  namePrefix = 'rel',
): void {
  for (const [title, scenario] of Object.entries(SCENARIOS)) {
    it(title, { timeout: 30_000 }, async () => {
      const extra = scenario.options ?? {};
      const docket = await bootDocket(
        target(),
        {
          ...options,
          ...extra,
          worker: { ...(options.worker || {}), ...(extra.worker || {}) },
        },
        namePrefix,
      );
      try {
        await scenario(docket);
        assertQuiet(docket);
      } finally {
        await docket.close();
      }
    });
  }
}
