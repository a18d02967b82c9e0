// Key lifetimes of the behaviours: the keys that rate limits, cooldowns, debounces,
// concurrency slots and waiting lines, retries, timeouts, perpetual chains, crons, strikes,
// progress and the task context write all expire (or belong to a live task), and a boot that
// fails writes no key. Each scenario replays the storage side of the e2e tests of
// test/e2e/behaviours/<behaviour>.test.ts, which check the behaviour through the public API only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable, type Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  Ctx,
  DocketModule,
  DocketTask,
  type DocketTaskOptions,
  type Execution,
  type StrikeCondition,
  type TaskContext,
} from '../../lib/index.js';
import {
  REDIS_URL,
  createDocket,
  deferred,
  uniqueName,
  useDocket,
  waitFor,
  type TestDocket,
} from '../utils.js';
import { assertNoKeyWithoutTtl, docketKeys, keyOf, runsHash, withRaw } from './raw.js';

/** Wait `ms` inside a handler. The timer does not hold the process. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Wait until `ms` after `since` (epoch ms) has passed (a timer that holds the process). */
async function past(since: number, ms: number): Promise<void> {
  const left = since + ms - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left + 10));
}

/** Close every app, then check the keys of their docket. */
async function closeAndCheck(apps: TestDocket[]): Promise<void> {
  await Promise.all(apps.map((app) => app.close()));
  await assertNoKeyWithoutTtl(apps[0].name);
}

/** Boot `count` apps of one docket, each with its own worker `w<i>`. */
async function createDockets(
  count: number,
  providers: Provider[],
  options: Parameters<typeof createDocket>[1] = {},
): Promise<TestDocket[]> {
  const name = options.name ?? uniqueName();
  const worker = options.worker || {};
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      createDocket(providers, { ...options, name, worker: { ...worker, name: `w${i}` } }),
    ),
  );
}

/** Whether `key` waits in a concurrency line (its runs hash names the line). */
async function waiting(name: string, key: string): Promise<boolean> {
  return (await runsHash(name, key)).waiting !== undefined;
}

// -- rate limit --------------------------------------------------------------------------

@Injectable()
class RateTasks {
  @DocketTask({ rateLimit: { limit: 2, per: 5_000, drop: true } })
  async dropping(label: string): Promise<unknown[]> {
    return [label];
  }

  @DocketTask({ rateLimit: { limit: 2, per: 500 } })
  async deferring(label: string): Promise<unknown[]> {
    return [label];
  }

  @DocketTask({ rateLimit: { limit: 1, per: 5_000, argument: 'customerId', drop: true } })
  async perCustomer(customerId: number, label: string): Promise<unknown[]> {
    return [customerId, label];
  }

  @DocketTask({
    rateLimit: [
      { limit: 1, per: 300 },
      { limit: 2, per: 5_000, drop: true },
    ],
  })
  async twoWindows(label: string): Promise<unknown[]> {
    return [label];
  }
}

// -- cooldown ----------------------------------------------------------------------------

@Injectable()
class CooldownTasks {
  seen: unknown[][] = [];
  starts: number[] = [];

  @DocketTask({ cooldown: { window: 1_000, argument: 'customerId' } })
  async notify(customerId: number, label: string): Promise<unknown[]> {
    return [customerId, label];
  }

  @DocketTask({ cooldown: { window: 300 } })
  async briefly(label: string): Promise<void> {
    this.seen.push([label]);
    this.starts.push(Date.now());
  }

  @DocketTask({ cooldown: [{ window: 100 }, { window: 5_000 }] })
  async twoWindows(label: string): Promise<void> {
    this.seen.push([label]);
    this.starts.push(Date.now());
  }
}

// -- debounce ----------------------------------------------------------------------------

@Injectable()
class DebounceTasks {
  @DocketTask({ debounce: { settle: 200, argument: 'customerId' } })
  async recompute(customerId: number, label: string): Promise<unknown[]> {
    return [customerId, label];
  }
}

// -- concurrency -------------------------------------------------------------------------

@Injectable()
class ConcurrencyTasks {
  seen: unknown[][] = [];
  gate = deferred();
  firstStarted = deferred();

  @DocketTask({ concurrency: { max: 1, argument: 'customerId' } })
  async perCustomer(customerId: number, label: string): Promise<void> {
    this.seen.push([customerId, label]);
    await sleep(30);
  }

