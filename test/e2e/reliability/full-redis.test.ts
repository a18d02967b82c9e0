// A Redis at `maxmemory` with `noeviction` (the recommended policy): workers go on draining
// while every other write fails at once with RedisFullError, and readiness says why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import {
  AddManyError,
  DocketClient,
  DocketHealthIndicator,
  DocketModule,
  DocketTask,
  DocketWorker,
  RedisFullError,
} from '../../../lib/index.js';
import { REDIS_ONLY, uniqueName } from '../../utils.js';
import { removeDir, startStandalone } from './servers.js';

@Injectable()
class Work {
  done = 0;

  @DocketTask()
  async chunk(_payload: string): Promise<void> {
    this.done++;
  }
}

describe('a full Redis', { skip: REDIS_ONLY, timeout: 120_000 }, () => {
  it('is drained by a worker while adds fail with RedisFullError and readiness is down', async () => {
    const server = await startStandalone({
      args: ['--maxmemory', '12mb', '--maxmemory-policy', 'noeviction'],
    });
    const url = `redis://127.0.0.1:${server.port}/0`;
    const name = uniqueName('full');
    const module = await Test.createTestingModule({
      imports: [
        TerminusModule,
        DocketModule.forRoot({
          url,
          name,
          worker: { autoStart: false, concurrency: 20, minimumCheckInterval: 100 },
        }),
      ],
      providers: [Work],
    }).compile();
    module.useLogger(false);
    await module.init();
    try {
      const client = module.get(DocketClient);
      const health = module.get(DocketHealthIndicator);
      const payload = 'x'.repeat(2_000);

      // fill it: adds until Redis refuses them
      let scheduled = 0;
      let refused: unknown;
      while (!refused) {
        try {
          scheduled += (await client.addMany(Work.prototype.chunk, Array(200).fill([payload])))
            .length;
        } catch (error) {
          refused = error;
        }
      }
      assert.ok(refused instanceof AddManyError, String(refused));
      assert.ok(refused.cause instanceof RedisFullError, String(refused.cause));
      scheduled += refused.scheduled.length;
      assert.equal(refused.scheduled.length + refused.failed.length, 200);
      assert.ok(scheduled > 1_000, `only ${scheduled} tasks fit`);

      // an add fails at once, writing nothing; readiness says why
      await assert.rejects(client.add(Work.prototype.chunk)(payload), RedisFullError);
      const ready = await health.isReady('docket');
      assert.equal(ready.docket.status, 'down');
      assert.equal(ready.docket.message, 'redis refuses writes (OOM)');

      // the worker drains everything that was scheduled
      await module.get(DocketWorker).runUntilFinished();
      assert.equal(module.get(Work).done, scheduled);
      assert.deepEqual(await client.deadLetters(), []);
    } finally {
      await module.close();
      await server.stop();
      removeDir(server.dir);
    }
  });
});
