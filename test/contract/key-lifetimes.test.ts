// Key lifetimes: what the engine leaves in storage once the flows of the e2e suite have run.
// Every key of a docket expires (has a TTL), except its permanent structures (stream, queue,
// strikes, workers, dead letters) and the records of live tasks; and some flows write no key
// at all. Each scenario here replays the storage side of the e2e tests named in its title
// (test/e2e/<file>: <test>), which check the same flows through the public API only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  Ctx,
  DocketClient,
  DocketModule,
  DocketTask,
  DocketWorker,
  ExecutionCancelledError,
  PayloadTooLargeError,
  SchedulerService,
  type DocketModuleOptions,
  type DocketOptionsFactory,
  type TaskContext,
} from '../../lib/index.js';
import { createSampleApp } from '../../sample-app/create-sample-app.js';
import {
  REDIS_ONLY,
  REDIS_URL,
  childWorker,
  createDocket,
  deferred,
  uniqueName,
  useDocket,
  waitFor,
} from '../utils.js';
import {
  assertNoKeyWithoutTtl,
  docketKeys,
  keyOf,
  pendingCount,
  runsHash,
  withRaw,
} from './raw.js';

class MyError extends Error {
  override name = 'MyError';
}

@Injectable()
class Tasks {
  calls: string[] = [];
  started = deferred();
  gate = deferred();
  /** Resolves the first run of `deaf`. */
  release = deferred();

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }

  @DocketTask()
  async gated(value: string): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await this.gate.promise;
    return value;
  }

  @DocketTask({ concurrency: { max: 1 } })
  async single(value: string): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await this.gate.promise;
    return value;
  }

  /** Waits for its signal and fails with the abort reason. */
  @DocketTask({ retry: { attempts: 3 } })
  async obedient(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
    });
    return 'unreachable';
  }

  /** Notices the abort but finishes normally. */
  @DocketTask()
  async stubborn(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    this.calls.push(value);
    this.started.resolve();
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    return `${value} done anyway`;
  }

  /** On the worker 'leaver', ignores its signal for 5 s (or until released). */
  @DocketTask()
  async deaf(@Ctx() ctx: TaskContext): Promise<string> {
    this.calls.push(ctx.worker);
    this.started.resolve();
    if (ctx.worker === 'leaver') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.release.promise,
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
    }
    return `deaf on ${ctx.worker}`;
  }

  @DocketTask()
  async nothing(): Promise<void> {}

  @DocketTask()
  async echo(...values: unknown[]): Promise<unknown[]> {
    return values;
  }

  @DocketTask()
  async raise(message: string): Promise<never> {
    throw new MyError(message);
  }

  @DocketTask()
  async report(@Ctx() ctx: TaskContext): Promise<string> {
    await ctx.progress.setTotal(3);
    await ctx.progress.increment();
    await ctx.progress.increment();
    await ctx.progress.setMessage('almost');
    await ctx.progress.increment();
    return 'reported';
  }

  @DocketTask({ retry: { attempts: 2 } })
  async doomed(value: string): Promise<never> {
    this.calls.push(value);
    throw new Error(`no way: ${value}`);
  }

  @DocketTask()
  async pair(left: string, right: string): Promise<string> {
    this.calls.push(`${left}+${right}`);
    return `${left}+${right}`;
  }

  /** Ends 400 ms after it started. */
  @DocketTask()
  async brief(): Promise<string> {
    this.started.resolve();
    await new Promise((resolve) => setTimeout(resolve, 400));
    return 'brief';
  }

  @DocketTask()
  async busy(n: number): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return n;
  }

  @DocketTask()
  async long(value: string): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return value;
  }
}