  @DocketTask({ concurrency: { max: 2 } })
  async perTask(label: string): Promise<void> {
    this.seen.push([label]);
    await sleep(30);
  }

  @DocketTask({ concurrency: { max: 1 } })
  async gated(label: string): Promise<void> {
    this.seen.push([label]);
    this.firstStarted.resolve();
    await this.gate.promise;
  }

  @DocketTask({ concurrency: { max: 1, scope: 'reports' } })
  async dailyReport(label: string): Promise<void> {
    this.seen.push([label]);
    await sleep(20);
  }

  @DocketTask({ concurrency: { max: 1, scope: 'reports' } })
  async weeklyReport(label: string): Promise<void> {
    this.seen.push([label]);
    await sleep(20);
  }

  @DocketTask({ concurrency: { max: 2 } })
  async bounded(label: string): Promise<void> {
    this.seen.push([label]);
    await sleep(40);
  }
}

// -- retry -------------------------------------------------------------------------------

@Injectable()
class RetryTasks {
  seen: unknown[][] = [];
  @DocketTask({ retry: { attempts: 3, delay: 100 } })
  async alwaysFails(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    this.seen.push([label]);
    throw new Error(`boom ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: 5, delay: 25, backoff: 'exponential' } })
  async exponential(@Ctx() ctx: TaskContext): Promise<void> {
    throw new Error(`exponential ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: 5, delay: 100, backoff: 'exponential', maxDelay: 100 } })
  async capped(@Ctx() ctx: TaskContext): Promise<void> {
    throw new Error(`capped ${ctx.attempt}`);
  }

  @DocketTask({ retry: { attempts: Infinity, delay: 10 } })
  async forever(@Ctx() ctx: TaskContext): Promise<number> {
    if (ctx.attempt < 4) throw new Error(`not yet (${ctx.attempt})`);
    return ctx.attempt;
  }

  @DocketTask({ retry: { attempts: 3 } })
  async forced(@Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.attempt === 1) ctx.retry.in(150);
    if (ctx.attempt === 2) ctx.retry.at(new Date(Date.now() + 100));
    return 'done';
  }

  @DocketTask()
  async forcedWithoutRetry(@Ctx() ctx: TaskContext): Promise<void> {
    ctx.retry.in(10);
  }

  @DocketTask({ retry: { attempts: 2 } })
  async alwaysForces(@Ctx() ctx: TaskContext): Promise<void> {
    ctx.retry.in(10);
  }

  @DocketTask({ retry: { attempts: 2, delay: 300 } })
  async failsOnce(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return value;
  }
}

// -- timeout -----------------------------------------------------------------------------

@Injectable()
class TimeoutTasks {
  started = deferred();

  @DocketTask({ timeout: 100 })
  async hangs(): Promise<string> {
    await sleep(5_000); // ignores its signal
    return 'late';
  }

  @DocketTask({ timeout: 100, retry: { attempts: 2 } })
  async hangsOnce(@Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.attempt === 1) await sleep(5_000);
    return `attempt ${ctx.attempt}`;
  }

  @DocketTask({ timeout: 100, retry: { attempts: 2 } })
  async alwaysHangs(): Promise<void> {
    await sleep(5_000);
  }

  @DocketTask({ timeout: 200 })
  async extends(@Ctx() ctx: TaskContext): Promise<string> {
    await sleep(60);
    ctx.timeout.extend(300);
    await sleep(250);
    return 'finished';
  }

  @DocketTask({ timeout: 150 })
  async extendsByItsTimeout(@Ctx() ctx: TaskContext): Promise<string> {
    await sleep(100);
    ctx.timeout.extend();
    await sleep(100);
    return 'finished';
  }

  @DocketTask()
  async untimed(@Ctx() ctx: TaskContext): Promise<number> {
    return ctx.timeout.remaining();
  }

  @DocketTask({ timeout: 5_000, retry: { attempts: 3 } })
  async cancellable(@Ctx() ctx: TaskContext): Promise<void> {
    this.started.resolve();
    await new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
    );
  }
}

// -- perpetual ---------------------------------------------------------------------------

@Injectable()
class PerpetualTasks {
  moved = 0;

  @DocketTask({ perpetual: { every: 50 } })
  async count(counter: number, @Ctx() ctx: TaskContext): Promise<number> {
    ctx.perpetual.perpetuate(counter + 1);
    return counter;
  }

