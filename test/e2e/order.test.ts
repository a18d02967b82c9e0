import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket, waitFor } from '../utils.js';

// SPEC §6: tasks become queued in due-time order, ties broken by add order, and one worker at
// concurrency 1 runs them strictly in that order.

@Injectable()
class Tasks {
  readonly started: string[] = [];

  @DocketTask()
  async step(label: string): Promise<void> {
    this.started.push(label);
  }
}

const labels = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('order', { timeout: 30_000 }, () => {
  it('one worker at concurrency 1 starts immediate tasks in add order', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 1, minimumCheckInterval: 50 },
    });
    const expected = labels('t', 30);
    for (const label of expected) await docket.client.add(Tasks.prototype.step)(label);
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, expected);
  });

  it('the same while the worker already runs and tasks keep arriving', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 1, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(Tasks);
    void docket.worker.runForever();
    const expected = labels('t', 30);
    for (const label of expected) await docket.client.add(Tasks.prototype.step)(label);
    await waitFor(() => tasks.started.length >= expected.length, 'all 30 tasks to start', 10_000);
    assert.deepEqual(tasks.started, expected);
  });

  it('future tasks: due-time order, ties broken by add order', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 1, minimumCheckInterval: 50 },
    });
    // far enough ahead that the adds below are done before the ties come due, on a busy machine
    const at = new Date(Date.now() + 2_000);
    const later = new Date(Date.now() + 2_300);
    await docket.client.add(Tasks.prototype.step, { when: later })('late0');
    for (const label of labels('tie', 10)) {
      await docket.client.add(Tasks.prototype.step, { when: at })(label);
    }
    await docket.client.add(Tasks.prototype.step, { when: later })('late1');
    await docket.client.add(Tasks.prototype.step)('now');
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, [
      'now',
      ...labels('tie', 10),
      'late0',
      'late1',
    ]);
  });

  it('ties of future tasks go in add order whatever their keys', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 1, minimumCheckInterval: 50 },
    });
    const when = new Date(Date.now() + 2_000);
    const keys = ['zz', 'aa', 'mm', 'bb', 'yy', 'cc'];
    for (const key of keys) await docket.client.add(Tasks.prototype.step, { key, when })(key);
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).started, keys);
  });
});