/** The task of the worker of test/fixtures/worker-process.ts, ending at once here. */
@Injectable()
class HangTasks {
  @DocketTask()
  async hang(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    return `${ctx.worker}:${label}`;
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

describe('key lifetimes: shutdown (e2e/lifecycle)', { timeout: 60_000 }, () => {
  it('shutdown: waits for a running task to finish', async (t) => {
    const docket = await createDocket([Tasks], { worker: { autoStart: true, name: 'drainer' } });
    t.after(() => docket.close());
    await docket.client.add(Tasks.prototype.brief, { key: 'b' })();
    await docket.module.get(Tasks).started.promise;
    await docket.close();
    assert.equal((await runsHash(docket.name, 'b')).state, 'completed');
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('shutdown: stops waiting at shutdownTimeout and hands the task back, its start uncounted', async (t) => {
    const name = uniqueName('drain');
    const first = await createDocket([Tasks], {
      name,
      worker: { autoStart: true, name: 'leaver', shutdownTimeout: 300, minimumCheckInterval: 100 },
    });
    t.after(() => first.close());
    const tasks = first.module.get(Tasks);
    t.after(() => tasks.release.resolve());
    await first.client.add(Tasks.prototype.deaf, { key: 'd' })();
    await tasks.started.promise;
    await first.close();
    const handedBack = await runsHash(name, 'd');
    assert.equal(handedBack.state, 'queued');
    assert.equal(handedBack.worker, undefined);
    assert.equal(handedBack.starts, '0', 'a start handed back is not a vanished one');
    assert.equal(await pendingCount(name), 1, 'still pending, idle since long ago');
    await assertNoKeyWithoutTtl(name);
    const second = await useDocket(t, [Tasks], {
      name,
      worker: { name: 'taker', redeliveryTimeout: 600_000, minimumCheckInterval: 50 },
    });
    await second.worker.runUntilFinished();
    assert.equal((await runsHash(name, 'd')).worker, 'taker');
    await assertNoKeyWithoutTtl(name);
  });

  it('shutdown: ends runUntilFinished and runForever when the application closes', async (t) => {
    const docket = await createDocket([Tasks], { worker: { minimumCheckInterval: 100 } });
    t.after(() => docket.close());
    await docket.client.add(Tasks.prototype.record, { delay: 60_000 })('later');
    const forever = docket.worker.runForever();
    const untilFinished = docket.worker.runUntilFinished();
    await waitFor(() => docket.worker.status().lastPollAt > 0, 'the worker to poll');
    await docket.close();
    await Promise.all([forever, untilFinished]);
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe('key lifetimes: adds (e2e/add, e2e/module, e2e/cjs-nest11)', { timeout: 60_000 }, () => {
  it('add: every flow of the add tests leaves no key without a TTL', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const { client, worker } = docket;
    await client.add(Tasks.prototype.record)('a');
    await worker.runUntilFinished();
    // adds made together, a repeated key and a replace of one of them in the same turn
    await Promise.all([
      ...Array.from({ length: 100 }, (_, i) =>
        client.add(Tasks.prototype.record, { key: `batch-${i}` })(`v${i}`),
      ),
      client.add(Tasks.prototype.record, { key: 'batch-7' })('again'),
      client.replace(Tasks.prototype.record, { key: 'batch-8' })('later'),
    ]);
    await client.addMany(
      Tasks.prototype.record,
      Array.from({ length: 250 }, (_, i) => [`m${i}`] as [string]),
    );
    await client.addMany('record', [['d1'], ['d2']], { delay: 200 });
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
    // a live key refused, then added again after its run
    await client.add(Tasks.prototype.record, { key: 'k1' })('x');
    await client.add(Tasks.prototype.record, { key: 'k1' })('y');
    await worker.runUntilFinished();
    await client.add(Tasks.prototype.record, { key: 'k1' })('z');
    await worker.runUntilFinished();
    // a scheduled key refused, then cancelled; a live key refused for another task
    await client.add(Tasks.prototype.record, { key: 'future', delay: 60_000 })('old');
    await client.add(Tasks.prototype.record, { key: 'future', delay: 5 })('new');
    await client.cancel('future');
    await client.add(Tasks.prototype.record, { key: 'live', delay: 60_000 })('kept');
    await client.add(Tasks.prototype.gated, { key: 'live' })('refused');
    await client.cancel('live');
    await assertNoKeyWithoutTtl(docket.name);
    // a queued key refused; a running key refused, then added again once it ended
    await client.add(Tasks.prototype.record, { key: 'queued' })('one');
    await client.add(Tasks.prototype.record, { key: 'queued' })('two');
    await worker.runUntilFinished();
    const first = await client.add(Tasks.prototype.gated, { key: 'busy' })('first');
    const running = worker.runUntilFinished();
    await tasks.started.promise;
    await client.add(Tasks.prototype.gated, { key: 'busy' })('second');
    tasks.gate.resolve();
    await first.result({ timeout: 5_000 });
    await running;
    await client.add(Tasks.prototype.gated, { key: 'busy' })('third');
    await client.add(tasks.record)('bound');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('module: a task added through a forRootAsync module (useFactory, useClass) and run to its end', async () => {
    for (const worker of ['from-factory', 'from-class']) {
      const name = uniqueName('async');
      const options = () => ({ name, url: REDIS_URL, worker: { autoStart: false, name: worker } });
      @Injectable()
      class OptionsFactory implements DocketOptionsFactory {
        createDocketOptions(): DocketModuleOptions {
          return options();
        }
      }
      const module = await Test.createTestingModule({
        imports: [
          worker === 'from-factory'
            ? DocketModule.forRootAsync({ useFactory: async () => options() })
            : DocketModule.forRootAsync({ useClass: OptionsFactory }),
        ],
        providers: [Tasks],
      }).compile();
      module.useLogger(false);
      try {
        await module.init();
        const execution = await module.get(DocketClient).add(Tasks.prototype.echo)(21);
        await module.get(DocketWorker).runUntilFinished();
        assert.deepEqual(await execution.result({ timeout: 2_000 }), [21]);
        assert.equal((await module.get(DocketClient).getExecution(execution.key))?.worker, worker);
        await assertNoKeyWithoutTtl(name);
      } finally {
        await module.close();
      }
    }
  });

  it('cjs-nest11: an application whose worker starts with it runs a task and closes', async () => {
    const docket = await createDocket([Tasks], {
      worker: { autoStart: true, shutdownTimeout: 5_000 },
    });
    try {
      const execution = await docket.client.add(Tasks.prototype.echo)('CommonJS', '!');
      assert.deepEqual(await execution.result({ timeout: 15_000 }), ['CommonJS', '!']);
    } finally {
      await docket.close();
    }
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe('key lifetimes: refused input (e2e/bad-input)', { timeout: 60_000 }, () => {
  it('a refused add writes no key; an accepted one leaves none without a TTL', async (t) => {
    const docket = await useDocket(t, [Tasks], { maxPayloadBytes: 64 });
    const { client } = docket;
    const cycle: Record<string, unknown> = {};
    cycle.again = { back: cycle };
    const refused = [
      () => client.add(Tasks.prototype.echo)(1, 2, cycle),
      () => client.replace(Tasks.prototype.echo, {} as { key: string })(),
      () => client.add(Tasks.prototype.echo)('fine', () => 'no'),
      () => client.add(Tasks.prototype.echo)(Symbol('nope')),
      () => client.add(Tasks.prototype.echo, { key: 'big' })('x'.repeat(61)),
      () => client.add('no.such.task')('x'),
      () => client.add(Tasks.prototype.echo)(1, { fn: Math.max }),
      () => client.replace('no.such.task', { key: 'k' })('x'),
      () => client.add(Tasks.prototype.echo, { when: new Date('nope') })(),
      () => client.add(Tasks.prototype.echo, { key: '' })(),
    ];
    for (const add of refused) await assert.rejects(async () => add());
    await assert.rejects(
      async () => client.add(Tasks.prototype.echo)('é'.repeat(31)),
      PayloadTooLargeError,
    );
    assert.deepEqual(await docketKeys(docket.name), []);
    const fits = await client.add(Tasks.prototype.echo, { key: 'fits' })('x'.repeat(60));
    await docket.worker.runUntilFinished();
    await fits.result({ timeout: 2_000 });
    await assertNoKeyWithoutTtl(docket.name);
  });

  it("a producer-only process's add of any task name writes its runs hash and its message only", async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    await docket.client.add('defined.elsewhere', { key: 'p' })(1);
    await assert.rejects(async () => docket.client.add('anything')(() => 1), TypeError);
    assert.deepEqual(await docketKeys(docket.name), ['runs:p', 'stream']);
    await docket.client.cancel('p');
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe('key lifetimes: cancel (e2e/cancel)', { timeout: 60_000 }, () => {
  it('a cancel of a scheduled, queued, moved, running, finished task, or twice', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const { client, worker, name } = docket;
    // scheduled
    await client.add(Tasks.prototype.record, { key: 's', delay: 300 })('x');
    await client.cancel('s');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    // queued, not read yet
    await client.add(Tasks.prototype.record, { key: 'q' })('x');
    await client.cancel('q');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    // moved to the stream by the scheduler
    const scheduler = docket.module.get(SchedulerService);
    await client.add(Tasks.prototype.record, { key: 'm', delay: 400 })('x');
    await waitFor(async () => {
      await scheduler.moveDue();
      return (await runsHash(name, 'm')).state === 'queued';
    }, 'the scheduler to move the task');
    await client.cancel('m');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    // running: a handler that throws the abort reason (never retried)
    const obedient = await client.add(Tasks.prototype.obedient, { key: 'r' })('x');
    let working = worker.runUntilFinished();
    await tasks.started.promise;
    await client.cancel('r');
    await assert.rejects(obedient.result({ timeout: 5_000 }), ExecutionCancelledError);
    await working;
    await assertNoKeyWithoutTtl(name);
    // running: a handler that ignores the abort and returns
    tasks.started = deferred();
    const stubborn = await client.add(Tasks.prototype.stubborn, { key: 'i' })('x');
    working = worker.runUntilFinished();
    await tasks.started.promise;
    await client.cancel('i');
    await assert.rejects(stubborn.result({ timeout: 5_000 }), ExecutionCancelledError);
    await working;
    await assertNoKeyWithoutTtl(name);
    // finished
    await client.add(Tasks.prototype.record, { key: 'done' })('x');
    await worker.runUntilFinished();
    await client.cancel('done');
    await assertNoKeyWithoutTtl(name);
    // twice, queued and running
    await client.add(Tasks.prototype.record, { key: 'twice' })('x');
    await client.cancel('twice');
    await client.cancel('twice');
    tasks.started = deferred();
    const run2 = await client.add(Tasks.prototype.obedient, { key: 'run2' })('y');
    working = worker.runUntilFinished();
    await tasks.started.promise;
    await client.cancel('run2');
    await client.cancel('run2');
    await assert.rejects(run2.result({ timeout: 5_000 }), ExecutionCancelledError);
    await working;
    await client.cancel('run2');
    await assertNoKeyWithoutTtl(name);
  });

  it('a cancel of an unknown key writes nothing', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await docket.client.cancel('never-added');
    assert.deepEqual(await docketKeys(docket.name), []);
  });
});

describe('key lifetimes: results (e2e/results)', { timeout: 60_000 }, () => {
  it('results, errors and progress of ended executions expire', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { name: 'results-worker' } });
    const { client } = docket;
    const executions = [
      await client.add(Tasks.prototype.echo)(new Date(0), 2n ** 70n, new Map([['a', 1]])),
      await client.add(Tasks.prototype.nothing, { key: 'seen' })(),
      await client.add(Tasks.prototype.raise)('it went wrong: badly'),
      await client.add(Tasks.prototype.report)(),
      await client.add(Tasks.prototype.nothing, { key: 'w' })(),
    ];
    await assert.rejects(executions[4].result({ timeout: 150 }));
    await docket.worker.runUntilFinished();
    for (const execution of executions) await execution.sync();
    assert.deepEqual(
      executions.map((e) => e.state),
      ['completed', 'completed', 'failed', 'completed', 'completed'],
    );
    assert.equal(await client.getExecution('no-such-key'), null);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('executionTtl: 0 keeps no key of an ended execution', async (t) => {
    const docket = await useDocket(t, [Tasks], { ...FAST, executionTtl: 0 });
    await docket.client.add(Tasks.prototype.report, { key: 'done' })();
    await docket.client.add(Tasks.prototype.raise, { key: 'failed' })('x');
    await docket.client.add(Tasks.prototype.echo, { key: 'cancelled', delay: 60_000 })(1n);
    await docket.client.cancel('cancelled');
    await docket.worker.runUntilFinished();
    const keys = await docketKeys(docket.name);
    assert.deepEqual(
      keys.filter((k) => !['stream', 'queue', 'dead', 'workers', 'strikes'].includes(k)),
      [],
    );
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('executionTtl: state, result and progress expire after executionTtl, then are gone', async (t) => {
    const docket = await useDocket(t, [Tasks], { ...FAST, executionTtl: 600 });
    const execution = await docket.client.add(Tasks.prototype.report, { key: 'ttl' })();
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'reported');
    await withRaw(async (redis) => {
      for (const key of ['runs:ttl', 'results:ttl', 'progress:ttl']) {
        const ttl = await redis.pttl(keyOf(docket.name, key));
        assert.ok(ttl > 0 && ttl <= 600, `${key} expires in ${ttl}ms`);
      }
    });
    await waitFor(
      async () => (await docket.client.getExecution('ttl')) === null,
      'the execution to expire',
    );
    assert.deepEqual(
      (await docketKeys(docket.name)).filter((k) => k.endsWith(':ttl')),
      [],
    );
  });
});

describe('key lifetimes: future tasks and replace (e2e/schedule)', { timeout: 60_000 }, () => {
  it('future tasks: by delay, by when, waking the scheduler, in the past', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const { client, worker, name } = docket;
    await client.add(Tasks.prototype.record, { delay: 400 })('d');
    const now = Date.now();
    for (const [value, ms] of [
      ['c', 700],
      ['a', 250],
      ['b', 450],
    ] as const) {
      await client.add(Tasks.prototype.record, { when: new Date(now + ms) })(value);
    }
    await client.add(Tasks.prototype.record, { when: new Date(Date.now() - 60_000) })('past');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    // a late task left scheduled while an earlier one runs
    void worker.runForever();
    await waitFor(() => worker.status().lastPollAt > 0, 'the worker to poll');
    await client.add(Tasks.prototype.record, { key: 'late', delay: 10_000 })('late');
    const early = await client.add(Tasks.prototype.record, { key: 'early', delay: 200 })('early');
    await early.result({ timeout: 5_000 });
    assert.equal((await runsHash(name, 'late')).state, 'scheduled');
    await assertNoKeyWithoutTtl(name);
  });

  it('replace: of a scheduled, queued, future-by-due, missing and running task', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 3, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    const { client, worker, name } = docket;
    await client.add(Tasks.prototype.record, { key: 'r', delay: 60_000 })('old');
    await client.replace(Tasks.prototype.record, { key: 'r', delay: 300 })('new');
    await client.add(Tasks.prototype.record, { key: 'q' })('old');
    await client.replace(Tasks.prototype.record, { key: 'q' })('new');
    await client.add(Tasks.prototype.record, { key: 'f', delay: 60_000 })('later');
    await client.replace(Tasks.prototype.record, { key: 'f' })('now');
    await client.replace('record', { key: 'fresh' })('v');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    // a running task replaced by a future one (its stale completion is dropped), and by a due one
    await client.add(Tasks.prototype.gated, { key: 'g' })('first');
    const working = worker.runForever();
    t.after(async () => {
      tasks.gate.resolve();
      await working;
    });
    await tasks.started.promise;
    await client.replace(Tasks.prototype.gated, { key: 'g', delay: 60_000 })('second');
    await client.add(Tasks.prototype.gated, { key: 'o' })('first');
    await waitFor(() => worker.activeTasks === 2, 'both tasks to run');
    const second = await client.replace(Tasks.prototype.record, { key: 'o' })('second');
    assert.equal(await second.result({ timeout: 5_000 }), 'second');
    tasks.gate.resolve();
    await waitFor(() => worker.activeTasks === 0, 'the first runs to end');
    assert.equal((await runsHash(name, 'g')).state, 'scheduled');
    await assertNoKeyWithoutTtl(name);
  });
});

describe('key lifetimes: workers, snapshot and clear (e2e/registry)', { timeout: 60_000 }, () => {
  it("a running worker's registry, and a stopped worker's, expire", async (t) => {
    const docket = await useDocket(t, [Tasks], {
      heartbeatInterval: 200,
      worker: { name: 'registry-worker', minimumCheckInterval: 100 },
    });
    void docket.worker.runForever();
    await waitFor(async () => (await docket.client.workers()).length > 0, 'the worker to beat');
    await assertNoKeyWithoutTtl(docket.name);
    const stopped = await useDocket(t, [Tasks], {
      worker: { name: 'short-lived', minimumCheckInterval: 100 },
    });
    await stopped.client.add(Tasks.prototype.record)('x');
    await stopped.worker.runUntilFinished();
    await assertNoKeyWithoutTtl(stopped.name);
  });

  it('clear() of a queued and a future task while one runs', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      heartbeatInterval: 200,
      worker: { name: 'snap', concurrency: 1, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    t.after(() => tasks.gate.resolve());
    const running = await docket.client.add(Tasks.prototype.gated, { key: 'running' })('r');
    void docket.worker.runForever();
    await tasks.started.promise;
    await docket.client.add(Tasks.prototype.record, { key: 'queued' })('q');
    await docket.client.add(Tasks.prototype.record, { key: 'future', delay: 60_000 })('f');
    await docket.client.snapshot();
    assert.equal(await docket.client.clear(), 2);
    tasks.gate.resolve();
    assert.equal(await running.result({ timeout: 5_000 }), 'r');
    assert.equal(await docket.client.clear(), 0);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('clear() of a task waiting for a concurrency slot', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    const tasks = docket.module.get(Tasks);
    t.after(() => tasks.gate.resolve());
    const holder = await docket.client.add(Tasks.prototype.single, { key: 'holder' })('first');
    void docket.worker.runForever();
    await tasks.started.promise;
    await docket.client.add(Tasks.prototype.single, { key: 'waiter' })('second');
    await waitFor(
      async () => (await runsHash(docket.name, 'waiter')).waiting !== undefined,
      'the second task to wait for the slot',
    );
    assert.equal(await docket.client.clear(), 1);
    tasks.gate.resolve();
    assert.equal(await holder.result({ timeout: 5_000 }), 'first');
    await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle');
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe('key lifetimes: dead letters (e2e/dead-letters)', { timeout: 60_000 }, () => {
  it('a failed last attempt, an unknown task, arguments that do not fit', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const docket = await useDocket(t, [Tasks], { ...FAST, name: producer.name });
    await docket.client.add(Tasks.prototype.doomed, { key: 'd' })('x');
    await producer.client.add('from.the.future', { key: 'f' })(1, 'two');
    await docket.client.add('pair', { key: 'missing' })('only-left');
    await docket.client.add('pair', { key: 'extra' })('a', 'b', 'c');
    await docket.client.add('pair', { key: 'fine' })('a', 'b');
    await docket.worker.runUntilFinished();
    // 'missing' runs (fewer arguments than declared is legal); the other three are dead letters
    assert.equal((await docket.client.deadLetters()).length, 3);
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe(
  'key lifetimes: workers sharing a docket (e2e/worker, e2e/redelivery)',
  { timeout: 60_000 },
  () => {
    it('a bounded worker, and two workers sharing the work', async (t) => {
      const bounded = await useDocket(t, [Tasks], {
        worker: { name: 'bounded', concurrency: 3, minimumCheckInterval: 100 },
      });
      for (let n = 0; n < 10; n++) await bounded.client.add(Tasks.prototype.busy)(n);
      await bounded.worker.runUntilFinished();
      await assertNoKeyWithoutTtl(bounded.name);
      const first = await useDocket(t, [Tasks], {
        worker: { name: 'a', concurrency: 2, minimumCheckInterval: 50 },
      });
      const second = await useDocket(t, [Tasks], {
        name: first.name,
        worker: { name: 'b', concurrency: 2, minimumCheckInterval: 50 },
      });
      for (let n = 0; n < 12; n++) await first.client.add(Tasks.prototype.busy)(n);
      await Promise.all([first.worker.runUntilFinished(), second.worker.runUntilFinished()]);
      await assertNoKeyWithoutTtl(first.name);
    });

    it('a long task of a live worker that renews its lease', async (t) => {
      const name = uniqueName('lease');
      const options = (worker: string) => ({
        name,
        worker: { name: worker, redeliveryTimeout: 400, minimumCheckInterval: 50 },
      });
      const first = await useDocket(t, [Tasks], options('w1'));
      const second = await useDocket(t, [Tasks], options('w2'));
      void first.worker.runForever();
      void second.worker.runForever();
      const execution = await first.client.add(Tasks.prototype.long, { key: 'l' })('slow');
      assert.equal(await execution.result({ timeout: 10_000 }), 'slow');
      await assertNoKeyWithoutTtl(name);
    });

    it(
      'the task of a killed worker, run by another or cancelled meanwhile',
      { skip: REDIS_ONLY },
      async (t) => {
        const name = uniqueName('kill');
        const child = childWorker(t, name, 'doomed-worker', 600);
        const docket = await useDocket(t, [HangTasks], {
          name,
          worker: { name: 'heir', redeliveryTimeout: 600, minimumCheckInterval: 100 },
        });
        const redelivered = await docket.client.add(HangTasks.prototype.hang, { key: 'h' })('job');
        assert.equal(await child.started(), 'doomed-worker:job');
        const cancelled = await docket.client.add(HangTasks.prototype.hang, { key: 'c' })('job');
        await waitFor(
          async () => (await runsHash(name, 'c')).worker === 'doomed-worker',
          'the child to take the second task too',
        );
        await child.killed();
        await docket.client.cancel('c');
        await docket.worker.runUntilFinished();
        assert.equal(await redelivered.result({ timeout: 5_000 }), 'heir:job');
        await assert.rejects(cancelled.result({ timeout: 5_000 }), ExecutionCancelledError);
        await assertNoKeyWithoutTtl(name);
      },
    );
  },
);

describe('key lifetimes: the sample app (e2e/sample-app)', { timeout: 60_000 }, () => {
  it('welcome mails now and later, a report with progress, a cancelled report', async () => {
    const name = uniqueName('sample');
    const sample = await createSampleApp({
      url: REDIS_URL,
      name,
      port: 0,
      host: '127.0.0.1',
      logger: false,
    });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${sample.url}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await response.json()) as Record<string, any>;
      };
      const now = await call('POST', '/tasks/welcome', { userId: 'ada', locale: 'fr' });
      const later = { userId: 'bob', delayMs: 400, key: `welcome-${name}` };
      await call('POST', '/tasks/welcome', later);
      await call('POST', '/tasks/welcome', later);
      const report = await call('POST', '/tasks/report', { customerId: 42, sections: 3 });
      await call('POST', '/tasks/report', {
        customerId: 7,
        delayMs: 60_000,
        key: `report-${name}`,
      });
      await call('DELETE', `/tasks/report-${name}`);
      await call('GET', `/tasks/no-such-key-${name}`);
      for (const key of [now.key, later.key, report.key]) {
        assert.equal((await call('GET', `/tasks/${key}?wait=10000`)).state, 'completed', key);
      }
      await assertNoKeyWithoutTtl(name);
    } finally {
      await sample.app.close();
    }
    await assertNoKeyWithoutTtl(name);
  });
});