  @DocketTask({ perpetual: { every: 10 } })
  async stopsAfterTwo(n = 0, @Ctx() ctx?: TaskContext): Promise<void> {
    if (n === 1) ctx!.perpetual.cancel();
    else ctx!.perpetual.perpetuate(n + 1);
  }

  @DocketTask({ perpetual: { every: 10 } })
  async movesItsNextRun(@Ctx() ctx: TaskContext): Promise<void> {
    this.moved++;
    if (this.moved === 1) ctx.perpetual.in(200);
    if (this.moved === 2) ctx.perpetual.at(new Date(Date.now() + 150));
  }

  @DocketTask({ perpetual: { every: 10 } })
  async alwaysFails(): Promise<void> {
    throw new Error('perpetual failure');
  }
}

/** Shared by the three apps of the automatic chain. */
const chain = { runs: 0, enough: deferred() };

@Injectable()
class AutomaticTasks {
  @DocketTask({ perpetual: { every: 100, automatic: true } })
  async everyTenth(): Promise<void> {
    await sleep(20);
    if (++chain.runs >= 6) chain.enough.resolve();
  }
}

// -- cron --------------------------------------------------------------------------------

@Injectable()
class CronTasks {
  @DocketTask({ cron: '* * * * *' })
  async everyMinute(): Promise<void> {}

  @DocketTask({ cron: { expression: '0 9 * * *', tz: 'Asia/Tokyo', automatic: true } })
  async morningInTokyo(): Promise<void> {}

  @DocketTask({ cron: { expression: '0 9 * * *' } })
  async morningInUtc(): Promise<void> {}

  @DocketTask({ cron: '@daily' })
  async nightly(): Promise<void> {}

  @DocketTask({ cron: { expression: '*/5 * * * *', automatic: false } })
  async everyFiveMinutes(label: string): Promise<string> {
    return label;
  }
}

// -- strikes -----------------------------------------------------------------------------

@Injectable()
class StrikeTasks {
  @DocketTask()
  async charge(customerId: unknown, amount = 0): Promise<unknown[]> {
    return [customerId, amount];
  }

  @DocketTask()
  async refund(customerId: unknown): Promise<unknown[]> {
    return [customerId];
  }
}

@Injectable()
class StruckAutomaticTasks {
  @DocketTask({ perpetual: { every: 60_000, automatic: true } })
  async sweep(): Promise<void> {}

  @DocketTask({ cron: '0 0 1 1 *' })
  async newYear(): Promise<void> {}
}

const customer = (
  value: unknown,
  operator: StrikeCondition['operator'] = '==',
): StrikeCondition => ({ task: 'charge', parameter: 'customerId', operator, value });

// -- progress and context ----------------------------------------------------------------

@Injectable()
class ProgressTasks {
  @DocketTask()
  async report(@Ctx() ctx: TaskContext): Promise<string> {
    await ctx.progress.setTotal(3);
    for (let i = 0; i < 3; i++) await ctx.progress.increment();
    await ctx.progress.setMessage('x');
    return 'done';
  }

  @DocketTask()
  async badCounts(@Ctx() ctx: TaskContext): Promise<void> {
    await ctx.progress.setTotal(0).catch(() => undefined);
    await ctx.progress.increment(-1).catch(() => undefined);
  }

  @DocketTask()
  async zeroTotal(@Ctx() ctx: TaskContext): Promise<void> {
    await ctx.progress.setTotal(0);
  }
}

@Injectable()
class ContextTasks {
  @DocketTask()
  async inspect(userId: string, count: number, @Ctx() _ctx: TaskContext): Promise<unknown[]> {
    return [userId, count];
  }

  @DocketTask()
  async parent(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    const child = await ctx.docket.add(ContextTasks.prototype.child, { key: `${ctx.key}.child` })(
      `${label}!`,
    );
    return child.key;
  }

  @DocketTask()
  async child(label: string): Promise<string> {
    return label;
  }

  @DocketTask()
  async middle(first: string, @Ctx() _ctx: TaskContext, second = 5): Promise<string> {
    return `${first}-${second}`;
  }
}

// -- boot errors -------------------------------------------------------------------------

@Injectable()
class DottedPath {
  @DocketTask({
    concurrency: { max: 1, argument: 'order.customerId' },
    rateLimit: { limit: 1, per: 5_000, argument: 'order.customerId', drop: true },
  })
  async ship(order: { customerId: number; id: number }): Promise<unknown[]> {
    return [order];
  }
}

