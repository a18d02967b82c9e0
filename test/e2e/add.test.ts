import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { assertNoKeyWithoutTtl, createDocket, type TestDocket } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];
  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value.toUpperCase();
  }
}

describe('add', () => {
  let docket: TestDocket;
  before(async () => {
    docket = await createDocket([Tasks]);
  });
  after(async () => {
    await assertNoKeyWithoutTtl(docket.name);
    await docket.close();
  });

  it('runs an added task and keeps its result', async () => {
    const execution = await docket.client.add(Tasks.prototype.record)('a');
    assert.equal(execution.disposition, 'scheduled');
    assert.equal(execution.state, 'queued');
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'A');
    assert.equal(execution.state, 'completed');
  });

  it('refuses a live key and frees it after the run', async () => {
    const first = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('x');
    const second = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('y');
    assert.equal(first.disposition, 'scheduled');
    assert.equal(second.disposition, 'already_scheduled');
    await docket.worker.runUntilFinished();
    const third = await docket.client.add(Tasks.prototype.record, { key: 'k1' })('z');
    assert.equal(third.disposition, 'scheduled');
    await docket.worker.runUntilFinished();
    const tasks = docket.module.get(Tasks);
    assert.deepEqual(
      tasks.calls.filter((c) => c !== 'a'),
      ['x', 'z'],
    );
  });
});
