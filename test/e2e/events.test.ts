import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import {
  Ctx,
  type DocketClient,
  type DocketEvent,
  DocketTask,
  OnDocketEvent,
  type TaskContext,
} from '../../lib/index.js';
import { createDocket, deferred, uniqueName, useDocket, waitFor } from '../utils.js';

// SPEC §11: events() sees every event of every process on one channel; @OnDocketEvent methods
// get the events of this process's worker, once each; a listener that throws harms nothing.

@Injectable()
class Tasks {
  started = deferred();

  @DocketTask()
  async ok(label: string): Promise<string> {
    return label;
  }

  @DocketTask({ retry: { attempts: 2, delay: 0 } })
  async flaky(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.attempt === 1) throw new Error(`first attempt of ${label} fails`);
    return label;
  }

  @DocketTask()
  async bad(label: string): Promise<void> {
    throw new Error(`${label} always fails`);
  }

  @DocketTask()
  async slow(@Ctx() ctx: TaskContext): Promise<void> {
    this.started.resolve();
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
  }
}

@Injectable()
class Listeners {
  readonly seen: DocketEvent[] = [];
  readonly flaky: DocketEvent[] = [];
  throws = 0;

  @OnDocketEvent(['started', 'completed', 'failed', 'retrying', 'cancelled', 'dead', 'scheduled'])
  all(event: DocketEvent): void {
    this.seen.push(event);
  }

  @OnDocketEvent('completed', { task: Tasks.prototype.flaky })
  onlyFlaky(event: DocketEvent): void {
    this.flaky.push(event);
  }

  @OnDocketEvent('started')
  async broken(): Promise<void> {
    this.throws++;
    throw new Error('a listener that throws');
  }
}

/** Subscribe, and wait until the subscription gets events (a probe add is seen). */
async function listen(
  client: DocketClient,
  filter?: Parameters<DocketClient['events']>[0],
): Promise<{ events: DocketEvent[]; subscription: Subscription }> {
  const events: DocketEvent[] = [];
  const probes: DocketEvent[] = [];
  const subscription = client.events(filter).subscribe((event) => {
    if (event.key.startsWith('probe-')) probes.push(event);
    else events.push(event);
  });
  const probe = client.events({ types: ['scheduled'] }).subscribe((event) => {
    if (event.key.startsWith('probe-')) probes.push(event);
  });
  let n = 0;
  await waitFor(async () => {
    await client.add('ok', { key: `probe-${n++}`, delay: 3_600_000 })('probe');
    return probes.length > 0;
  }, 'the events subscription to start');
  probe.unsubscribe();
  await client.clear();
  return { events, subscription };
}

const of = (events: DocketEvent[], key: string) =>
  events.filter((e) => e.key === key).map((e) => e.type);

