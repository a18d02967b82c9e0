// The execution record of a key (its runs hash), field by field: what the read model shows of
// it is checked by the e2e suite; here, that operations which must change nothing leave every
// field of it as it was, internal ones included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { deferred, useDocket, waitFor } from '../utils.js';
import { runsHash } from './raw.js';

@Injectable()
class Tasks {
  gate?: Promise<void>;
  started?: () => void;

  @DocketTask()
  async record(value: string): Promise<string> {
    return value;
  }

  @DocketTask()
  async gated(value: string): Promise<string> {
    this.started?.();
    await this.gate;
    return value;
  }
}

describe('execution records', { timeout: 60_000 }, () => {
  it('a cancel of a finished task leaves its runs hash as it was', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    await docket.client.add(Tasks.prototype.record, { key: 'done' })('x');
    await docket.worker.runUntilFinished();
    const before = await runsHash(docket.name, 'done');
    assert.equal(before.state, 'completed');
    await docket.client.cancel('done');
    assert.deepEqual(await runsHash(docket.name, 'done'), before);
  });

  it('a replaced run that ends after its successor leaves the runs hash as the successor left it', async (t) => {
    const docket = await useDocket(t, [Tasks], {
      worker: { concurrency: 2, minimumCheckInterval: 100 },
    });
    const tasks = docket.module.get(Tasks);
    const gate = deferred();
    const started = deferred();
    tasks.gate = gate.promise;
    tasks.started = started.resolve;
    t.after(() => gate.resolve());
    await docket.client.add(Tasks.prototype.gated, { key: 'o' })('first');
    void docket.worker.runForever();
    await started.promise;
    tasks.gate = undefined;
    tasks.started = undefined;
    const second = await docket.client.replace(Tasks.prototype.gated, { key: 'o' })('second');
    assert.equal(await second.result({ timeout: 5_000 }), 'second');
    const before = await runsHash(docket.name, 'o');
    gate.resolve();
    await waitFor(() => docket.worker.activeTasks === 0, 'the first run to end');
    assert.deepEqual(await runsHash(docket.name, 'o'), before);
  });
});
