// Cancels that race claims and ends, and bounded input (SPEC §10).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket } from '../utils.js';

@Injectable()
class Tasks {
  /** Takes a few ms, ignoring its signal: only the order in Redis decides how it ends. */
  @DocketTask()
  async brief(n: number): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, n % 7));
    return n;
  }
}

describe('cancel', () => {
  it(
    'answers cancelled only for executions that end cancelled, racing 1 000 claims and ends',
    { timeout: 60_000 },
    async (t) => {
      const docket = await useDocket(t, [Tasks], {
        worker: { concurrency: 50, minimumCheckInterval: 20 },
      });
      const executions = await docket.client.addMany(
        Tasks.prototype.brief,
        Array.from({ length: 1_000 }, (_, n) => [n]),
      );
      const working = docket.worker.runUntilFinished();
      const answers = await Promise.all(
        executions.map(async (execution, n) => {
          // spread over the drain: some before their claim, some while they run, some after
          await new Promise((resolve) => setTimeout(resolve, Math.floor(n * 0.4)));
          return docket.client.cancel(execution.key);
        }),
      );
      await working;
      const lost: string[] = [];
      for (const [n, execution] of executions.entries()) {
        await execution.sync();
        const expected = answers[n] === 'cancelled' ? 'cancelled' : 'completed';
        if (execution.state !== expected)
          lost.push(`${execution.key}: ${answers[n]} → ${execution.state}`);
      }
      assert.deepEqual(lost, []);
      assert.ok(answers.includes('cancelled'), 'some cancels came first');
    },
  );

  it('answers not_found for a key Redis does not hold, and refuses what is not a key', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    assert.equal(await docket.client.cancel('never-added'), 'not_found');
    for (const key of [undefined, null, '', 42, { all: true }]) {
      await assert.rejects(() => docket.client.cancel(key as never), TypeError, String(key));
      await assert.rejects(() => docket.client.getExecution(key as never), TypeError, String(key));
    }
    for (const target of [undefined, null, '', 42, { all: false }, {}]) {
      await assert.rejects(() => docket.client.retryDeadLetter(target as never), TypeError);
    }
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 0);
  });
});

describe('bounded input', () => {
  it('refuses a key over maxKeyBytes, a time no Date holds, and when with delay', async (t) => {
    const docket = await useDocket(t, [Tasks], { maxKeyBytes: 16, worker: false });
    const add = async (options: object) =>
      docket.client.add(Tasks.prototype.brief, options as never)(1);
    await assert.rejects(
      () => add({ key: 'k'.repeat(17) }),
      /at most 16 bytes \(maxKeyBytes\), this one has 17/,
    );
    await assert.rejects(() => add({ key: 'ü'.repeat(9) }), /this one has 18/);
    assert.equal((await add({ key: 'ü'.repeat(8) })).disposition, 'scheduled');
    await assert.rejects(() => docket.client.cancel('k'.repeat(17)), TypeError);
    await assert.rejects(() => add({ delay: 1e300 }), /past the last time a Date can hold/);
    await assert.rejects(() => add({ delay: Number.NaN }), TypeError);
    await assert.rejects(() => add({ when: new Date(Number.NaN) }), /valid Date/);
    await assert.rejects(() => add({ when: new Date(), delay: 5 }), /"when" or "delay", not both/);
  });
});