describe('events', { timeout: 60_000 }, () => {
  it('events() sees every event of a worker in another process, in order', async (t) => {
    const name = uniqueName('events');
    const producer = await useDocket(t, [], { name, worker: false });
    const worker = await createDocket([Tasks], { name, worker: { minimumCheckInterval: 50 } });
    t.after(() => worker.close());
    const { events, subscription } = await listen(producer.client);
    t.after(() => subscription.unsubscribe());

    const ok = await producer.client.add('ok')('a');
    const flaky = await producer.client.add('flaky')('b');
    const bad = await producer.client.add('bad')('c');
    const never = await producer.client.add('ok', { delay: 3_600_000 })('never');
    assert.equal(await producer.client.cancel(never.key), 'cancelled');
    void worker.worker.runForever();
    await waitFor(
      () =>
        of(events, ok.key).includes('completed') &&
        of(events, flaky.key).includes('completed') &&
        of(events, bad.key).includes('dead'),
      'the ends of ok, flaky and bad',
    );
    const slow = await producer.client.add('slow')();
    await worker.module.get(Tasks).started.promise;
    assert.equal(await producer.client.cancel(slow.key), 'cancelled');
    await waitFor(() => of(events, slow.key).includes('cancelled'), 'the cancel of slow');

    assert.deepEqual(of(events, ok.key), ['scheduled', 'started', 'completed']);
    assert.deepEqual(of(events, flaky.key), [
      'scheduled',
      'started',
      'retrying',
      'started',
      'completed',
    ]);
    assert.deepEqual(of(events, bad.key), ['scheduled', 'started', 'failed', 'dead']);
    assert.deepEqual(of(events, never.key), ['scheduled', 'cancelled']);
    assert.deepEqual(of(events, slow.key), ['scheduled', 'started', 'cancelled']);

    const byType = (key: string, type: string) =>
      events.find((e) => e.key === key && e.type === type)!;
    const completed = byType(ok.key, 'completed');
    assert.equal(completed.taskName, 'ok');
    assert.equal(completed.attempt, 1);
    assert.equal(completed.worker, worker.worker.name);
    assert.ok(completed.at instanceof Date && !Number.isNaN(completed.at.getTime()));
    assert.equal(typeof completed.durationMs, 'number');
    assert.equal(byType(flaky.key, 'retrying').attempt, 1);
    assert.equal(events.filter((e) => e.key === flaky.key && e.type === 'completed')[0].attempt, 2);
    assert.match(byType(bad.key, 'failed').error ?? '', /Error: c always fails/);
    assert.match(byType(bad.key, 'dead').error ?? '', /Error: c always fails/);
    assert.equal(byType(never.key, 'cancelled').worker, undefined);
    assert.equal(byType(ok.key, 'scheduled').worker, undefined);
  });

  it('events() filters by task and by type', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const filtered = await listen(docket.client, {
      task: Tasks.prototype.ok,
      types: ['completed'],
    });
    t.after(() => filtered.subscription.unsubscribe());
    const ok = await docket.client.add(Tasks.prototype.ok)('x');
    const bad = await docket.client.add(Tasks.prototype.bad)('y');
    await docket.worker.runUntilFinished();
    await waitFor(() => filtered.events.length > 0, 'the completed event of ok');
    assert.equal((await docket.client.getExecution(bad.key))?.state, 'failed');
    // bad's failed and dead were published before a second ok runs; once its completed is
    // here, so would they be if the filter let them through
    const later = await docket.client.add(Tasks.prototype.ok)('z');
    await docket.worker.runUntilFinished();
    await waitFor(
      () => filtered.events.some((e) => e.key === later.key),
      'the completed event of the second ok',
    );
    assert.deepEqual(
      filtered.events.map((e) => `${e.type} ${e.key}`),
      [`completed ${ok.key}`, `completed ${later.key}`],
    );
    assert.throws(
      () => docket.client.events({ types: ['finished' as never] }),
      /not an event type/,
    );
  });

  it('@OnDocketEvent methods get each event of this worker once; a throwing one harms nothing', async (t) => {
    const docket = await useDocket(t, [Tasks, Listeners], { worker: { minimumCheckInterval: 50 } });
    const listeners = docket.module.get(Listeners);
    const ok = await docket.client.add(Tasks.prototype.ok)('a');
    const flaky = await docket.client.add(Tasks.prototype.flaky)('b');
    const bad = await docket.client.add(Tasks.prototype.bad)('c');
    await docket.worker.runUntilFinished();
    void docket.worker.runForever();
    const slow = await docket.client.add(Tasks.prototype.slow)();
    await docket.module.get(Tasks).started.promise;
    await docket.client.cancel(slow.key);
    await waitFor(() => of(listeners.seen, slow.key).includes('cancelled'), 'the cancel of slow');

    // no `scheduled`: the producer's events come through events()
    assert.deepEqual(of(listeners.seen, ok.key), ['started', 'completed']);
    assert.deepEqual(of(listeners.seen, flaky.key), [
      'started',
      'retrying',
      'started',
      'completed',
    ]);
    assert.deepEqual(of(listeners.seen, bad.key), ['started', 'failed', 'dead']);
    assert.deepEqual(of(listeners.seen, slow.key), ['started', 'cancelled']);
    assert.deepEqual(
      listeners.flaky.map((e) => `${e.key} ${e.attempt}`),
      [`${flaky.key} 2`],
    );
    assert.equal(listeners.throws, 5);
    assert.equal((await docket.client.getExecution(ok.key))?.state, 'completed');
    const dead = listeners.seen.find((e) => e.key === bad.key && e.type === 'dead')!;
    assert.match(dead.error ?? '', /Error: c always fails/);
    assert.equal(dead.worker, docket.worker.name);
  });

  it('refuses an unknown event type at the decorator', () => {
    assert.throws(() => OnDocketEvent('finished' as never), /"finished" is not an event type/);
  });
});