@Injectable()
class AutomaticWithDefault {
  @DocketTask({ perpetual: { every: 60_000, automatic: true } })
  async poll(url = 'https://example.com'): Promise<string> {
    return url;
  }
}

@Injectable()
class PerpetualAndCron {
  @DocketTask({ perpetual: { every: 1_000 }, cron: '* * * * *' })
  async both(): Promise<void> {}
}

@Injectable()
class UnknownArgument {
  @DocketTask({ concurrency: { max: 1, argument: 'nope' } })
  async charge(customerId: number, amount: number): Promise<number> {
    return customerId * amount;
  }
}

@Injectable()
class UnknownPathHead {
  @DocketTask({ rateLimit: { limit: 1, per: 1_000, argument: 'invoice.customerId' } })
  async ship(order: { customerId: number }): Promise<number> {
    return order.customerId;
  }
}

@Injectable()
class ZeroLimit {
  @DocketTask({ rateLimit: { limit: 0, per: 1_000 } })
  async limited(): Promise<void> {}
}

@Injectable()
class TwoConcurrencies {
  @DocketTask({
    concurrency: [{ max: 1 }, { max: 2 }] as unknown as DocketTaskOptions['concurrency'],
  })
  async twice(): Promise<void> {}
}

@Injectable()
class BadRetry {
  @DocketTask({ retry: { attempts: 0 } })
  async never(): Promise<void> {}
}

@Injectable()
class BadCronTasks {
  @DocketTask({ cron: 'every minute' })
  async broken(): Promise<void> {}
}

@Injectable()
class BadZoneTasks {
  @DocketTask({ cron: { expression: '0 9 * * *', tz: 'Mars/Olympus_Mons' } })
  async martian(): Promise<void> {}
}

