import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { deferred, useDocket, waitFor } from '../utils.js';

// SPEC §11: explain() answers "why isn't it running?" from Redis, each reason in a real
// situation, the first that applies when several do.

@Injectable()
class Tasks {
  gate = deferred();
  readonly started: string[] = [];

  @DocketTask()
  async quick(label: string): Promise<string> {
    this.started.push(label);
    return label;
  }

  @DocketTask()
  async blocked(label: string): Promise<void> {
    this.started.push(label);
    await this.gate.promise;
  }

  @DocketTask({ concurrency: { argument: 'account', max: 1 } })
  async perAccount(account: string, label: string): Promise<void> {
    this.started.push(label);
    await this.gate.promise;
  }

  @DocketTask({ rateLimit: { limit: 1, per: 60_000 } })
  async limited(label: string): Promise<void> {
    this.started.push(label);
  }

  @DocketTask({ debounce: { settle: 60_000 } })
  async settle(label: string): Promise<void> {
    this.started.push(label);
  }
}

const FAST = { worker: { minimumCheckInterval: 50 } };

describe('explain', { timeout: 60_000 }, () => {
  it('finished, scheduled, running and queued with how many are ahead', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 1, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(Tasks);
    const done = await docket.client.add(Tasks.prototype.quick)('done');
    await docket.worker.runUntilFinished();
    const finished = await done.explain();
    assert.equal(finished.reason, 'finished');
    assert.equal(finished.state, 'completed');
    assert.ok(finished.since instanceof Date);

    const later = await docket.client.add(Tasks.prototype.quick, { delay: 60_000 })('later');
    const scheduled = await later.explain();
    assert.equal(scheduled.reason, 'scheduled');
    assert.equal(scheduled.until?.getTime(), later.when.getTime());

    const running = await docket.client.add(Tasks.prototype.blocked)('running');
    void docket.worker.runForever();
    await waitFor(() => tasks.started.includes('running'), 'the blocked task started');
    const q1 = await docket.client.add(Tasks.prototype.quick)('q1');
    const q2 = await docket.client.add(Tasks.prototype.quick)('q2');
    const onWorker = await running.explain();
    assert.equal(onWorker.reason, 'running');
    assert.equal(onWorker.state, 'running');
    assert.match(onWorker.detail, new RegExp(`on worker ${docket.worker.name}`));
    assert.ok(onWorker.since instanceof Date);
    // the running task's message is ahead of q1; q1 and it are ahead of q2
    assert.match((await q1.explain()).detail, /^1 ahead/);
    const second = await q2.explain();
    assert.equal(second.reason, 'queued');
    assert.equal(second.state, 'queued');
    assert.match(second.detail, /^2 ahead/);
    tasks.gate.resolve();
    await (await docket.client.getExecution(q2.key))!.result({ timeout: 10_000 });
  });

  it('no_worker, paused and struck, each the first that applies', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    const waiting = await docket.client.add('quick')('w');
    const alone = await waiting.explain();
    assert.equal(alone.reason, 'no_worker');
    assert.match(alone.detail, /no live worker runs task quick/);

    await docket.client.pause('quick');
    const paused = await waiting.explain();
    assert.equal(paused.reason, 'paused');
    assert.match(paused.detail, /task quick is paused/);

    await docket.client.strike({ task: 'quick' });
    const struck = await waiting.explain();
    assert.equal(struck.reason, 'struck');
    assert.equal(struck.state, 'queued');
    await docket.client.restore({ task: 'quick' });
    assert.equal((await waiting.explain()).reason, 'paused');
  });

  it('concurrency names the slot and who holds it; rate_limited and debouncing give until', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    void docket.worker.runForever();
    const holder = await docket.client.add(Tasks.prototype.perAccount)('acme', 'first');
    await waitFor(() => tasks.started.includes('first'), 'the first task started');
    const second = await docket.client.add(Tasks.prototype.perAccount)('acme', 'second');
    const inLine = await waitFor(async () => {
      const why = await second.explain();
      return why.reason === 'concurrency' && why;
    }, 'the second task to wait for its slot');
    assert.match(inLine.detail, /account="acme"/);
    assert.match(inLine.detail, new RegExp(`held by ${holder.key}`));

    const one = await docket.client.add(Tasks.prototype.limited)('one');
    const two = await docket.client.add(Tasks.prototype.limited)('two');
    await (await docket.client.getExecution(one.key))!.result({ timeout: 10_000 });
    const limited = await waitFor(async () => {
      const why = await two.explain();
      return why.reason === 'rate_limited' && why;
    }, 'the second limited task to be deferred');
    assert.ok(limited.until && limited.until.getTime() > Date.now() + 50_000);
    assert.equal(limited.state, 'scheduled');

    const settling = await docket.client.add(Tasks.prototype.settle)('s');
    const debouncing = await waitFor(async () => {
      const why = await settling.explain();
      return why.reason === 'debouncing' && why;
    }, 'the debounced task to be held');
    assert.ok(debouncing.until && debouncing.until.getTime() > Date.now() + 50_000);
    tasks.gate.resolve();
  });
});
