import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { assertNoKeyWithoutTtl, createDocket, rawRedis, type TestDocket } from '../utils.js';

@Injectable()
class Tasks {
  seen: unknown[][] = [];
  @DocketTask()
  async ingest(id: number, tags: string[]): Promise<number> {
    this.seen.push([id, tags]);
    return id * 2;
  }
}

describe('a producer that writes only the stream', () => {
  let docket: TestDocket;
  before(async () => {
    docket = await createDocket([Tasks]);
  });
  after(async () => {
    await docket.close();
  });

  it('runs a generation-0 entry and records its execution', async () => {
    const redis = rawRedis();
    try {
      const stream = `{${docket.name}}:stream`;
      await redis.xadd(
        stream,
        '*',
        'key',
        'foreign-1',
        'task',
        'ingest',
        'args',
        '[21,["a"]]',
        'when',
        String(Date.now()),
        'attempt',
        '1',
        'generation',
        '0',
      );
      await docket.worker.runUntilFinished();
      assert.deepEqual(docket.module.get(Tasks).seen, [[21, ['a']]]);
      const execution = await docket.client.getExecution('foreign-1');
      assert.equal(execution?.state, 'completed');
      assert.equal(await execution?.result({ timeout: 1_000 }), 42);
      await assertNoKeyWithoutTtl(docket.name);
    } finally {
      redis.disconnect();
    }
  });
});