describe('key lifetimes of the behaviours', { timeout: 60_000 }, () => {
  it('rateLimit: dropped, deferred, per argument value and in two windows', async (t) => {
    const docket = await useDocket(t, [RateTasks]);
    const { client } = docket;
    for (const label of ['a', 'b', 'c']) {
      await client.add(RateTasks.prototype.dropping)(label);
      await client.add(RateTasks.prototype.deferring)(label);
      await client.add(RateTasks.prototype.twoWindows)(label);
    }
    for (const [customerId, label] of [
      [1, 'a'],
      [2, 'a'],
      [1, 'b'],
      [2, 'b'],
    ] as const) {
      await client.add(RateTasks.prototype.perCustomer)(customerId, label);
    }
    await docket.worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('cooldown: a repeat dropped within the window, per argument value, and in two windows', async (t) => {
    const docket = await useDocket(t, [CooldownTasks]);
    const tasks = docket.module.get(CooldownTasks);
    const { client, worker } = docket;
    await client.add(CooldownTasks.prototype.notify)(1, 'first');
    await worker.runUntilFinished();
    await client.add(CooldownTasks.prototype.notify)(1, 'repeat');
    await client.add(CooldownTasks.prototype.notify)(2, 'other');
    for (const label of ['a', 'b', 'c']) await client.add(CooldownTasks.prototype.briefly)(label);
    await worker.runUntilFinished();
    await past(tasks.starts[0], 300);
    await client.add(CooldownTasks.prototype.briefly)('later');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
    tasks.starts = [];
    await client.add(CooldownTasks.prototype.twoWindows)('first');
    await worker.runUntilFinished();
    await past(tasks.starts[0], 100);
    await client.add(CooldownTasks.prototype.twoWindows)('repeat');
    await worker.runUntilFinished();
    await docket.close();
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('debounce: bursts for one argument value, and a burst after the first ran', async (t) => {
    const docket = await useDocket(t, [DebounceTasks]);
    const { client, worker } = docket;
    await client.add(DebounceTasks.prototype.recompute)(1, 'first');
    await client.add(DebounceTasks.prototype.recompute)(2, 'other');
    const running = worker.runUntilFinished();
    for (const label of ['second', 'third', 'fourth', 'fifth']) {
      await client.add(DebounceTasks.prototype.recompute)(1, label);
    }
    await running;
    await assertNoKeyWithoutTtl(docket.name);
    await client.add(DebounceTasks.prototype.recompute)(7, 'a1');
    await client.add(DebounceTasks.prototype.recompute)(7, 'a2');
    await worker.runUntilFinished();
    await client.add(DebounceTasks.prototype.recompute)(7, 'b1');
    await client.add(DebounceTasks.prototype.recompute)(7, 'b2');
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('concurrency: per argument value, per task, per scope, and across two workers', async (t) => {
    const docket = await useDocket(t, [ConcurrencyTasks], { worker: { concurrency: 10 } });
    const { client } = docket;
    for (const label of ['a', 'b', 'c']) {
      await client.add(ConcurrencyTasks.prototype.perCustomer)(1, label);
      await client.add(ConcurrencyTasks.prototype.perCustomer)(2, label);
      await client.add(ConcurrencyTasks.prototype.dailyReport)(label);
      await client.add(ConcurrencyTasks.prototype.weeklyReport)(label);
    }
    for (let i = 0; i < 8; i++) await client.add(ConcurrencyTasks.prototype.perTask)(`t${i}`);
    await docket.worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);

    const apps = await createDockets(2, [ConcurrencyTasks], { worker: { concurrency: 10 } });
    t.after(() => Promise.all(apps.map((app) => app.close())).then(() => undefined));
    const [a, b] = apps;
    for (let i = 0; i < 10; i++) {
      await (i % 2 ? a : b).client.add(ConcurrencyTasks.prototype.bounded)(`t${i}`);
    }
    await Promise.all([a.worker.runUntilFinished(), b.worker.runUntilFinished()]);
    await assertNoKeyWithoutTtl(a.name);
  });

  it('concurrency: a waiting line drained in order, a waiting task cancelled, struck or cleared', async (t) => {
    const docket = await useDocket(t, [ConcurrencyTasks]);
    const tasks = docket.module.get(ConcurrencyTasks);
    t.after(() => tasks.gate.resolve());
    const { client, name } = docket;
    const add = (label: string) => client.add(ConcurrencyTasks.prototype.gated)(label);
    await add('first');
    const running = docket.worker.runUntilFinished();
    await tasks.firstStarted.promise;
    const line: Execution[] = [];
    for (const label of ['second', 'third', 'fourth', 'fifth', 'sixth']) {
      const execution = await add(label);
      line.push(execution);
      await waitFor(() => waiting(name, execution.key), `${label} to wait`);
    }
    await client.cancel(line[0].key);
    await client.strike({ task: 'gated', parameter: 'label', value: 'third' });
    tasks.gate.resolve();
    await running;
    await assertNoKeyWithoutTtl(name);

    tasks.gate = deferred();
    tasks.firstStarted = deferred();
    await add('holder');
    const working = docket.worker.runUntilFinished();
    await tasks.firstStarted.promise;
    const waiter = await add('waiter');
    await waitFor(() => waiting(name, waiter.key), 'the waiter to wait');
    assert.equal(await client.clear(), 1);
    tasks.gate.resolve();
    await working;
    await assertNoKeyWithoutTtl(name);
  });

  it('retry: attempts, backoff, forced retries, and an add while the retry waits', async (t) => {
    const docket = await useDocket(t, [RetryTasks]);
    const { client, worker, name } = docket;
    await client.add(RetryTasks.prototype.alwaysFails)('x');
    await client.add(RetryTasks.prototype.exponential)();
    await client.add(RetryTasks.prototype.capped)();
    await client.add(RetryTasks.prototype.forever)();
    await client.add(RetryTasks.prototype.forced)();
    await client.add(RetryTasks.prototype.forcedWithoutRetry)();
    await client.add(RetryTasks.prototype.alwaysForces)();
    const add = client.add(RetryTasks.prototype.failsOnce, { key: 'retrying' });
    await add('first');
    const running = worker.runUntilFinished();
    await waitFor(
      async () => (await runsHash(name, 'retrying')).attempt === '2',
      'the retry to be scheduled',
    );
    assert.equal((await add('second')).disposition, 'already_scheduled');
    await running;
    await assertNoKeyWithoutTtl(name);
  });

  it('timeout: timed out, retried after a timeout, extended, and cancelled', async (t) => {
    const docket = await useDocket(t, [TimeoutTasks]);
    const tasks = docket.module.get(TimeoutTasks);
    const { client, worker } = docket;
    await client.add(TimeoutTasks.prototype.hangs, { key: 'slow' })();
    await client.add(TimeoutTasks.prototype.hangsOnce)();
    await client.add(TimeoutTasks.prototype.alwaysHangs, { key: 'always' })();
    await client.add(TimeoutTasks.prototype.extends)();
    await client.add(TimeoutTasks.prototype.extendsByItsTimeout)();
    await client.add(TimeoutTasks.prototype.untimed)();
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
    const cancellable = await client.add(TimeoutTasks.prototype.cancellable)();
    const running = worker.runUntilFinished();
    await tasks.started.promise;
    await client.cancel(cancellable.key);
    await running;
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('perpetual: chains that run on, end by cancel(), move their next run, and fail', async (t) => {
    const docket = await useDocket(t, [PerpetualTasks]);
    const { client, worker } = docket;
    await client.add(PerpetualTasks.prototype.count, { key: 'tick' })(0);
    await client.add(PerpetualTasks.prototype.stopsAfterTwo, { key: 'stops' })();
    await client.add(PerpetualTasks.prototype.movesItsNextRun, { key: 'moved' })();
    await client.add(PerpetualTasks.prototype.alwaysFails, { key: 'failing' })();
    await worker.runAtMost({ tick: 3, moved: 3, failing: 3 });
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('perpetual: one chain of an automatic task that three workers start at once', async () => {
    const apps = await createDockets(3, [AutomaticTasks], { worker: { autoStart: true } });
    try {
      await chain.enough.promise;
    } finally {
      await closeAndCheck(apps);
    }
  });

  it('cron: automatic crons seeded at boot, and a cron task added by hand with its successor', async () => {
    const docket = await createDocket([CronTasks], { worker: { autoStart: true } });
    try {
      for (const key of ['everyMinute', 'morningInTokyo', 'morningInUtc', 'nightly']) {
        await waitFor(() => docket.client.getExecution(key), `${key} to be seeded`);
      }
      await assertNoKeyWithoutTtl(docket.name);
      const manual = await docket.client.add(CronTasks.prototype.everyFiveMinutes, {
        key: 'manual',
      })('by hand');
      await waitFor(async () => {
        const successor = await docket.client.getExecution('manual');
        return successor?.state === 'scheduled' && successor.generation > manual.generation;
      }, 'the successor to be scheduled');
    } finally {
      await docket.close();
    }
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('strikes: a struck add writes no key', async (t) => {
    const docket = await useDocket(t, [StrikeTasks]);
    await docket.client.strike(customer(7));
    const before = await docketKeys(docket.name);
    const struck = await docket.client.add(StrikeTasks.prototype.charge, { key: 'seven' })(7, 10);
    assert.equal(struck.disposition, 'struck');
    assert.deepEqual(await docketKeys(docket.name), before);
    await docket.client.add(StrikeTasks.prototype.charge, { key: 'eight' })(8, 10);
    assert.ok((await docketKeys(docket.name)).includes('runs:eight'));
    await docket.worker.runUntilFinished();
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('strikes: tasks struck while they wait, strikes of every kind restored, seen by two apps', async (t) => {
    const docket = await useDocket(t, [StrikeTasks]);
    const { client, worker, name } = docket;
    await client.add(StrikeTasks.prototype.charge)(7);
    await client.add(StrikeTasks.prototype.charge, { delay: 150 })(7);
    await client.add(StrikeTasks.prototype.charge)(8);
    await client.strike(customer(7));
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);
    await client.restore(customer(7));
    // adds under strikes of every operator, left queued for clear()
    for (const [condition, values] of [
      [customer([3, 5], 'between'), [2, 3, 4, 5, 6]],
      [customer(7, '!='), [7, 8, 'x']],
      [customer(5, '<'), [4, 5, 6]],
      [customer(new Date('2030-01-01'), '<'), [new Date('2029-12-31'), 1]],
      [customer({ id: 4 }), [4, 5]],
    ] as [StrikeCondition, unknown[]][]) {
      await client.strike(condition);
      for (const value of values) await client.add(StrikeTasks.prototype.charge)(value);
      await client.restore(condition);
    }
    await client.clear();
    await assertNoKeyWithoutTtl(name);
    // a whole task struck, and a parameter of every task
    await client.strike({ task: StrikeTasks.prototype.charge });
    await client.add(StrikeTasks.prototype.charge)(1);
    await client.add('refund')(1);
    await client.restore({ task: 'charge' });
    await client.strike({ parameter: 'customerId', value: 9 });
    await client.add('refund')(9);
    await client.restore({ parameter: 'customerId', value: 9 });
    await worker.runUntilFinished();
    await assertNoKeyWithoutTtl(name);

    const [a, b] = await createDockets(2, [StrikeTasks]);
    t.after(async () => {
      await a.close();
      await b.close();
    });
    await a.client.strike(customer(7));
    await b.client.add(StrikeTasks.prototype.charge)(7);
    await b.client.add(StrikeTasks.prototype.charge)(8);
    await a.client.strike(customer(8));
    await waitFor(
      async () => (await b.client.add(StrikeTasks.prototype.charge)(8)).disposition === 'struck',
      'B to hear of the strike of 8',
    );
    await b.worker.runUntilFinished();
    await assertNoKeyWithoutTtl(a.name);
  });

  it('strikes: a struck automatic task is not seeded', async () => {
    const producer = await createDocket([], { worker: false });
    try {
      await producer.client.strike({ task: 'sweep' });
      const worker = await createDocket([StruckAutomaticTasks], {
        name: producer.name,
        worker: { autoStart: true },
      });
      try {
        await waitFor(
          () => worker.client.getExecution('newYear'),
          'the automatic cron to be seeded',
        );
      } finally {
        await worker.close();
      }
      await assertNoKeyWithoutTtl(producer.name);
    } finally {
      await producer.close();
    }
  });

  it('progress: kept for executionTtl after the end; bad counts leave nothing behind', async (t) => {
    const docket = await useDocket(t, [ProgressTasks], { executionTtl: 60_000 });
    const execution = await docket.client.add(ProgressTasks.prototype.report, { key: 'rep' })();
    await docket.client.add(ProgressTasks.prototype.badCounts)();
    await docket.client.add(ProgressTasks.prototype.zeroTotal)();
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'done');
    const ttl = await withRaw((redis) => redis.pttl(keyOf(docket.name, 'progress:rep')));
    assert.ok(ttl > 0 && ttl <= 60_000, `progress kept for ${ttl}ms`);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('context: a task that adds another through ctx.docket, a struck parameter after @Ctx()', async (t) => {
    const docket = await useDocket(t, [ContextTasks], { worker: { name: 'ctx-worker' } });
    const { client } = docket;
    await client.add(ContextTasks.prototype.inspect, { key: 'k1' })('u1', 3);
    await client.add(ContextTasks.prototype.parent, { key: 'p' })('hi');
    await client.add('middle', { key: 'both' })('a', 2);
    await client.add('middle', { key: 'first' })('b');
    await docket.worker.runUntilFinished();
    await client.strike({ task: 'middle', parameter: 'second', value: 2 });
    assert.equal((await client.add('middle')('x', 2)).disposition, 'struck');
    await client.add('middle')('x', 3);
    await docket.worker.runUntilFinished();
    assert.equal((await client.getExecution('p.child'))?.state, 'completed');
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('boot: a dotted argument path, and an automatic task with a default argument', async () => {
    const docket = await createDocket([DottedPath]);
    try {
      for (const [customerId, id] of [
        [1, 10],
        [1, 11],
        [2, 20],
      ]) {
        await docket.client.add(DottedPath.prototype.ship)({ customerId, id });
      }
      await docket.worker.runUntilFinished();
      await assertNoKeyWithoutTtl(docket.name);
    } finally {
      await docket.close();
    }
    const automatic = await createDocket([AutomaticWithDefault]);
    try {
      await assertNoKeyWithoutTtl(automatic.name);
    } finally {
      await automatic.close();
    }
  });

  it('boot: a boot that fails writes no key', async () => {
    for (const provider of [
      PerpetualAndCron,
      UnknownArgument,
      UnknownPathHead,
      ZeroLimit,
      TwoConcurrencies,
      BadRetry,
      BadCronTasks,
      BadZoneTasks,
    ]) {
      const name = uniqueName();
      const module = await Test.createTestingModule({
        imports: [DocketModule.forRoot({ url: REDIS_URL, name, worker: { autoStart: false } })],
        providers: [provider],
      }).compile();
      module.useLogger(false);
      await assert.rejects(module.init(), provider.name);
      await module.close().catch(() => undefined);
      assert.deepEqual(await docketKeys(name), [], `${provider.name}: a failed boot wrote keys`);
    }
  });
});
